"""The model provider's requests in process (`adapter/agent/provider_requests.py`): what
`initialize` advertises, `providers/*` and the gateway sign-in on the wire, the route every later
Claude starts with, a live session moved at its next prompt and answered once
(docs/decisions.md#provider-change), and nothing the client sent for it in a refusal or the log
(docs/decisions.md#provider-requests). Played in process (`agent_in_process`: the agent, the real
SDK and the scripted Claude in this process); the route reaching a real Claude process's
environment is end to end (tests/e2e/test_providers.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from pathlib import Path
from typing import Any

import acp
import anyio
import pytest

from adapter.agent.provider_requests import ProviderRequests
from adapter.app.log_masking import install_log_masking
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.scripted_claude.failure_steps import AssistantError
from adapter.scripted_claude.handshake import LOG_ENV_NAMES
from adapter.scripted_claude.process_steps import RawFrame, Sleep
from adapter.scripted_claude.steps import Result, Scenario, Text
from tests.support.harness import until
from tests.support.scripted_log import claude_log, envs
from tests.support.shell_harness import WAIT, agent_in_process

SECRET = "gw-made-up-secret-0123456789"
GATEWAY = "http://127.0.0.1:9/v1"
NAMES = ("ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS")


# The route most tests set: the gateway, and one header whose value must stay private.
PROVIDER = {
    "providerId": "main",
    "apiType": "anthropic",
    "baseUrl": GATEWAY,
    "headers": {"x-key": SECRET},
}


def _argvs(tmp_path: Path) -> list[list[str]]:
    return [e["argv"] for e in claude_log(tmp_path) if e["kind"] == "argv"]


def _settings_flag(argv: list[str]) -> str:
    return argv[argv.index("--settings") + 1]


async def _new_session_with_settings(adapter: Any, settings: object) -> Any:
    """`session/new` with `settings` in Claude Code's options (`_meta`): its answer or refusal."""
    meta = {"claudeCode": {"options": {"settings": settings}}}
    return await adapter.request(
        "session/new", {"cwd": str(adapter.workdir), "mcpServers": [], "_meta": meta}
    )


def _initialize_answer(adapter: Any) -> dict[str, Any]:
    return next(
        m["result"]
        for m in adapter.incoming()
        if isinstance(m.get("result"), dict) and "agentCapabilities" in m["result"]
    )


@pytest.mark.asyncio
async def test_every_client_is_told_of_providers_and_only_a_gateway_client_of_its_methods(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path / "plain") as plain:
        answer = _initialize_answer(plain)
    assert answer["agentCapabilities"]["providers"] == {}
    assert not {"gateway", "gateway-bedrock"} & {m["id"] for m in answer["authMethods"]}
    declared = {"auth": {"_meta": {"gateway": True}}}
    async with agent_in_process(tmp_path / "gw", capabilities=declared) as gateway_client:
        answer = _initialize_answer(gateway_client)
    assert answer["agentCapabilities"]["providers"] == {}
    offered = {m["id"]: m for m in answer["authMethods"]}
    assert offered["gateway"]["_meta"] == {"gateway": {"protocol": "anthropic"}}
    assert offered["gateway-bedrock"]["_meta"] == {"gateway": {"protocol": "bedrock"}}
    assert offered["gateway"]["name"] == "Custom model gateway"


@pytest.mark.asyncio
async def test_bad_provider_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    bad: list[tuple[str, Any]] = [
        ("providers/set", {"providerId": "main", "apiType": "anthropic", "baseUrl": SECRET}),
        ("providers/set", {"providerId": SECRET, "apiType": "anthropic", "baseUrl": GATEWAY}),
        ("providers/set", {"providerId": "main", "apiType": SECRET, "baseUrl": GATEWAY}),
        (
            "providers/set",
            {
                "providerId": "main",
                "apiType": "anthropic",
                "baseUrl": GATEWAY,
                "headers": {"x-key": f"{SECRET}\r\nx-injected: 1"},
            },
        ),
        ("providers/disable", {"providerId": 7}),
    ]
    async with agent_in_process(tmp_path) as adapter:
        refusals = [await adapter.request(method, params) for method, params in bad]
        gateway = await adapter.request(
            "authenticate", {"methodId": "gateway", "_meta": {"gateway": {"baseUrl": SECRET}}}
        )
        listed = await adapter.request("providers/list", {})
        log = adapter.stderr()
        wire = json.dumps([f.message for f in adapter.frames if f.direction == "incoming"])
    for refusal in [*refusals, gateway]:
        assert isinstance(refusal, acp.RequestError) and refusal.code == -32602
        assert SECRET not in str(refusal) and SECRET not in json.dumps(refusal.data)
    assert listed["providers"][0]["current"]["baseUrl"] == "https://api.anthropic.com"
    assert SECRET not in log and SECRET not in wire


