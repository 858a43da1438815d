"""The shell's half of an MCP server's sign-in (`adapter.controls.mcp_sign_in`): Claude Code's
`mcp_authenticate`, the page as a URL elicitation beside a poll of `mcp_status`, the client
told the page is done, and the outcome the core gets; in process, on fakes, with no sleep (the
poll's interval is zero). The URL is in the form and in no log line."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

from adapter.controls.mcp_sign_in import McpSignIn
from adapter.wire.client_link import ClientLink
from fsm import Event, McpServersPolled, McpSignInEnded

pytestmark = pytest.mark.anyio

URL = "https://auth.example/authorize?state=s3cr3t-state"
PAGE = {"requiresUserAction": True, "authUrl": URL, "callbackExpected": True}


class Query:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    async def _send_control_request(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class Claude:
    """`ClaudeSDKClient` at the seam: `mcp_authenticate` answered with `answer`, and `mcp_status`
    with `statuses` in turn (the last one again and again)."""

    def __init__(self, answer: Any, statuses: list[Any]) -> None:
        self._query = Query(answer)
        self.statuses = statuses
        self.polls = 0

    async def get_mcp_status(self) -> Any:
        self.polls += 1
        status = self.statuses[min(self.polls, len(self.statuses)) - 1]
        if isinstance(status, Exception):
            raise status
        return status


class Client(ClientLink):
    """The editor: answers the page with `answer` (None: never, until withdrawn)."""

    def __init__(self, answer: dict[str, Any] | None) -> None:
        super().__init__()
        self.answer = answer
        self.pages: list[dict[str, Any]] = []
        self.notified: list[tuple[str, dict[str, Any]]] = []
        self.withdrawn: list[int] = []

    def next_request_id(self) -> int | None:
        return len(self.pages) + 1

    async def create_elicitation(self, params: dict[str, Any]) -> dict[str, Any] | None:
        self.pages.append(params)
        if self.answer is None:
            await anyio.sleep_forever()
        return self.answer

    async def notify(self, method: str, params: dict[str, Any], session_id: str) -> bool:
        self.notified.append((method, params))
        return True

    async def cancel_request(self, request_id: int) -> None:
        self.withdrawn.append(request_id)


def _status(state: str) -> dict[str, Any]:
    return {"mcpServers": [{"name": "docs", "status": state}, {"name": "x", "status": "failed"}]}


async def _run(claude: Claude, client: Client, limit: float = 30.0) -> list[Event]:
    told: list[Event] = []

    async def report(event: Event) -> None:
        told.append(event)

    sign_in = McpSignIn(
        session_id="s",
        link=client,
        servers=frozenset({"docs"}),
        report=report,
        poll_seconds=0,
        limit_seconds=limit,
    )
    with anyio.fail_after(30):
        await sign_in.run(claude, "docs")
    return told


async def test_the_user_signs_in_on_the_page_and_the_server_connects(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    claude = Claude(PAGE, [_status("needs-auth"), _status("needs-auth"), _status("connected")])
    client = Client({"action": "accept"})
    told = await _run(claude, client)
    assert claude._query.requests == [{"subtype": "mcp_authenticate", "serverName": "docs"}]
    (page,) = client.pages
    assert page["mode"] == "url" and page["url"] == URL and page["sessionId"] == "s"
    assert page["message"] == "Authenticate with MCP server docs"
    assert page["elicitationId"].startswith("mcp-oauth-")
    assert client.notified == [("elicitation/complete", {"elicitationId": page["elicitationId"]})]
    assert client.withdrawn == []  # answered: nothing to withdraw
    assert told == [McpSignInEnded(name="docs", outcome="connected")]
    assert URL not in caplog.text and "s3cr3t" not in caplog.text


async def test_the_server_connecting_first_ends_the_page() -> None:
    claude = Claude(PAGE, [_status("connected")])
    client = Client(None)  # the user finished in the browser; the client still shows the page
    told = await _run(claude, client)
    (page,) = client.pages
    assert client.notified == [("elicitation/complete", {"elicitationId": page["elicitationId"]})]
    assert client.withdrawn == [1]  # and the request the client still holds is withdrawn
    assert told == [McpSignInEnded(name="docs", outcome="connected")]


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_page_ends_it_without_the_server(action: str) -> None:
    claude = Claude(PAGE, [_status("needs-auth")])
    client = Client({"action": action})
    told = await _run(claude, client)
    assert client.notified == []  # the reference completes only what the user did not decline
    assert told == [McpSignInEnded(name="docs", outcome="declined")]


@pytest.mark.parametrize(
    ("statuses", "limit"),
    [
        ([_status("failed")], 30.0),
        ([{"mcpServers": []}], 30.0),  # gone
        ([RuntimeError("Claude Code stopped answering")], 30.0),
        ([_status("needs-auth")], 0.05),  # time is up (a bound; the poll does not wait)
    ],
)
async def test_a_server_that_does_not_connect(statuses: list[Any], limit: float) -> None:
    claude = Claude(PAGE, statuses)
    client = Client({"action": "accept"})
    told = await _run(claude, client, limit=limit)
    assert told == [McpSignInEnded(name="docs", outcome="not_connected")]
    assert [m for m, _ in client.notified] == ["elicitation/complete"]


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ({"requiresUserAction": False, "callbackExpected": False}, "not_needed"),
        ({"requiresUserAction": True}, "failed"),
        (RuntimeError(f"Server docs at {URL} refused"), "failed"),
    ],
)
async def test_no_page_to_show(answer: Any, outcome: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    claude = Claude(answer, [_status("connected")])
    client = Client({"action": "accept"})
    told = await _run(claude, client)
    assert client.pages == [] and client.notified == []
    assert told == [McpSignInEnded(name="docs", outcome=outcome)]
    assert URL not in caplog.text


async def test_withdrawn_when_its_claude_stops() -> None:
    """Run under `ClaudeRuntime.until_stopped`: cancelled, the page is withdrawn and nothing is
    reported."""
    claude = Claude(PAGE, [_status("needs-auth")])
    client = Client(None)
    told: list[Event] = []

    async def report(event: Event) -> None:
        told.append(event)

    sign_in = McpSignIn(
        session_id="s", link=client, servers=frozenset({"docs"}), report=report, poll_seconds=0
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(sign_in.run, claude, "docs")
        with anyio.fail_after(30):
            while not client.pages or claude.polls < 3:
                await anyio.sleep(0)
        tg.cancel_scope.cancel()
    assert client.withdrawn == [1] and told == []


async def test_the_poll_at_the_start_tells_the_core_what_claude_code_says() -> None:
    told: list[Event] = []

    async def report(event: Event) -> None:
        told.append(event)

    sign_in = McpSignIn(
        session_id="s", link=Client(None), servers=frozenset({"docs"}), report=report
    )
    await sign_in.poll(Claude(PAGE, [_status("needs-auth")]), "e1")
    (polled,) = told
    assert isinstance(polled, McpServersPolled) and polled.epoch == "e1"
    assert [(s.name, s.status) for s in polled.servers] == [("docs", "needs-auth"), ("x", "failed")]
    await sign_in.poll(Claude(PAGE, [RuntimeError("gone")]), "e1")
    await sign_in.poll(Claude(PAGE, [{"mcpServers": []}]), "e1")
    assert len(told) == 1  # no answer, or no servers: nothing to tell


async def test_mcp_reconnect_tells_the_core_which_servers_it_tried() -> None:
    from acp.schema import TextContentBlock

    from adapter.controls.pickers import SessionConfig
    from adapter.controls.session_controls import SessionControls
    from fsm import McpServersReconnected

    class Reconnecting(Claude):
        async def reconnect_mcp_server(self, name: str) -> None:
            return None

    told: list[Event] = []

    async def report(event: Event) -> None:
        told.append(event)

    claude = Reconnecting(PAGE, [_status("needs-auth")])
    runtime = type("Runtime", (), {"client": claude, "epoch": "e1"})()
    controls = SessionControls(
        session_id="s", link=Client(None), config=SessionConfig.initial({}, None)
    )
    controls.bind(lambda: runtime, report)
    for text in ("/mcp", "/mcp reconnect docs"):
        assert await controls.answer_locally([TextContentBlock(type="text", text=text)])
    assert told == [McpServersReconnected(names=("docs",))]  # a plain `/mcp` tries nothing
