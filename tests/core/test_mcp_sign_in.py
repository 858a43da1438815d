"""Signing in to a client's MCP server that needs it (`fsm.claude.mcp_sign_in`,
docs/decisions.md#mcp-sign-in): the pure readings of Claude Code's answers and of the race
between the page and the server, and the notice machine's rows through the session core for
each kind of client."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import (
    McpServersPolled,
    McpSignInEnded,
    SessionCore,
    SignInMcpServer,
    poll_verdict,
    sign_in_message,
    sign_in_outcome,
    sign_in_page,
    sign_in_servers,
)
from fsm.claude.mcp_sign_in import OUTCOMES
from fsm.effects import LogNotice, PublishRecord, SendAgentText, SendNotice
from fsm.events import McpServersReported, McpServerStatus

E = "epoch-1"
URL = "https://auth.example/authorize?client_id=c&state=s3cr3t"


def _servers(*pairs: tuple[str, str]) -> tuple[McpServerStatus, ...]:
    return tuple(McpServerStatus(name=n, status=s) for n, s in pairs)


def _core(kind: str, sign_in: frozenset[str] = frozenset({"docs"})) -> SessionCore:
    capable = kind == "capable"
    return SessionCore(
        session_id="s",
        epoch=E,
        capable=capable,
        acp_notices=kind == "notices",
        mcp_sign_in=sign_in,
    )


# --- the pure readings -------------------------------------------------------------------


def test_only_a_url_client_signs_in_and_only_to_its_own_servers() -> None:
    assert sign_in_servers(by_url=True, client_servers=["docs", "db"]) == {"docs", "db"}
    assert sign_in_servers(by_url=False, client_servers=["docs"]) == frozenset()


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"requiresUserAction": True, "authUrl": URL, "callbackExpected": True}, ("page", URL)),
        ({"requiresUserAction": True, "authUrl": f"  {URL}\n"}, ("page", URL)),
        ({"requiresUserAction": False, "callbackExpected": False}, ("not_needed", None)),
        ({"requiresUserAction": True}, ("failed", None)),
        ({"requiresUserAction": True, "authUrl": "  "}, ("failed", None)),
        ({"requiresUserAction": True, "authUrl": 7}, ("failed", None)),
        ({"authUrl": URL}, ("failed", None)),  # no word on an action: not a sign-in to show
        (None, ("failed", None)),  # refused, or no answer
        ("a string", ("failed", None)),
    ],
)
def test_what_claude_code_asks_of_the_user(response: object, expected: tuple[Any, ...]) -> None:
    assert sign_in_page(response) == expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({"mcpServers": [{"name": "docs", "status": "connected"}]}, True),
        ({"mcpServers": [{"name": "docs", "status": "needs-auth"}]}, None),
        ({"mcpServers": [{"name": "docs", "status": "pending"}]}, None),
        ({"mcpServers": [{"name": "docs", "status": "failed"}]}, False),
        ({"mcpServers": [{"name": "docs", "status": "disabled"}]}, False),
        ({"mcpServers": [{"name": "other", "status": "connected"}]}, False),  # gone
        ({"mcpServers": "nonsense"}, False),
        (None, False),
    ],
)
def test_the_server_as_claude_code_reports_it(status: object, expected: bool | None) -> None:
    assert poll_verdict(status, "docs") is expected


@pytest.mark.parametrize(
    ("answer", "connected", "expected"),
    [
        (None, None, None),  # nothing has ended: wait
        ({"action": "accept"}, None, None),  # the user went to the page: wait for the server
        ({"action": "decline"}, None, "declined"),
        ({"action": "cancel"}, None, "declined"),
        ({"weird": 1}, None, "declined"),
        ({}, None, "declined"),  # the client's error answer, or a withdrawn page
        (None, True, "connected"),  # the server first: the user signed in
        (None, False, "not_connected"),
        ({"action": "accept"}, True, "connected"),
        ({"action": "accept"}, False, "not_connected"),
    ],
)
def test_the_first_to_end_decides(answer: object, connected: bool | None, expected: str) -> None:
    assert sign_in_outcome(answer, connected) == expected


def test_the_page_names_the_server_on_one_line() -> None:
    assert sign_in_message("docs") == "Authenticate with MCP server docs"
    assert "\n" not in sign_in_message("do\ncs\x1b[31m")
    assert len(sign_in_message("x" * 5000)) < 300


# --- the rows, through the core ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["capable", "notices", "legacy"])
def test_a_needs_auth_server_of_the_client_is_signed_in_to_once(kind: str) -> None:
    core = _core(kind)
    polled = core.handle(McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth"))))
    assert polled == [SignInMcpServer(name="docs")]
    # Told again, by a later poll or a turn's init frame: nothing more.
    assert core.handle(McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth")))) == []
    init = McpServersReported(epoch=E, servers=_servers(("docs", "needs-auth")))
    assert core.handle(init) == []


def test_the_init_frame_starts_it_when_it_tells_first() -> None:
    core = _core("legacy")
    init = McpServersReported(epoch=E, servers=_servers(("docs", "needs-auth"), ("db", "failed")))
    effects = core.handle(init)
    assert effects[0] == SignInMcpServer(name="docs")
    assert [type(e) for e in effects[1:]] == [SendAgentText]  # the failed one, as before
    assert core.handle(McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth")))) == []


@pytest.mark.parametrize(
    "servers",
    [
        (("docs", "connected"),),
        (("docs", "pending"),),
        (("docs", "failed"),),  # a poll tells no problem: the turn's init frame does
        (("other", "needs-auth"),),  # not the client's server
        ((None, "needs-auth"),),
    ],
)
def test_a_poll_starts_nothing_else(servers: tuple[tuple[Any, str], ...]) -> None:
    core = _core("capable")
    polled = tuple(McpServerStatus(name=n, status=s) for n, s in servers)
    assert core.handle(McpServersPolled(epoch=E, servers=polled)) == []


def test_a_client_without_url_elicitation_keeps_the_notice() -> None:
    core = _core("notices", sign_in=frozenset())
    assert core.handle(McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth")))) == []
    init = McpServersReported(epoch=E, servers=_servers(("docs", "needs-auth")))
    (notice,) = core.handle(init)
    assert isinstance(notice, SendNotice) and "needs authentication" in notice.title


def test_a_server_the_client_did_not_give_keeps_the_notice() -> None:
    core = _core("notices")
    (notice,) = core.handle(McpServersReported(epoch=E, servers=_servers(("own", "needs-auth"))))
    assert isinstance(notice, SendNotice)


@pytest.mark.parametrize("outcome", ["connected", "not_needed"])
def test_a_sign_in_that_worked_is_only_logged(outcome: str) -> None:
    core = _core("notices")
    core.handle(McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth"))))
    (logged,) = core.handle(McpSignInEnded(name="docs", outcome=outcome))
    assert isinstance(logged, LogNotice)
    assert logged.message == f'sign-in to MCP server "docs": {outcome.replace("_", " ")}'


@pytest.mark.parametrize(
    ("kind", "told"),
    [("capable", PublishRecord), ("notices", SendNotice), ("legacy", SendAgentText)],
)
@pytest.mark.parametrize("outcome", ["declined", "not_connected", "failed"])
def test_a_sign_in_that_did_not_connect_is_told_as_the_problem(
    kind: str, told: type, outcome: str
) -> None:
    core = _core(kind)
    core.handle(McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth"))))
    logged, notice = core.handle(McpSignInEnded(name="docs", outcome=outcome))
    assert isinstance(logged, LogNotice) and outcome.replace("_", " ") in logged.message
    assert isinstance(notice, told)
    words = str(notice)
    assert "needs authentication" in words and URL not in words
    # Once: a later init frame saying the same adds nothing.
    init = McpServersReported(epoch=E, servers=_servers(("docs", "needs-auth")))
    assert core.handle(init) == []


def test_a_name_that_could_be_a_path_is_not_logged() -> None:
    core = _core("legacy", sign_in=frozenset({"/home/alice/srv"}))
    polled = core.handle(
        McpServersPolled(epoch=E, servers=_servers(("/home/alice/srv", "needs-auth")))
    )
    assert polled == [SignInMcpServer(name="/home/alice/srv")]
    logged, _ = core.handle(McpSignInEnded(name="/home/alice/srv", outcome="failed"))
    assert isinstance(logged, LogNotice) and "alice" not in logged.message


def test_every_outcome_is_named() -> None:
    assert {"connected", "not_needed", "declined", "not_connected", "failed"} == OUTCOMES


@pytest.mark.parametrize("outcome", sorted(OUTCOMES))
def test_the_page_is_done_unless_declined(outcome: str) -> None:
    from fsm import page_done

    assert page_done(outcome) is (outcome != "declined")


def test_a_reconnect_lets_a_server_be_signed_in_to_again() -> None:
    from fsm import McpServersReconnected, PollMcpServers

    core = _core("notices")
    needs = McpServersPolled(epoch=E, servers=_servers(("docs", "needs-auth")))
    assert core.handle(needs) == [SignInMcpServer(name="docs")]
    # While it runs, a reconnect starts nothing more.
    assert core.handle(McpServersReconnected(names=("docs",))) == []
    assert core.handle(needs) == []
    core.handle(McpSignInEnded(name="docs", outcome="declined"))
    # Ended: `/mcp reconnect docs` asks for a poll, which signs in again.
    assert core.handle(McpServersReconnected(names=("docs", "own"))) == [PollMcpServers()]
    assert core.handle(needs) == [SignInMcpServer(name="docs")]


@pytest.mark.parametrize("sign_in", [frozenset(), frozenset({"docs"})])
def test_a_reconnect_of_other_servers_asks_nothing(sign_in: frozenset[str]) -> None:
    from fsm import McpServersReconnected

    core = _core("capable", sign_in=sign_in)
    assert core.handle(McpServersReconnected(names=("own", "db"))) == []