@pytest.mark.asyncio
async def test_a_set_reaches_the_next_claude_and_a_live_session_at_its_next_prompt(
    tmp_path: Path,
) -> None:
    env = {LOG_ENV_NAMES: ",".join(NAMES)}
    async with agent_in_process(tmp_path, env=env) as adapter:
        live = await adapter.new_session()
        first = await adapter.prompt(live, "hello")
        assert await adapter.request("providers/set", PROVIDER) == {}
        # The same route again restarts nothing.
        assert await adapter.request("providers/set", PROVIDER) == {}
        second = await adapter.prompt(live, "again")
        third = await adapter.prompt(live, "once more")
        listed = await adapter.request("providers/list", {})
        log = adapter.stderr()
        fresh = _argvs(tmp_path)[1]
        # The route rides in the settings tier too, in a file only this user reads (removed
        # with its Claude): neither the route nor the header's value on the command line.
        tier_file = Path(_settings_flag(fresh))
        assert tier_file.stat().st_mode & 0o777 == 0o600
        tier = json.loads(tier_file.read_text(encoding="utf-8"))
    for answer in (first, second, third):
        assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"
    assert sorted(adapter.answers().values()) == [1, 1, 1]  # each prompt answered once
    routed = {"ANTHROPIC_BASE_URL": GATEWAY, "ANTHROPIC_CUSTOM_HEADERS": f"x-key: {SECRET}"}
    # The first Claude, then one fresh Claude that resumed the session, and no other.
    assert envs(tmp_path) == [dict.fromkeys(NAMES), routed]
    assert any(arg.startswith("--resume") for arg in fresh)
    assert tier["env"]["ANTHROPIC_BASE_URL"] == GATEWAY and tier["apiKeyHelper"] == ""
    assert tier["env"]["ANTHROPIC_CUSTOM_HEADERS"] == f"x-key: {SECRET}"
    assert SECRET not in json.dumps(fresh) and GATEWAY not in json.dumps(fresh)
    assert not tier_file.exists()
    assert listed["providers"][0]["current"] == {"apiType": "anthropic", "baseUrl": GATEWAY}
    assert SECRET not in log and GATEWAY not in log


@pytest.mark.asyncio
async def test_a_gateway_sign_in_routes_until_logout_and_a_bare_one_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapter.claude import logout as logout_module

    async def signed_out(settings: RuntimeSettings) -> None:
        return None  # `claude auth logout` cleared the credentials

    monkeypatch.setattr(logout_module, "logout", signed_out)
    env = {LOG_ENV_NAMES: ",".join(NAMES)}
    gateway = {"baseUrl": GATEWAY, "headers": {"x-key": SECRET}}
    bare = {"methodId": "gateway"}
    async with agent_in_process(tmp_path, env=env) as adapter:
        assert await adapter.request("authenticate", bare) == {}
        unrouted = await adapter.request("providers/list", {})
        signed = await adapter.request(
            "authenticate", {"methodId": "gateway-bedrock", "_meta": {"gateway": gateway}}
        )
        assert await adapter.request("authenticate", bare) == {}  # the gateway stays
        routed = await adapter.request("providers/list", {})
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        pushes = [
            m["params"]["authStatus"]
            for m in adapter.incoming()
            if m.get("method") == "_auth/status_update"
        ]
        assert await adapter.request("logout", {}) == {}
        after = await adapter.request("providers/list", {})
        again = await adapter.prompt(session, "again")
    assert signed == {}
    assert unrouted["providers"][0]["current"]["apiType"] == "anthropic"
    assert routed["providers"][0]["current"] == {"apiType": "bedrock", "baseUrl": GATEWAY}
    assert after["providers"][0]["current"] == unrouted["providers"][0]["current"]
    for each in (answer, again):
        assert isinstance(each, acp.schema.PromptResponse)
    # The gateway is the identity told, by its host; no read of the sign-in replaces it.
    assert pushes[-1] == {
        "kind": "gateway",
        "label": "Custom model gateway",
        "detail": "127.0.0.1:9",
    }
    # Bedrock's route (no ANTHROPIC_BASE_URL, the headers as Claude Code reads them), then after
    # the logout a fresh Claude on Claude Code's own routing.
    assert envs(tmp_path) == [
        {"ANTHROPIC_BASE_URL": "", "ANTHROPIC_CUSTOM_HEADERS": f"x-key: {SECRET}"},
        dict.fromkeys(NAMES),
    ]


