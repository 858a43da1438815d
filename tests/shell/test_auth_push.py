"""`_auth/status_update` as the shell reads and sends it (`adapter/agent/auth_push.py`): a fake
`claude auth status --json` answers from a file the test rewrites, and the pushes are what a
link would send; the whole agent in process tells a new session's account once, after the
answer to `initialize` advertised `authStatus`."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapter.agent import auth_push
from adapter.agent.auth_push import AuthPush
from adapter.claude.runtime_settings import RuntimeSettings
from tests.support.shell_harness import WAIT, agent_in_process, session_with_fakes

pytestmark = pytest.mark.anyio

# Prints the JSON in `answer.json` beside it (exit status 1 when it says signed out); fails
# without a word when there is none.
FAKE_CLI = """\
import json, pathlib, sys
answer = pathlib.Path(__file__).with_name("answer.json")
if sys.argv[1:] != ["auth", "status", "--json"] or not answer.exists():
    sys.exit(2)
text = answer.read_text()
print(text)
sys.exit(0 if json.loads(text).get("loggedIn") else 1)
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Link:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def notify(self, method: str, params: dict[str, Any], session_id: str) -> bool:
        self.sent.append((method, params))
        return True


def _cli(tmp_path: Path) -> str:
    path = tmp_path / "claude"
    path.write_text(f"#!{sys.executable}\n{FAKE_CLI}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _answer(tmp_path: Path, **answer: Any) -> None:
    (tmp_path / "answer.json").write_text(json.dumps(answer), encoding="utf-8")


def _push(tmp_path: Path, executable: str | None = None) -> tuple[AuthPush, Link]:
    link = Link()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    settings = RuntimeSettings(executable=executable or _cli(tmp_path), env=env)
    return AuthPush(link, settings), link  # type: ignore[arg-type]


async def _probed(push: AuthPush, cwd: str) -> None:
    push.probe(cwd)
    task = vars(push)["_probe"]
    assert task is not None
    await task


async def test_a_probe_pushes_the_sign_in_once_and_again_when_it_changes(tmp_path: Path) -> None:
    push, link = _push(tmp_path)
    _answer(tmp_path, loggedIn=True, subscriptionType="max", email="ada@example.com")
    await _probed(push, str(tmp_path))
    assert link.sent == [
        (
            "_auth/status_update",
            {
                "authStatus": {
                    "kind": "account",
                    "label": "Claude Max",
                    "account": {"plan": "max", "email": "ada@example.com"},
                }
            },
        )
    ]
    await _probed(push, str(tmp_path))
    assert len(link.sent) == 1  # nothing new: nothing sent
    # Signed out in a terminal: the next read says so.
    _answer(tmp_path, loggedIn=False)
    await _probed(push, str(tmp_path))
    assert link.sent[-1][1] == {"authStatus": {"kind": "none", "label": "Not logged in"}}


async def test_a_cli_that_cannot_say_pushes_nothing(tmp_path: Path) -> None:
    push, link = _push(tmp_path)
    await _probed(push, str(tmp_path))  # no answer file: exits 2, prints nothing
    missing, quiet = _push(tmp_path, executable=str(tmp_path / "no-such-claude"))
    await _probed(missing, str(tmp_path))
    assert link.sent == [] and quiet.sent == []


async def test_after_logout_a_read_that_cannot_say_is_not_logged_in(tmp_path: Path) -> None:
    push, link = _push(tmp_path)
    _answer(tmp_path, loggedIn=True, subscriptionType="pro")
    await _probed(push, str(tmp_path))
    (tmp_path / "answer.json").unlink()
    await push.signed_out()
    assert link.sent[-1][1] == {"authStatus": {"kind": "none", "label": "Not logged in"}}
    # An API key in the environment survives the sign-out, and is said.
    _answer(tmp_path, loggedIn=False, apiKeySource="ANTHROPIC_API_KEY")
    await push.signed_out()
    assert link.sent[-1][1]["authStatus"]["kind"] == "api_key"


async def test_the_project_s_key_helper_is_read_for_air_s_gateway(tmp_path: Path) -> None:
    push, link = _push(tmp_path)
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    helper = {"apiKeyHelper": "/opt/air/central proxy start --print"}
    (project / ".claude" / "settings.json").write_text(json.dumps(helper), encoding="utf-8")
    _answer(tmp_path, loggedIn=False, apiKeySource="apiKeyHelper")
    await _probed(push, str(project))
    assert link.sent[-1][1] == {"authStatus": {"kind": "gateway", "label": "JetBrains Air Gateway"}}


async def test_the_agent_advertises_it_and_tells_a_session_s_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told = asyncio.Event()
    account = AuthPush.account

    async def noted(self: AuthPush, found: Any, epoch: int) -> None:
        await account(self, found, epoch)
        told.set()

    monkeypatch.setattr(auth_push.AuthPush, "account", noted)
    async with agent_in_process(tmp_path) as agent:
        answer = next(f.message["result"] for f in agent.frames if "result" in f.message)
        assert answer["agentCapabilities"]["_meta"]["authStatus"] == {}
        await agent.new_session()
        await asyncio.wait_for(told.wait(), WAIT)
        pushes = [
            f.message for f in agent.frames if f.message.get("method") == "_auth/status_update"
        ]
    # The scripted Claude's account (`adapter.scripted_claude.handshake.ACCOUNT`); its own
    # `claude auth status` is not run in process, so this is the only read.
    assert pushes == [
        {
            "jsonrpc": "2.0",
            "method": "_auth/status_update",
            "params": {
                "authStatus": {
                    "kind": "account",
                    "label": "Claude Pro",
                    "account": {
                        "plan": "pro",
                        "email": "scripted@example.invalid",
                        "organization": "Scripted Claude",
                    },
                }
            },
        }
    ]


# Tells the test its pid over TCP (port in argv[0]'s sibling `port`), then never answers.
HANGING_CLI = """\
import os, pathlib, socket, time
port = int(pathlib.Path(__file__).with_name("port").read_text())
link = socket.create_connection(("127.0.0.1", port))
link.sendall(f"{os.getpid()}\\n".encode())
time.sleep(600)
"""


class Hanging:
    """A `claude` that hangs, each run telling its pid as it starts."""

    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "hanging-claude"
        self.path.write_text(f"#!{sys.executable}\n{HANGING_CLI}", encoding="utf-8")
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)
        self.pids: asyncio.Queue[int] = asyncio.Queue()
        self._links: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> Hanging:
        self._server = await asyncio.start_server(self._told, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.path.with_name("port").write_text(str(port), encoding="utf-8")
        return self

    async def __aexit__(self, *exc: object) -> None:
        for writer in self._links:
            writer.close()
        self._server.close()

    async def _told(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._links.append(writer)
        await self.pids.put(int(await reader.readline()))

    async def started(self) -> int:
        return await asyncio.wait_for(self.pids.get(), WAIT)


def _gone(pid: int) -> bool:
    """`pid` killed and reaped: a child still running, or a zombie never waited for, is
    still there."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_close_kills_and_reaps_every_read_under_way_and_sends_nothing(
    tmp_path: Path,
) -> None:
    """The agent ending mid-read, a prompt's read and logout's at once: both CLIs are killed
    and waited for (asyncio would warn of a child it still watches, on the stderr a client
    shows), and no push follows, not even logout's "not logged in"."""
    async with Hanging(tmp_path) as cli:
        push, link = _push(tmp_path, executable=str(cli.path))
        push.probe(str(tmp_path))
        probed = await cli.started()
        logout = asyncio.create_task(push.signed_out())
        signed_out = await cli.started()
        await push.close()
        assert _gone(probed) and _gone(signed_out)
        await asyncio.wait_for(logout, WAIT)
        assert link.sent == []


async def test_after_close_nothing_starts_and_nothing_is_sent(tmp_path: Path) -> None:
    push, link = _push(tmp_path)
    _answer(tmp_path, loggedIn=True, subscriptionType="max")
    await push.close()
    push.probe(str(tmp_path))  # a prompt arriving as the agent ends
    push.opened({"subscriptionType": "max"}, str(tmp_path), push.epoch)
    assert vars(push)["_tasks"] == set()
    await push.signed_out()
    assert link.sent == []


async def test_a_cancelled_read_kills_and_reaps_its_cli(tmp_path: Path) -> None:
    async with Hanging(tmp_path) as cli:
        push, link = _push(tmp_path, executable=str(cli.path))
        push.probe(str(tmp_path))
        pid = await cli.started()
        task = vars(push)["_probe"]
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert _gone(pid) and link.sent == []


async def test_a_cli_that_hangs_is_logged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(auth_push, "PROBE_TIMEOUT_SECONDS", 0.01)  # it never answers anyway
    async with Hanging(tmp_path) as cli:
        push, link = _push(tmp_path, executable=str(cli.path))
        with caplog.at_level(logging.WARNING, logger=auth_push.__name__):
            for _ in range(2):  # killed at the timeout, whether it has started to tell or not
                await _probed(push, str(tmp_path))
    told = [r for r in caplog.records if "did not answer" in r.getMessage()]
    assert len(told) == 1 and link.sent == []


class FailingLink(Link):
    async def notify(self, method: str, params: dict[str, Any], session_id: str) -> bool:
        raise ConnectionResetError("the client went away")


async def test_a_background_push_that_fails_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _answer(tmp_path, loggedIn=True, subscriptionType="max", email="ada@example.com")
    push, _ = _push(tmp_path)
    vars(push)["_link"] = FailingLink()
    await _probed(push, str(tmp_path))  # the task ended without an error to retrieve
    assert "a background read or push failed" in caplog.text


async def test_a_cli_that_cannot_be_started_for_bad_values_pushes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Signed in: a CLI that started would say so, and that would be pushed.
    _answer(tmp_path, loggedIn=True, subscriptionType="max")
    link = Link()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config"), "BROKEN": "a\0b"}
    settings = RuntimeSettings(executable=_cli(tmp_path), env=env)
    push = AuthPush(link, settings)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger=auth_push.__name__):
        await _probed(push, str(tmp_path))
    assert link.sent == []
    # Refused as a start that failed, not as a read that broke.
    assert "claude auth status could not start: ValueError" in caplog.text
    assert "a background read or push failed" not in caplog.text


async def test_every_claude_start_tells_its_account(tmp_path: Path) -> None:
    """A restart (after `authenticate` or `logout`) names the account Claude now uses: it is
    told, not only the one the session opened with, as the reference tells it at every query
    it creates."""
    told: list[tuple[dict[str, Any] | None, int]] = []
    account = {"email": "grace@example.com", "organization": "Navy", "subscriptionType": "max"}
    async with session_with_fakes() as (session, _, runtime, _):
        session.controls.on_account = lambda account, at: told.append((account, at))
        session.controls.auth_epoch = lambda: 7
        session.controls.starting()
        session.controls.auth_epoch = lambda: 8  # a sign-out as it starts: the epoch it began at

        async def server_info() -> dict[str, Any]:
            return {"account": account}

        vars(runtime)["server_info"] = server_info
        await session.controls.adopt(runtime)  # type: ignore[arg-type]
    assert told == [(account, 7)]


def _pushes(agent: Any) -> list[dict[str, Any]]:
    return [
        f.message["params"]["authStatus"]
        for f in agent.frames
        if f.message.get("method") == "_auth/status_update"
    ]


class HeldStart:
    """Holds a session's Claude start, once `hold` is set, at the account it named (as if it
    read the credentials then), until `release`; `told` each time an account was read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from adapter.claude import logout as logout_module
        from adapter.controls.session_controls import SessionControls

        self.hold, self.starting, self.release = True, asyncio.Event(), asyncio.Event()
        self.told = asyncio.Event()
        adopt, account = SessionControls.adopt, AuthPush.account

        async def held(controls: SessionControls, runtime: Any) -> None:
            if self.hold:
                self.starting.set()
                await self.release.wait()
            await adopt(controls, runtime)

        async def noted(push: AuthPush, found: Any, epoch: int) -> None:
            await account(push, found, epoch)
            self.told.set()

        async def signed_out(settings: RuntimeSettings) -> None:
            return None  # `claude auth logout` cleared the credentials

        monkeypatch.setattr(logout_module, "logout", signed_out)
        monkeypatch.setattr(SessionControls, "adopt", held)
        monkeypatch.setattr(auth_push.AuthPush, "account", noted)


async def test_an_account_named_by_a_claude_begun_before_logout_is_not_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session opening while the user signs out: its Claude read the old credentials as it
    started, so the account it names once `logout` is over is not told (the client would show
    the user signed in again); `logout`'s own "not logged in" stands, as in the reference (a
    session's account counts only when no sign-in or sign-out came while its query started)."""
    start = HeldStart(monkeypatch)
    async with agent_in_process(tmp_path) as agent:
        opening = asyncio.create_task(agent.new_session())
        await asyncio.wait_for(start.starting.wait(), WAIT)
        assert await agent.request("logout", {}) == {}
        start.release.set()
        await asyncio.wait_for(opening, WAIT)
        await asyncio.wait_for(start.told.wait(), WAIT)
        pushes = _pushes(agent)
    assert pushes == [{"kind": "none", "label": "Not logged in"}]


async def test_a_restart_begun_before_logout_does_not_tell_its_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for a session's later Claude. A prompt after a sign-out starts a fresh one,
    which names its account: told (Claude Code found a sign-in). Then a sign-out while the
    next fresh one starts: the account that one names is not told."""
    start = HeldStart(monkeypatch)
    start.hold = False
    async with agent_in_process(tmp_path) as agent:
        session = await agent.new_session()
        for held in (False, True):
            await asyncio.wait_for(start.told.wait(), WAIT)
            assert await agent.request("logout", {}) == {}
            start.hold, start.told = held, asyncio.Event()
            prompt = asyncio.create_task(agent.prompt(session, "hello"))
            if held:
                await asyncio.wait_for(start.starting.wait(), WAIT)
                assert await agent.request("logout", {}) == {}
                start.release.set()
            await asyncio.wait_for(prompt, WAIT)
        await asyncio.wait_for(start.told.wait(), WAIT)
        pushes = [push["kind"] for push in _pushes(agent)]
    assert pushes == ["account", "none", "account", "none"]


# Tells the test its folder over TCP (port in argv[0]'s sibling `port`), then prints the answer
# the test sends back, as `claude auth status --json` would.
HELD_CLI = """\
import json, os, pathlib, socket, sys
port = int(pathlib.Path(__file__).with_name("port").read_text())
link = socket.create_connection(("127.0.0.1", port))
link.sendall(f"{os.getcwd()}\\n".encode())
text = link.makefile().readline()
print(text)
sys.exit(0 if json.loads(text).get("loggedIn") else 1)
"""


class Held:
    """A `claude` whose every run waits for the test's answer; `started` is a run's folder and
    the way to answer it."""

    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "held-claude"
        self.path.write_text(f"#!{sys.executable}\n{HELD_CLI}", encoding="utf-8")
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)
        self.runs: asyncio.Queue[tuple[str, asyncio.StreamWriter]] = asyncio.Queue()

    async def __aenter__(self) -> Held:
        self._server = await asyncio.start_server(self._told, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.path.with_name("port").write_text(str(port), encoding="utf-8")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()

    async def _told(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self.runs.put(((await reader.readline()).decode().strip(), writer))

    async def started(self) -> tuple[str, asyncio.StreamWriter]:
        return await asyncio.wait_for(self.runs.get(), WAIT)


async def test_a_read_begun_in_another_sessions_folder_is_dropped(tmp_path: Path) -> None:
    """As the reference's `useAuthStatusSettings`: a prompt in a folder whose settings name a
    key helper, while a read begun in another folder is under way, reads again there rather
    than join it, and the older read's answer is never told (it describes another context)."""
    async with Held(tmp_path) as cli:
        push, link = _push(tmp_path, executable=str(cli.path))
        plain, helped = tmp_path / "plain", tmp_path / "helped"
        plain.mkdir()
        (helped / ".claude").mkdir(parents=True)
        helper = {"apiKeyHelper": "/opt/keys/print-key"}
        (helped / ".claude" / "settings.json").write_text(json.dumps(helper), encoding="utf-8")
        push.probe(str(plain))
        first = vars(push)["_probe"]
        folder, answer = await cli.started()
        assert folder == str(plain.resolve())
        push.probe(str(helped))  # a prompt in the other session
        answer.write(json.dumps({"loggedIn": True, "subscriptionType": "max"}).encode() + b"\n")
        await asyncio.wait_for(first, WAIT)
        assert link.sent == []  # the plain folder's subscription: another context
        folder, answer = await cli.started()
        assert folder == str(helped.resolve())
        answer.write(
            json.dumps({"loggedIn": False, "apiKeySource": "apiKeyHelper"}).encode() + b"\n"
        )
        await asyncio.wait_for(vars(push)["_probe"], WAIT)
        assert link.sent == [
            (
                "_auth/status_update",
                {
                    "authStatus": {
                        "kind": "api_key",
                        "label": "Anthropic API key",
                        "detail": "API key helper",
                    }
                },
            )
        ]


async def test_a_read_maps_its_answer_with_the_key_helper_named_when_it_began(
    tmp_path: Path,
) -> None:
    """The settings are read once per read: a settings file changed while the CLI answers does
    not change what that answer is taken to say (both halves of a read agree)."""
    async with Held(tmp_path) as cli:
        push, link = _push(tmp_path, executable=str(cli.path))
        project = tmp_path / "project"
        (project / ".claude").mkdir(parents=True)
        settings = project / ".claude" / "settings.json"
        gateway = {"apiKeyHelper": "/opt/air/central proxy start --print"}
        settings.write_text(json.dumps(gateway), encoding="utf-8")
        push.probe(str(project))
        _, answer = await cli.started()
        settings.write_text(json.dumps({"apiKeyHelper": "/opt/keys/print-key"}), "utf-8")
        answer.write(
            json.dumps({"loggedIn": False, "apiKeySource": "apiKeyHelper"}).encode() + b"\n"
        )
        await asyncio.wait_for(vars(push)["_probe"], WAIT)
    assert link.sent == [
        (
            "_auth/status_update",
            {"authStatus": {"kind": "gateway", "label": "JetBrains Air Gateway"}},
        )
    ]


async def test_a_session_in_another_folder_reads_there_at_a_quiet_moment(tmp_path: Path) -> None:
    """A session's account names no folder or key helper: one opened in another folder than
    the reads so far makes them no longer count, and a read there is begun at the next quiet
    moment (never while its Claude starts), as the reference reads in a new context."""
    push, link = _push(tmp_path)
    quiet: list[Callable[[], None]] = []
    push.quietly = quiet.append
    _answer(tmp_path, loggedIn=True, subscriptionType="max")
    await _probed(push, str(tmp_path))
    assert link.sent[-1][1]["authStatus"]["label"] == "Claude Max"
    other = tmp_path / "other"
    other.mkdir()
    begun = push.epoch
    await push.account({"apiProvider": "firstParty"}, begun)  # no identity signal
    assert quiet == [] and push.epoch == begun  # the same folder: nothing moves
    push.opened({"apiProvider": "firstParty"}, str(other), begun)
    await asyncio.wait_for(asyncio.gather(*vars(push)["_tasks"]), WAIT)
    assert push.epoch == begun + 1 and len(quiet) == 1
    _answer(tmp_path, loggedIn=False)
    quiet[0]()
    await asyncio.wait_for(vars(push)["_probe"], WAIT)
    assert link.sent[-1][1] == {"authStatus": {"kind": "none", "label": "Not logged in"}}
