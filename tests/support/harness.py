"""End-to-end harness: the adapter as a real subprocess over real stdio, the `acp` SDK's client
on this side, and the scripted Claude (a test double of Claude's process) on the far side.

Every JSON-RPC frame is recorded in order from the client's point of view, so tests can assert
carriers (which frame a record rode on), order and exactly-one-answer rules. When the adapter
closes, the `claude-acp conformance` rules run over those frames and any violation fails the
test; a test that provokes off-spec output on purpose says why with `off_spec=`. The adapter's
stderr goes to a file (an unread pipe would stall it) that tests may read.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import acp
from acp.connection import StreamEvent
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    PromptResponse,
    RequestPermissionResponse,
)

from adapter.conformance.checks import Checker
from adapter.conformance.client_view import ClientTranscript
from adapter.conformance.log import Direction, LogFrame
from adapter.conformance.report import describe_violation
from adapter.scripted_claude import SCENARIO_ENV, write_launcher
from adapter.scripted_claude.handshake import LOG_ENV
from fsm import AUTH_REQUIRED_MESSAGE

__all__ = [
    "NATIVE",
    "OPT_IN",
    "Adapter",
    "AdapterPool",
    "Frame",
    "conformance_violations",
    "record_in",
    "script_launcher",
    "spawn_adapter",
    "until",
]

OPT_IN: dict[str, Any] = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}
# An AIR client that also takes native subagent sessions.
NATIVE: dict[str, Any] = {
    "jetbrains": {
        "air": {"version": 1, "capabilities": ["sessionFailure", "nativeSubagentSessions"]}
    }
}
ROOT = Path(__file__).resolve().parents[2]
# Generous: a bound on a hang, never a speed assertion.
TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class Frame:
    direction: str  # "outgoing" (client to agent) or "incoming" (agent to client)
    message: dict[str, Any]


@dataclass(slots=True)
class RecordingClient:
    """The client side. `permission` is the option id to pick, or None to refuse."""

    permission: str | None = "allow"
    permission_requests: list[Any] = field(default_factory=list)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        if self.permission is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.permission)
        )


@dataclass(slots=True)
class Adapter:
    conn: acp.ClientSideConnection
    process: asyncio.subprocess.Process
    client: RecordingClient
    frames: list[Frame]
    stderr_path: Path
    workdir: Path
    config_dir: Path
    # Where this test's part of the stderr file begins (an adapter shared by several tests).
    stderr_offset: int = 0

    async def new_session(self, cwd: Path | None = None) -> str:
        response = await asyncio.wait_for(
            self.conn.new_session(cwd=str(cwd or self.workdir), mcp_servers=[]), TIMEOUT
        )
        return str(response.session_id)

    async def prompt(self, session_id: str, text: str) -> PromptResponse | acp.RequestError:
        """One prompt's answer: the response, or the JSON-RPC error it was rejected with."""
        try:
            return await asyncio.wait_for(
                self.conn.prompt(session_id=session_id, prompt=[acp.text_block(text)]), TIMEOUT
            )
        except acp.RequestError as exc:
            return exc

    def incoming(self) -> list[dict[str, Any]]:
        return [f.message for f in self.frames if f.direction == "incoming"]

    def updates(self, kind: str | None = None) -> list[dict[str, Any]]:
        found = []
        for message in self.incoming():
            if message.get("method") == "session/update":
                update = message["params"]["update"]
                if kind is None or update.get("sessionUpdate") == kind:
                    found.append(update)
        return found

    def records(self) -> list[tuple[str, dict[str, Any]]]:
        """Every sessionFailure record the client received, in order, with its carrier:
        "session_info_update" or "prompt_response"."""
        found: list[tuple[str, dict[str, Any]]] = []
        for message in self.incoming():
            if message.get("method") == "session/update":
                meta = message["params"]["update"].get("_meta")
                carrier = "session_info_update"
            elif "result" in message and isinstance(message["result"], dict):
                meta = message["result"].get("_meta")
                carrier = "prompt_response"
            else:
                continue
            record = record_in(meta)
            if record is not None:
                found.append((carrier, record))
        return found

    def stderr(self) -> str:
        with self.stderr_path.open("rb") as file:
            file.seek(self.stderr_offset)
            return file.read().decode("utf-8", errors="replace")

    def agent_texts(self) -> list[str]:
        """The text of every agent message, in order: consecutive `agent_message_chunk`s of
        one `messageId` (Claude's streamed deltas) joined; a chunk without an id is its own."""
        texts: list[str] = []
        last_id: object = None
        for update in self.updates("agent_message_chunk"):
            if not isinstance(update.get("content"), dict):
                continue
            text = str(update["content"].get("text", ""))
            message_id = update.get("messageId")
            if message_id is not None and message_id == last_id and texts:
                texts[-1] += text
            else:
                texts.append(text)
            last_id = message_id
        return texts

    def answers(self, method: str = "session/prompt") -> dict[Any, int]:
        """For every request of `method` the client sent: how many responses came back."""
        counts: dict[Any, int] = {
            f.message["id"]: 0
            for f in self.frames
            if f.direction == "outgoing" and f.message.get("method") == method
        }
        for message in self.incoming():
            if "method" not in message and message.get("id") in counts:
                counts[message["id"]] += 1
        return counts

    def prompt_uuids(self, session_id: str) -> list[str]:
        """The uuids of the user messages (prompts, not tool results) the scripted Claude
        received for `session_id`, in order, as it recorded them in its transcript."""
        return [entry["uuid"] for entry, _ in self._prompts_received(session_id)]

    def prompt_texts(self, session_id: str) -> list[str]:
        """The text of each prompt the scripted Claude received for `session_id`, in order."""
        return [text for _, text in self._prompts_received(session_id)]

    def _prompts_received(self, session_id: str) -> list[tuple[dict[str, Any], str]]:
        found: list[tuple[dict[str, Any], str]] = []
        for path in self.config_dir.rglob(f"{session_id}.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                content = entry.get("message", {}).get("content")
                first = content[0] if isinstance(content, list) and content else {}
                text = str(first.get("text", ""))
                if (
                    entry.get("type") == "user"
                    and first.get("type") == "text"
                    and not text.startswith("[Request interrupted")
                ):
                    found.append((entry, text))
        return found

    async def delete_session(self, session_id: Any) -> Any:
        """`session/delete` (acp's client has no method for it): its result, or it raises the
        `acp.RequestError` it was refused with."""
        request = self.conn._conn.send_request("session/delete", {"sessionId": session_id})
        return await asyncio.wait_for(request, TIMEOUT)

    async def listed_sessions(self) -> dict[str, str | None]:
        """`session/list` for the adapter's work folder: each session's id and title."""
        answer = await asyncio.wait_for(self.conn.list_sessions(cwd=str(self.workdir)), TIMEOUT)
        return {s.session_id: s.title for s in answer.sessions}

    def transcripts_of(self, session_id: str) -> list[Path]:
        """The transcript files Claude keeps for `session_id` in this adapter's config folder."""
        return list((self.config_dir / "projects").glob(f"*/{session_id}.jsonl"))

    def transcript(self) -> ClientTranscript:
        """The transcript a capable client shows for `self.frames`, rebuilt by the same
        client-side rules `claude-acp conformance` applies (adapter/conformance/client_view.py):
        new ids insert, higher revisions update in place, stale ones are ignored."""
        return ClientTranscript.from_frames((f.direction, f.message) for f in self.frames)


async def until(condition: Callable[..., object], what: str) -> None:
    """Wait, polling, until `condition()` holds; fail naming `what` after `TIMEOUT` seconds (a
    bound on a hang, not a speed assertion)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def record_in(meta: Any) -> dict[str, Any] | None:
    """The sessionFailure record a `_meta` carries, if any (its wrapper checked)."""
    if not isinstance(meta, dict):
        return None
    air = meta.get("jetbrains", {}).get("air")
    if not isinstance(air, dict) or "sessionFailure" not in air:
        return None
    assert air.get("version") == 1
    record = air["sessionFailure"]
    assert isinstance(record, dict)
    return record


def assert_signed_out_answer(answer: Any) -> None:
    """A prompt or `authenticate` answered as signed out: -32000 with what works from an
    editor, never Claude Code's terminal-only "/login"."""
    assert isinstance(answer, acp.RequestError), answer
    assert answer.code == -32000
    assert str(answer) == AUTH_REQUIRED_MESSAGE or AUTH_REQUIRED_MESSAGE in str(answer)
    assert "claude-acp login" in AUTH_REQUIRED_MESSAGE and "ANTHROPIC_API_KEY" in str(answer)
    assert "/login" not in str(answer)


def conformance_violations(frames: list[Frame]) -> list[str]:
    """What `claude-acp conformance` reports for these frames (numbered from 1), one line each."""
    checker = Checker()
    for number, frame in enumerate(frames, start=1):
        checker.feed(LogFrame(number, cast(Direction, frame.direction), frame.message))
    return [describe_violation(v) for v in checker.finish().violations]


@asynccontextmanager
async def spawn_adapter(
    tmp_path: Path,
    scenario: str = "success",
    *,
    capable: bool = True,
    client_meta: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    client: RecordingClient | None = None,
    initialize: bool = True,
    scripted: bool = True,
    off_spec: str | None = None,
    observe: Callable[[Frame], None] | None = None,
    before_initialize: Callable[[Adapter], None] | None = None,
    capabilities: dict[str, Any] | None = None,
) -> AsyncIterator[Adapter]:
    """The adapter, initialized (opted in when `capable`), ready for `new_session`. On a clean
    exit its frames must pass the conformance rules, unless `off_spec` gives the reason this
    test's output is off-spec on purpose.

    With `scripted=False` the adapter spawns whatever Claude its environment names (no
    `CLAUDE_CODE_EXECUTABLE`: the CLI bundled with claude-agent-sdk); `env` then has to point it
    somewhere safe (tests/real_claude does). `observe` sees every frame as it is recorded, and
    `before_initialize` the `Adapter` before its `initialize` (`AdapterPool` uses both).
    `capabilities` are the client capabilities it declares besides `_meta` (wire names)."""
    bin_dir = tmp_path / "bin"
    workdir = tmp_path / "project"
    config_dir = tmp_path / "claude-config"
    scratch = tmp_path / "tmp"
    for folder in (workdir, config_dir, scratch):
        folder.mkdir(parents=True, exist_ok=True)
    claude = {"CLAUDE_CODE_EXECUTABLE": str(write_launcher(bin_dir)), SCENARIO_ENV: scenario}
    child_env = {
        **(claude if scripted else {}),
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_ACP_LOG": "DEBUG",
        "PYTHONPATH": str(ROOT),
        # Anything the adapter leaves in a temp folder (a killed --simulate run) stays here.
        "TMPDIR": str(scratch),
        **({"VIRTUAL_ENV": os.environ["VIRTUAL_ENV"]} if "VIRTUAL_ENV" in os.environ else {}),
        **(env or {}),
    }
    frames: list[Frame] = []

    def record(event: StreamEvent) -> None:
        frame = Frame(event.direction.value, event.message)
        frames.append(frame)
        if observe is not None:
            observe(frame)

    stderr_path = tmp_path / "adapter-stderr.log"
    client = client or RecordingClient()
    with stderr_path.open("wb") as stderr:
        async with acp.spawn_agent_process(
            cast(Client, client),
            sys.executable,
            "-m",
            "adapter",
            env=child_env,
            cwd=str(ROOT),
            # acp waits 2 s for the adapter to exit after its stdin closes, then signals it (and
            # races its exit: ProcessLookupError) - under load the adapter's orderly exit (Claude
            # stopped, SIGKILL after 2 s) takes longer. A bound on a hang instead.
            transport_kwargs={"stderr": stderr, "shutdown_timeout": TIMEOUT},
            observers=[record],
            # elicitation/create is in acp's unstable set: a client declaring it takes it.
            use_unstable_protocol=capabilities is not None,
        ) as (conn, process):
            adapter = Adapter(conn, process, client, frames, stderr_path, workdir, config_dir)
            if before_initialize is not None:
                before_initialize(adapter)
            if initialize:
                meta = client_meta if client_meta is not None else (OPT_IN if capable else None)
                caps = ClientCapabilities.model_validate({**(capabilities or {}), "_meta": meta})
                await asyncio.wait_for(
                    conn.initialize(
                        protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps
                    ),
                    TIMEOUT,
                )
            yield adapter
    if off_spec is None and frames:
        violations = conformance_violations(frames)
        assert not violations, "conformance violations:\n" + "\n".join(violations)


def script_launcher(directory: Path, name: str, source: str) -> Path:
    """A `claude` executable that runs `source` (a script playing its own scenarios through the
    scripted Claude's runtime) with this interpreter; for scripts no shipped scenario covers."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / f"{name}.py"
    script.write_text(source, encoding="utf-8")
    launcher = directory / "claude"
    launcher.write_text(
        f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" "{script}" "$@"\n',
        encoding="utf-8",
    )
    launcher.chmod(0o755)
    return launcher


# --- One adapter, many tests -------------------------------------------------------------------
#
# Most end-to-end tests need a session of their own, not an adapter of their own, and an adapter's
# start-up (~0.45 s of CPU) is most of what such a test costs. `AdapterPool` keeps one adapter per
# process-level set-up (what the client said at `initialize`, the environment) for a module's
# tests; each test gets an `Adapter` view whose frames are only its own (its requests and their
# answers, its sessions' notifications and requests), after the adapter's `initialize` exchange,
# so its assertions and its conformance check read exactly what a fresh adapter would have shown.
# The scripted Claude's scenario is chosen per session by the name of the session's cwd
# (as tests/bench/agents.py `write_scenario_launcher` does); a view's `workdir` is
# `<tmp_path>/sessions/<scenario>`.
# A test that fails, or whose adapter died, retires that adapter: the next test gets a fresh one.


@dataclass(slots=True)
class _Owner:
    """The frames and client of one test's view of a shared adapter."""

    frames: list[Frame]
    client: Any


class _RoutingClient:
    """A shared adapter's client: each call goes to the client of the test owning its session.
    (`shared` holds the adapter's `_Shared` once it has started.)"""

    def __init__(self, shared: list[_Shared]) -> None:
        self._shared = shared

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        client = self._shared[0].owner_of_session(session_id).client
        await client.session_update(session_id=session_id, update=update, **kwargs)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        client = self._shared[0].owner_of_session(session_id).client
        answer = await client.request_permission(
            options=options, session_id=session_id, tool_call=tool_call, **kwargs
        )
        return cast(RequestPermissionResponse, answer)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        client = self._shared[0].owner_of_session(getattr(mode, "session_id", None)).client
        return await client.create_elicitation(message=message, mode=mode, **kwargs)


@dataclass(slots=True)
class _Shared:
    adapter: Adapter
    stack: AsyncExitStack
    opening: list[Frame] = field(default_factory=list)  # the initialize exchange
    current: _Owner | None = None
    by_request: dict[Any, _Owner] = field(default_factory=dict)
    by_agent_request: dict[Any, _Owner] = field(default_factory=dict)
    by_session: dict[str, _Owner] = field(default_factory=dict)
    spare: _Owner = field(default_factory=lambda: _Owner([], RecordingClient()))

    def owner_of_session(self, session_id: Any) -> _Owner:
        return self.by_session.get(session_id) or self.current or self.spare

    def claim(self, owner: _Owner, session_id: Any) -> None:
        if isinstance(session_id, str):
            self.by_session.setdefault(session_id, owner)

    def route(self, frame: Frame) -> None:
        """File `frame` with the test it belongs to (the whole adapter's list has it already)."""
        message = frame.message
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        session_id = params.get("sessionId") if params else None
        if self.current is None and not self.by_request:
            self.opening.append(frame)
            return
        if frame.direction == "outgoing":
            if "method" in message:
                owner = self.current or self.spare
                if "id" in message:
                    self.by_request[message["id"]] = owner
                self.claim(owner, session_id)
            else:
                owner = self.by_agent_request.get(message.get("id")) or self.spare
        elif "method" in message:
            owner = self.owner_of_session(session_id)
            if "id" in message:
                self.by_agent_request[message["id"]] = owner
        else:
            owner = self.by_request.get(message.get("id")) or self.spare
            result = message.get("result")
            if isinstance(result, dict):
                self.claim(owner, result.get("sessionId"))
        owner.frames.append(frame)


class AdapterPool:
    """Adapters shared by one module's tests (see above). Use as an async context manager (a
    module-scoped fixture); `session_adapter` is `spawn_adapter` for tests that need only their
    own sessions."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._shared: dict[str, _Shared] = {}
        self._spawned = 0
        self._scripts: dict[str, Path] = {}

    def launcher(self, name: str, make: Callable[[Path], Path]) -> Path:
        """The `claude` that `make(folder)` writes, written once for the module (so that its
        tests, naming it in `env`, can share an adapter)."""
        if name not in self._scripts:
            self._scripts[name] = make(self._folder / "launchers" / name)
        return self._scripts[name]

    def _scenario_launcher(self, directory: Path, real: Path) -> Path:
        # In a view's workdir, `<tmp_path>/sessions/<scenario>`: the scenario is the cwd's name,
        # and the scripted Claude logs what it was told (`$CLAUDE_ACP_SCRIPTED_LOG`, see
        # adapter/scripted_claude/handshake.py) to `<tmp_path>/claude-log.jsonl`, as a test's own
        # adapter does when the test asks. Elsewhere the environment decides.
        directory.mkdir(parents=True, exist_ok=True)
        launcher = directory / "claude"
        launcher.write_text(
            "#!/bin/sh\n"
            'parent="${PWD%/*}"\n'
            'if [ "${parent##*/}" = sessions ]; then\n'
            f'  {SCENARIO_ENV}="${{PWD##*/}}"\n'
            f'  {LOG_ENV}="${{{LOG_ENV}:-${{parent%/*}}/claude-log.jsonl}}"\n'
            f"  export {SCENARIO_ENV} {LOG_ENV}\n"
            "fi\n"
            f'exec "{real}" "$@"\n',
            encoding="utf-8",
        )
        launcher.chmod(0o755)
        return launcher

    async def __aenter__(self) -> AdapterPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for key in list(self._shared):
            await self._retire(key, check=True)

    async def _retire(self, key: str, *, check: bool) -> None:
        shared = self._shared.pop(key)
        try:
            await shared.stack.aclose()
        finally:
            # The conformance rules over everything the adapter sent, as `spawn_adapter` checks.
            violations = conformance_violations(shared.adapter.frames) if check else []
            assert not violations, "conformance violations:\n" + "\n".join(violations)

    async def _start(
        self, key: str, client_meta: Any, env: dict[str, str], capabilities: dict[str, Any] | None
    ) -> _Shared:
        self._spawned += 1
        folder = self._folder / f"adapter-{self._spawned}"
        real = env.get("CLAUDE_CODE_EXECUTABLE") or str(write_launcher(folder / "real"))
        launcher = self._scenario_launcher(folder / "scenario-bin", Path(real))
        stack = AsyncExitStack()
        holder: list[_Shared] = []
        routing = _RoutingClient(holder)
        await stack.enter_async_context(
            spawn_adapter(
                folder,
                client=cast(RecordingClient, routing),
                capable=client_meta is not None,
                client_meta=client_meta,
                env={**env, "CLAUDE_CODE_EXECUTABLE": str(launcher)},
                off_spec="checked by the pool when it retires the adapter",
                observe=lambda frame: holder[0].route(frame),
                before_initialize=lambda adapter: holder.append(_Shared(adapter, stack)),
                capabilities=capabilities,
            )
        )
        shared = holder[0]
        self._shared[key] = shared
        return shared

    @asynccontextmanager
    async def session_adapter(
        self,
        tmp_path: Path,
        scenario: str = "success",
        *,
        capable: bool = True,
        client_meta: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        client: Any = None,
        off_spec: str | None = None,
        capabilities: dict[str, Any] | None = None,
    ) -> AsyncIterator[Adapter]:
        """Like `spawn_adapter`, on a shared adapter: the view's frames are this test's only,
        and must pass the conformance rules unless `off_spec` says why not."""
        meta = client_meta if client_meta is not None else (OPT_IN if capable else None)
        key = json.dumps([meta, env or {}, capabilities or {}], sort_keys=True)
        shared = self._shared.get(key)
        if shared is not None and shared.adapter.process.returncode is not None:
            await self._retire(key, check=False)
            shared = None
        if shared is None:
            shared = await self._start(key, meta, env or {}, capabilities)
        owner = _Owner(list(shared.opening), client or RecordingClient())
        workdir = tmp_path / "sessions" / scenario
        workdir.mkdir(parents=True, exist_ok=True)
        base = shared.adapter
        view = Adapter(
            base.conn,
            base.process,
            owner.client,
            owner.frames,
            base.stderr_path,
            workdir,
            base.config_dir,
            stderr_offset=base.stderr_path.stat().st_size,
        )
        shared.current = owner
        try:
            yield view
        except BaseException:
            # Whatever this test left behind (a prompt in flight, a wedged adapter) is not the
            # next test's problem.
            shared.current = None
            await self._retire(key, check=False)
            raise
        shared.current = None
        if off_spec is None:
            violations = conformance_violations(owner.frames)
            assert not violations, "conformance violations:\n" + "\n".join(violations)