# A turn that runs until it is cancelled (the scripted Claude hears the interrupt while it waits;
# the seconds only bound a test that never cancels), then one that answers.
HELD = Scenario(
    name="provider_mid_turn",
    description="",
    turns=((Text(text="working"), Sleep(seconds=60)), (Text(text="done"), Result())),
)


@pytest.mark.asyncio
async def test_a_set_during_a_turn_is_answered_at_once_and_the_turn_ends_where_it_began(
    tmp_path: Path,
) -> None:
    env = {LOG_ENV_NAMES: ",".join(NAMES)}
    provider = {"providerId": "main", "apiType": "anthropic", "baseUrl": GATEWAY}
    async with agent_in_process(
        tmp_path, "provider_mid_turn", env=env, scenarios=[HELD]
    ) as adapter:
        session = await adapter.new_session()
        async with anyio.create_task_group() as tg:
            held: list[Any] = []

            async def first() -> None:
                held.append(await adapter.prompt(session, "first"))

            tg.start_soon(first)
            await until(lambda: "working" in adapter.agent_texts(), "the turn to run")
            # Answered while the turn runs: the set does not wait for it.
            assert await adapter.request("providers/set", provider) == {}
            assert held == []
            await adapter.conn.cancel(session_id=session)
        second = await adapter.prompt(session, "second")
    [cancelled] = held
    assert isinstance(cancelled, acp.schema.PromptResponse)
    assert cancelled.stop_reason == "cancelled"
    assert isinstance(second, acp.schema.PromptResponse) and second.stop_reason == "end_turn"
    assert sorted(adapter.answers().values()) == [1, 1]
    routed = {"ANTHROPIC_BASE_URL": GATEWAY, "ANTHROPIC_CUSTOM_HEADERS": ""}
    assert envs(tmp_path) == [dict.fromkeys(NAMES), routed]


# Claude's second turn fails with an error that quotes the gateway's key back.
ECHOED = f"API Error: 401 the gateway refused the key {SECRET}"
ECHO = Scenario(
    name="provider_echo",
    description="",
    turns=(
        (Text(text="hi"), Result()),
        (
            AssistantError(error="authentication_failed", text=ECHOED, api_error_status=401),
            Result(
                is_error=True,
                result=ECHOED,
                api_error_status=401,
                terminal_reason="api_error",
                stop_reason="stop_sequence",
            ),
        ),
    ),
)


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_header_value_claude_quotes_back_is_masked(tmp_path: Path, capable: bool) -> None:
    async with agent_in_process(
        tmp_path, "provider_echo", scenarios=[ECHO], capable=capable
    ) as adapter:
        live = await adapter.new_session()
        await adapter.prompt(live, "hello")
        assert await adapter.request("providers/set", PROVIDER) == {}
        await adapter.prompt(live, "again")  # a fresh Claude, whose error quotes the key
        fresh = await adapter.new_session()  # opened after the set
        await adapter.prompt(fresh, "hello")
        await adapter.prompt(fresh, "again")
        wire = json.dumps([f.message for f in adapter.frames if f.direction == "incoming"])
    assert "the gateway refused the key" in wire
    assert SECRET not in wire


# Claude Code's own words (a hook's `system/informational` line) quote the header's value.
INFORMATIONAL = Scenario(
    name="provider_informational",
    description="",
    turns=(
        (Text(text="hi"), Result()),
        (
            RawFrame(
                frame={
                    "type": "system",
                    "subtype": "informational",
                    "level": "warning",
                    "content": f"hook says header is {SECRET}",
                    "session_id": "x",
                    "uuid": "u1",
                }
            ),
            Text(text="ok"),
            Result(),
        ),
    ),
)


@pytest.mark.asyncio
@pytest.mark.parametrize("when", ["opened-before", "opened-after", "disabled-since"])
async def test_claude_codes_own_words_are_masked_in_a_session_open_before_the_change(
    tmp_path: Path, when: str
) -> None:
    async with agent_in_process(
        tmp_path, "provider_informational", scenarios=[INFORMATIONAL]
    ) as adapter:
        if when == "opened-after":
            assert await adapter.request("providers/set", PROVIDER) == {}
        live = await adapter.new_session()
        await adapter.prompt(live, "hello")
        if when != "opened-after":
            assert await adapter.request("providers/set", PROVIDER) == {}
        if when == "disabled-since":  # a value once private stays private
            assert await adapter.request("providers/disable", {"providerId": "main"}) == {}
        await adapter.prompt(live, "again")  # a fresh Claude, whose hook quotes the header
        wire = json.dumps([f.message for f in adapter.frames if f.direction == "incoming"])
    assert "hook says header is" in wire
    assert SECRET not in wire


class _HeldSession:
    """A session whose marking for a fresh Claude waits until the test lets it go."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.marked = 0

    async def restart_on_next_prompt(self, private: tuple[str, ...] | None = None) -> None:
        await self.release.wait()
        self.marked += 1


@pytest.mark.asyncio
async def test_what_opens_a_session_or_prompts_waits_while_a_change_is_applied() -> None:
    settings = RuntimeSettings()
    held = _HeldSession()
    requests = ProviderRequests(settings=settings, sessions={"s": held})  # type: ignore[dict-item]
    order: list[str] = []
    provider = {"providerId": "main", "apiType": "anthropic", "baseUrl": GATEWAY}

    async def change() -> None:
        await requests.answer("providers/set", provider)
        order.append("set")

    async def waiter() -> None:
        await requests.settled()
        order.append("waiter")

    async with anyio.create_task_group() as tg:
        tg.start_soon(change)
        await anyio.wait_all_tasks_blocked()
        tg.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()
        assert order == []  # the change is under way: the waiter waits
        held.release.set()
    assert sorted(order) == ["set", "waiter"]
    assert held.marked == 1 and settings.route.routing()["ANTHROPIC_BASE_URL"] == GATEWAY
    await requests.settled()  # nothing under way: at once


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "opening", ["session/new", "session/load", "session/resume", "session/fork"]
)
async def test_a_prompt_and_an_opening_wait_for_a_change_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opening: str
) -> None:
    from adapter.session.session import Session

    # The change is held where it marks the live session for a fresh Claude.
    holding, release = asyncio.Event(), asyncio.Event()
    mark = Session.restart_on_next_prompt

    async def held(session: Session, private: tuple[str, ...] | None = None) -> None:
        holding.set()
        await release.wait()
        await mark(session, private)

    # Who found a change under way when they asked.
    waited: list[bool] = []
    settled = ProviderRequests.settled

    async def noted(requests: ProviderRequests) -> None:
        waited.append(requests._applying is not None)
        await settled(requests)

    monkeypatch.setattr(Session, "restart_on_next_prompt", held)
    monkeypatch.setattr(ProviderRequests, "settled", noted)
    env = {LOG_ENV_NAMES: ",".join(NAMES)}
    provider = {"providerId": "main", "apiType": "anthropic", "baseUrl": GATEWAY}
    async with agent_in_process(tmp_path, env=env) as adapter:
        live = await adapter.new_session()
        await adapter.prompt(live, "hello")
        change = asyncio.ensure_future(adapter.request("providers/set", provider))
        await asyncio.wait_for(holding.wait(), WAIT)
        prompt = asyncio.ensure_future(adapter.prompt(live, "again"))
        params = {"cwd": str(adapter.workdir), "mcpServers": []}
        if opening != "session/new":
            params["sessionId"] = live
        opened = asyncio.ensure_future(adapter.request(opening, params))
        await until(lambda: waited.count(True) == 2, f"the prompt and {opening} to wait")
        assert not (change.done() or prompt.done() or opened.done())
        assert len(envs(tmp_path)) == 1  # no Claude started meanwhile
        release.set()
        assert await change == {}
        answer, fresh = await prompt, await opened
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"
    assert isinstance(fresh, dict) and not isinstance(fresh, acp.RequestError)
    # The prompt went to a fresh Claude on the new route: it waited until its session was
    # marked. Every Claude the opening started, started on it too.
    routed = {"ANTHROPIC_BASE_URL": GATEWAY, "ANTHROPIC_CUSTOM_HEADERS": ""}
    first, *later = envs(tmp_path)
    assert first == dict.fromkeys(NAMES) and later and later == [routed] * len(later)


class _Opened(_HeldSession):
    """A session just opened whose Claude started with `routing` (None: no provider)."""

    def __init__(self, routing: dict[str, str] | None) -> None:
        super().__init__()
        self.release.set()
        self.claude = type("Side", (), {"runtime": type("Runtime", (), {"routing": routing})()})()
        self.private: tuple[str, ...] | None = None

    async def restart_on_next_prompt(self, private: tuple[str, ...] | None = None) -> None:
        await super().restart_on_next_prompt(private)
        self.private = private


@pytest.mark.asyncio
async def test_a_session_whose_claude_started_before_a_change_moves_at_its_next_prompt() -> None:
    settings = RuntimeSettings()
    requests = ProviderRequests(settings=settings, sessions={})
    await requests.answer("providers/set", PROVIDER)
    stale, current = _Opened(None), _Opened(settings.route.routing())
    await requests.opened(stale)  # type: ignore[arg-type]
    await requests.opened(current)  # type: ignore[arg-type]
    assert (stale.marked, stale.private) == (1, (SECRET,))
    assert current.marked == 0


@pytest.mark.asyncio
async def test_a_header_value_set_later_is_masked_in_the_log_for_good(tmp_path: Path) -> None:
    provider = {
        "providerId": "main",
        "apiType": "anthropic",
        "baseUrl": GATEWAY,
        "headers": {"authorization": f"Bearer {SECRET}", "x-api-key": "kq7Vw2-made-up-key"},
    }
    # Claude Code's stderr, as the runtime logs it at DEBUG, quoting the headers back.
    claude = logging.getLogger("adapter.claude.claude_runtime")
    quoted = f"claude: sent x-api-key kq7Vw2-made-up-key, token {SECRET}"
    before = logging.getLogRecordFactory()
    try:
        async with agent_in_process(tmp_path) as adapter:
            # As serving installs it: the log masks what its settings mask, read at each record.
            install_log_masking(adapter.settings.masked)
            claude.debug("claude: before any provider")
            assert await adapter.request("providers/set", provider) == {}
            claude.debug(quoted)
            assert await adapter.request("providers/disable", {"providerId": "main"}) == {}
            claude.debug(quoted)  # a value once private stays private
            log = adapter.stderr()
    finally:
        install_log_masking(lambda: ())
        logging.setLogRecordFactory(before)
    assert "claude: before any provider" in log
    assert log.count("claude: sent x-api-key ***, token ***") == 2
    assert SECRET not in log and "kq7Vw2-made-up-key" not in log


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ["provider", "gateway"])
async def test_a_logout_the_cli_fails_still_ends_the_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    from adapter.claude import logout as logout_module

    async def failed(settings: RuntimeSettings) -> None:
        raise acp.RequestError(-32603, "claude auth logout failed: it exited with status 1")

    monkeypatch.setattr(logout_module, "logout", failed)
    env = {LOG_ENV_NAMES: ",".join(NAMES)}
    async with agent_in_process(tmp_path, env=env) as adapter:
        if route == "provider":
            provider = {"providerId": "main", "apiType": "anthropic", "baseUrl": GATEWAY}
            assert await adapter.request("providers/set", provider) == {}
        else:
            gateway = {"gateway": {"baseUrl": GATEWAY}}
            signed = await adapter.request(
                "authenticate", {"methodId": "gateway", "_meta": gateway}
            )
            assert signed == {}
        live = await adapter.new_session()
        await adapter.prompt(live, "hello")
        refused = await adapter.request("logout", {})
        listed = await adapter.request("providers/list", {})
        answer = await adapter.prompt(live, "again")
    assert isinstance(refused, acp.RequestError) and refused.code == -32603
    assert listed["providers"][0]["current"]["baseUrl"] == "https://api.anthropic.com"
    assert isinstance(answer, acp.schema.PromptResponse)
    # The routed Claude, then a fresh one, unrouted.
    routed = {"ANTHROPIC_BASE_URL": GATEWAY, "ANTHROPIC_CUSTOM_HEADERS": ""}
    assert envs(tmp_path) == [routed, dict.fromkeys(NAMES)]


@pytest.mark.asyncio
async def test_a_clients_settings_file_is_read_and_routed_in_a_private_copy(
    tmp_path: Path,
) -> None:
    """docs/decisions.md#provider-settings-file: the file's settings and the route go to
    Claude Code in a copy only this user reads, off the command line; gone with its Claude."""
    mine = {
        "model": "opus",
        "env": {"MY_TOKEN": "file-made-up-token-42", "ANTHROPIC_BASE_URL": "x"},
    }
    async with agent_in_process(tmp_path) as adapter:
        (adapter.workdir / "mine.json").write_text(json.dumps(mine), encoding="utf-8")
        assert await adapter.request("providers/set", PROVIDER) == {}
        await _new_session_with_settings(adapter, "mine.json")
        [argv] = _argvs(tmp_path)
        copy = Path(_settings_flag(argv))
        assert copy.is_absolute() and copy.stat().st_mode & 0o777 == 0o600
        tier = json.loads(copy.read_text(encoding="utf-8"))
    assert (tier["model"], tier["apiKeyHelper"]) == ("opus", "")
    assert tier["env"]["MY_TOKEN"] == "file-made-up-token-42"
    assert tier["env"]["ANTHROPIC_BASE_URL"] == GATEWAY  # the route over the file's own
    # The route's headers over any of the user's, the project's or the file's own.
    assert tier["env"]["ANTHROPIC_CUSTOM_HEADERS"] == f"x-key: {SECRET}"
    # Neither the file's settings nor the header's value on the command line; the copy is gone
    # once its Claude is.
    assert "file-made-up-token-42" not in json.dumps(argv) and SECRET not in json.dumps(argv)
    assert not copy.exists()


_UNUSABLE = pytest.mark.parametrize(
    ("content", "why"),
    [(None, "is missing"), ('{"env": {"K": "not-json-file-text', "is not JSON")],
    ids=["missing", "bad-json"],
)


@pytest.mark.asyncio
@_UNUSABLE
async def test_a_routed_claude_whose_settings_file_cannot_be_used_is_refused(
    tmp_path: Path, content: str | None, why: str
) -> None:
    """docs/decisions.md#provider-settings-file: passed to Claude Code as named, the file (or a
    user's or project's settings) could route elsewhere while the route's headers ride in the
    environment; so no Claude starts, and the refusal names the kind of problem, never the path,
    the file's text or the route."""
    async with agent_in_process(tmp_path) as adapter:
        if content is not None:
            (adapter.workdir / "mine.json").write_text(content, encoding="utf-8")
        assert await adapter.request("providers/set", PROVIDER) == {}
        refused = await _new_session_with_settings(adapter, "mine.json")
        log = adapter.stderr()
    assert _argvs(tmp_path) == []  # no Claude started
    assert isinstance(refused, acp.RequestError) and refused.code == -32603
    said = f"{refused} {json.dumps(refused.data)}"
    assert f"Claude Code was not started: the client's settings file {why};" in said
    for private in ("mine.json", "not-json-file-text", SECRET, GATEWAY, str(tmp_path)):
        assert private not in said
    assert "not-json-file-text" not in log and SECRET not in log


@pytest.mark.asyncio
@_UNUSABLE
async def test_without_a_route_a_settings_file_is_passed_to_claude_code_as_named(
    tmp_path: Path, content: str | None, why: str
) -> None:
    """docs/decisions.md#provider-settings-file: with no provider the adapter reads nothing of
    the file; Claude Code gets the path as the client gave it and judges it as it does."""
    async with agent_in_process(tmp_path) as adapter:
        if content is not None:
            (adapter.workdir / "mine.json").write_text(content, encoding="utf-8")
        opened = await _new_session_with_settings(adapter, "mine.json")
        log = adapter.stderr()
    assert isinstance(opened, dict) and opened.get("sessionId")
    [argv] = _argvs(tmp_path)
    assert _settings_flag(argv) == "mine.json"
    assert why not in log and "not-json-file-text" not in log


def _no_private_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary folder refuses the private settings file (and only that file:
    `adapter.claude.settings_copy` makes it with `tempfile.mkstemp`)."""
    made = tempfile.mkstemp

    def refused(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if kwargs.get("prefix") == "claude-acp-settings-":
            raise PermissionError(13, "Permission denied")
        return made(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused)


@pytest.mark.asyncio
async def test_a_settings_file_whose_private_copy_fails_starts_no_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/decisions.md#provider-settings-file: started with the client's file as it is, its
    `env` (or a user's or project's) would outrank the route, and the route's headers could go
    to another URL; its settings on the command line would show them to every local user. So the
    session is refused, with words that name neither the file nor anything of it or the route."""
    _no_private_file(monkeypatch)
    mine = {"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8/elsewhere", "MY": "file-value-42"}}
    async with agent_in_process(tmp_path) as adapter:
        (adapter.workdir / "mine.json").write_text(json.dumps(mine), encoding="utf-8")
        assert await adapter.request("providers/set", PROVIDER) == {}
        refused = await _new_session_with_settings(adapter, "mine.json")
        log = adapter.stderr()
    assert _argvs(tmp_path) == []  # no Claude started
    assert isinstance(refused, acp.RequestError) and refused.code == -32603
    said = f"{refused} {json.dumps(refused.data)}"
    assert "settings file could not be written" in said and "temporary folder" in said
    for private in ("mine.json", "file-value-42", "elsewhere", SECRET, GATEWAY, str(tmp_path)):
        assert private not in said
    assert "could not be written (PermissionError)" in log
    assert "file-value-42" not in log and SECRET not in log


@pytest.mark.asyncio
async def test_a_route_without_its_private_file_goes_on_the_command_line_without_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/decisions.md#provider-requests: the tier on Claude Code's command line pins the
    route's host and path; its headers, the URL's user part and query stay in the environment."""
    _no_private_file(monkeypatch)
    provider = {**PROVIDER, "baseUrl": CREDENTIALED}
    env = {LOG_ENV_NAMES: ",".join(NAMES)}
    async with agent_in_process(tmp_path, env=env) as adapter:
        assert await adapter.request("providers/set", provider) == {}
        await _new_session_with_settings(adapter, {"model": "opus"})
    [argv] = _argvs(tmp_path)
    tier = json.loads(_settings_flag(argv))
    assert tier["model"] == "opus"
    assert tier["env"]["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/v1"
    for secret in (PASSWORD, QUERY_KEY, SECRET):
        assert secret not in json.dumps(argv)
    [seen] = envs(tmp_path)
    assert seen["ANTHROPIC_BASE_URL"] == CREDENTIALED
    assert seen["ANTHROPIC_CUSTOM_HEADERS"] == f"x-key: {SECRET}"


PASSWORD, QUERY_KEY = "pw-made-up-0123456789", "q-made-up-0123456789"
CREDENTIALED = f"http://someone:{PASSWORD}@127.0.0.1:9/v1?key={QUERY_KEY}&region=eu"
# Claude Code's own words quote the base URL, credentials and all.
QUOTED_URL = Scenario(
    name="provider_quoted_url",
    description="",
    turns=(
        (
            RawFrame(
                frame={
                    "type": "system",
                    "subtype": "informational",
                    "level": "warning",
                    "content": f"cannot reach {CREDENTIALED}",
                    "session_id": "x",
                    "uuid": "u1",
                }
            ),
            Text(text="ok"),
            Result(),
        ),
    ),
)


@pytest.mark.asyncio
async def test_a_base_urls_credentials_are_shown_nowhere(tmp_path: Path) -> None:
    provider = {"providerId": "main", "apiType": "anthropic", "baseUrl": CREDENTIALED}
    async with agent_in_process(tmp_path, "provider_quoted_url", scenarios=[QUOTED_URL]) as adapter:
        assert await adapter.request("providers/set", provider) == {}
        listed = await adapter.request("providers/list", {})
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
        wire = json.dumps([f.message for f in adapter.frames if f.direction == "incoming"])
        [argv] = _argvs(tmp_path)
    shown = "http://***@127.0.0.1:9/v1?key=***&region=***"
    assert listed["providers"][0]["current"] == {"apiType": "anthropic", "baseUrl": shown}
    assert "cannot reach" in wire
    for secret in (PASSWORD, QUERY_KEY):
        assert secret not in wire and secret not in json.dumps(argv)
