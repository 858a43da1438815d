"""The shell in process, for tests of shell rules: a fake client link, a fake Claude runtime and
an injected clock around a real `Session`, with no subprocess and no sleep.

`session_with_fakes` gives a session whose Claude process is `FakeRuntime` (it takes prompts and
interrupts and is closed; what Claude says is fed by the test through
`session.claude.on_message`), whose client is `FakeLink` (it records every update, and refuses
`session_info_update`s while `failing`), and whose monotonic clock is `Clock` (the session's
timer sleeps toward the core's deadlines on it; a test moves `clock.now` and sets
`session._rearm`). The end-to-end tier is for stdio, processes, the SDK and signals; a rule the
shell keeps is tested here.

`agent_in_process` gives the whole agent (`ClaudeAcpAgent` behind its wire guard, as
`adapter/app/serving.py` serves it) and an `acp` client in this process, joined by a socket pair
instead of stdio, every frame recorded; on the way out its frames must pass the conformance
rules. Each Claude process a session starts is `InProcessClaude`: the scripted Claude played in
a thread of this process under the real SDK client. Nothing here spawns a process; a scenario
that ends or signals Claude's process (`ends_its_process`) is end to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import acp
import anyio
from acp import RequestError
from acp.connection import StreamEvent
from acp.interfaces import Agent, Client
from acp.schema import ClientCapabilities, SessionInfoUpdate, TextContentBlock
from claude_agent_sdk import CLIConnectionError, ResultMessage, SystemMessage, UserMessage

from adapter.agent.acp_agent import ClaudeAcpAgent
from adapter.claude import claude_runtime
from adapter.claude.runtime_settings import MAX_LINE_BYTES, RuntimeSettings, private_values
from adapter.claude.sdk_compat import ExitBoundedTransport
from adapter.controls.session_controls import SessionControls
from adapter.scripted_claude import SCENARIO_ENV
from adapter.scripted_claude import runtime as scripted_runtime
from adapter.scripted_claude.handshake import LOG_ENV
from adapter.scripted_claude.session import PROCESS_STEPS
from adapter.scripted_claude.steps import Scenario, Sleep
from adapter.session.session import Session
from adapter.wire.client_link import ClientLink
from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader
from fsm import Dialects, RuntimeStarted
from tests.support.harness import (
    OPT_IN,
    Adapter,
    Frame,
    RecordingClient,
    conformance_violations,
)

__all__ = [
    "EPOCH",
    "SCENARIO_FILE",
    "WAIT",
    "Clock",
    "FakeLink",
    "FakeRuntime",
    "InProcessAgent",
    "InProcessClaude",
    "agent_in_process",
    "answer_of",
    "ends_its_process",
    "folder_playing",
    "prompt_in_background",
    "result_message",
    "retry_message",
    "session_with_fakes",
]

EPOCH = "fake-epoch"
WAIT = 30  # a bound on hangs only


class FakeLink(ClientLink):
    """The client: records what was sent; session_info_update sends fail while `failing`."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Any] = []
        self.notified: list[tuple[str, dict[str, Any]]] = []  # notifications, as (method, params)
        self.failing = False

    async def send_update(self, session_id: str, update: Any) -> bool:
        if self.failing and isinstance(update, SessionInfoUpdate):
            return False
        self.sent.append(update)
        return True

    async def send_chunk(self, session_id: str, update: dict[str, Any]) -> bool:
        # Where every raw update ends (`send_raw_update` after the changed-meta filter, when
        # the test turned it on with `filter_meta`).
        self.sent.append(update)
        return True

    async def notify(self, method: str, params: dict[str, Any], session_id: str) -> bool:
        self.notified.append((method, params))
        return True

    def records(self) -> list[dict[str, Any]]:
        return [
            u.field_meta["jetbrains"]["air"]["sessionFailure"]
            for u in self.sent
            if isinstance(u, SessionInfoUpdate) and u.field_meta is not None
        ]


class FakeRuntime:
    """Claude's process at the seam the session uses: it takes prompts and interrupts, and is
    closed; what it says is fed by the test."""

    def __init__(self) -> None:
        self.epoch = EPOCH
        self.prompts: list[dict[str, Any]] = []
        self.interrupts = 0
        self.closed = anyio.Event()
        self.sent = anyio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        self.prompts.append(message)
        self.sent.set()

    def sent_by_adapter(self, stamp: object) -> bool:
        return any(p.get("uuid") == stamp for p in self.prompts)

    async def interrupt(self) -> None:
        self.interrupts += 1  # and ignores it

    async def close(self) -> None:
        self.closed.set()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def session_with_fakes(
    *,
    capable: bool = True,
    stall: float = 120.0,
    dialects: Dialects | None = None,
    wall: Callable[[Clock], Callable[[], float]] | None = None,
    controls: Callable[[FakeLink], SessionControls] | None = None,
) -> AsyncIterator[tuple[Session, FakeLink, FakeRuntime, Clock]]:
    """A started session on the fakes (`dialects` default: sessionFailure when `capable`;
    `wall(clock)` makes the wall clock, default the real one; `controls(link)` the session's
    controls, default the plain ones); closed on the way out."""
    link, runtime, clock = FakeLink(), FakeRuntime(), Clock()
    extra: dict[str, Any] = {} if wall is None else {"wall": wall(clock)}
    if controls is not None:
        extra["controls"] = controls(link)
    async with anyio.create_task_group() as tg:
        session = Session(
            session_id="s",
            cwd="/",
            dialects=dialects or Dialects(session_failure=capable),
            link=link,
            settings=RuntimeSettings(stall_seconds=stall),
            task_group=tg,
            clock=clock,
            **extra,
        )
        session.claude.runtime = runtime  # type: ignore[assignment]
        session._start_timer()
        await session.feed(RuntimeStarted(epoch=EPOCH))
        try:
            yield session, link, runtime, clock
        finally:
            await session.close()
            tg.cancel_scope.cancel()


async def echo(session: Session, runtime: FakeRuntime, message: dict[str, Any]) -> None:
    """Claude Code's echo of the user `message` the session sent (`--replay-user-messages`):
    Claude took it up, and its turn begins (docs/decisions.md#turn-begins-at-echo)."""
    stamp = message.get("uuid")
    raw = {"type": "user", "uuid": stamp, "isReplay": True, "message": message.get("message")}
    user = UserMessage(content=message.get("message", {}).get("content", ""), uuid=stamp)
    await session.claude.on_message(user, raw, runtime.epoch)


async def prompt_in_background(
    session: Session, runtime: FakeRuntime, tg: Any, *, echoed: bool = True
) -> list[Any]:
    """Send a prompt from a task of `tg`; once Claude has it (and, `echoed`, took it up: its
    echo), the box its answer will be in."""
    box: list[Any] = []

    async def run() -> None:
        try:
            box.append(await session.prompt([TextContentBlock(type="text", text="hi")]))
        except RequestError as exc:
            box.append(exc)

    tg.start_soon(run)
    with anyio.fail_after(WAIT):
        await runtime.sent.wait()
    runtime.sent = anyio.Event()
    if echoed:
        await echo(session, runtime, runtime.prompts[-1])
    return box


async def answer_of(box: list[Any]) -> Any:
    """The prompt's answer, once it has one."""
    with anyio.fail_after(WAIT):
        while not box:
            await anyio.sleep(0)
    return box[0]


def result_message(
    *,
    is_error: bool = False,
    text: str | None = "Done.",
    subtype: str = "success",
    errors: list[str] | None = None,
    stop_reason: str | None = None,
    own_work: bool = False,
    usage: dict[str, Any] | None = None,
    total_cost_usd: float | None = None,
    prompts: tuple[str, ...] = (),
) -> ResultMessage:
    """A result as the SDK gives it; `own_work`: of a cycle Claude ran on its own after a task
    notification (its origin says so); `prompts`: the prompts it names (`user_message_uuid`,
    then `user_message_uuids`)."""
    return ResultMessage(
        subtype=subtype,
        duration_ms=1,
        duration_api_ms=1,
        is_error=is_error,
        num_turns=1,
        session_id="s",
        result=text,
        errors=errors,
        stop_reason=stop_reason,
        usage=usage,
        total_cost_usd=total_cost_usd,
        origin={"kind": "task-notification"} if own_work else None,
        user_message_uuid=prompts[0] if prompts else None,
        user_message_uuids=list(prompts[1:]) or None,
    )


def retry_message() -> SystemMessage:
    data = {"type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 3}
    return SystemMessage(subtype="api_retry", data={**data, "error_status": 529})


class InProcessAgent(Adapter):
    """The agent and its client in this process, with what an end-to-end `Adapter` offers
    (`conn`, every frame in order from the client's side, `new_session`, `prompt`, `updates`,
    `records`, ...) but no process. `stderr()` is the agent's log records, one a line with
    its time, level and logger, at the level `CLAUDE_ACP_LOG` names (DEBUG by default), as this
    process caught them: what was logged, not how the command masks it for a person (end to end)."""

    log: list[str] = []  # noqa: RUF012 - set per agent by `agent_in_process`
    # The settings it serves with (`RuntimeSettings.masked`: what its wire guard masks, read
    # at each frame; serving points the log's masking at it too, which this does not).
    settings: RuntimeSettings

    def stderr(self) -> str:
        return "".join(f"{line}\n" for line in self.log)

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A raw request's answer as the client read it: the JSON-RPC message, `result` or
        `error`."""
        await self.request(method, params)
        [sent] = [
            f.message
            for f in self.frames
            if f.direction == "outgoing" and f.message.get("method") == method
        ][-1:]
        [answer] = [m for m in self.incoming() if "method" not in m and m.get("id") == sent["id"]]
        return answer

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """A raw request's result, or the `acp.RequestError` it failed with."""
        try:
            return await asyncio.wait_for(self.conn._conn.send_request(method, params), WAIT)
        except acp.RequestError as exc:
            return exc


@asynccontextmanager
async def agent_in_process(
    tmp_path: Path,
    scenario: str = "success",
    *,
    capable: bool = True,
    client_meta: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    client: Any = None,
    initialize: bool = True,
    capabilities: dict[str, Any] | None = None,
    off_spec: str | None = None,
    scenarios: Sequence[Scenario] = (),
) -> AsyncIterator[InProcessAgent]:
    """`spawn_adapter` in this process: the agent served over socket pairs, its Claude Code
    config folder under `tmp_path`, each Claude process a session starts the scripted Claude
    playing `scenario` in this process (`InProcessClaude`; `scenarios` beside the shipped ones,
    its environment `env` besides; a session's folder can name another: `folder_playing`); the
    values it keeps private are read from this process's environment with `env` over it.
    Initialized unless `initialize` is false, opted in to
    sessionFailure when `capable` (`client_meta`: the capabilities' `_meta` instead),
    `capabilities` the other client capabilities (wire names). On a clean exit its frames must
    pass the conformance rules, unless `off_spec` says why they are off-spec on purpose.

    One at a time: the agent reads Claude Code's folder from this process's environment, and its
    runtime's transport and the scenario table are this process's modules, so two agents open at
    once would each see the other's (and the first to leave would undo them under the second);
    a second one refuses to open. Play client modes one after the other."""
    if _OPEN:
        raise RuntimeError("an agent_in_process is open already: open one at a time")
    _OPEN.append(tmp_path)
    try:
        async with _agent_in_process(
            tmp_path,
            scenario,
            capable=capable,
            client_meta=client_meta,
            env=env,
            client=client,
            initialize=initialize,
            capabilities=capabilities,
            off_spec=off_spec,
            scenarios=scenarios,
        ) as agent:
            yield agent
    finally:
        _OPEN.remove(tmp_path)


async def prompted_twice(
    tmp_path: Path, scenario: str, scenarios: Sequence[Scenario], *, capable: bool
) -> tuple[InProcessAgent, Any, Any]:
    """A new session of `agent_in_process` playing `scenario` (one of `scenarios`), prompted
    "first" and then "second": the agent, once it closed, and the two answers."""
    async with agent_in_process(
        tmp_path, scenario, scenarios=scenarios, capable=capable
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "first")
        second = await adapter.prompt(session, "second")
    return adapter, first, second


# The folder of the `agent_in_process` open now, if one is.
_OPEN: list[Path] = []


@asynccontextmanager
async def _agent_in_process(
    tmp_path: Path,
    scenario: str,
    *,
    capable: bool,
    client_meta: dict[str, Any] | None,
    env: dict[str, str] | None,
    client: Any,
    initialize: bool,
    capabilities: dict[str, Any] | None,
    off_spec: str | None,
    scenarios: Sequence[Scenario],
) -> AsyncIterator[InProcessAgent]:
    workdir, config_dir = tmp_path / "project", tmp_path / "claude-config"
    for folder in (workdir, config_dir):
        folder.mkdir(parents=True, exist_ok=True)
    claude_env = {
        "CLAUDE_CONFIG_DIR": str(config_dir),
        SCENARIO_ENV: scenario,
        # Where the scripted Claude logs its argv and control requests, as `AdapterPool`'s
        # launcher has it log: beside the test's folders.
        LOG_ENV: str(tmp_path / "claude-log.jsonl"),
        **(env or {}),
    }
    # What the agent keeps out of every text it sends (its user's home, secret-named values),
    # read as an agent started with `env` reads it from its own environment
    # (`runtime_settings.from_environment`).
    private = private_values({**os.environ, **(env or {})})
    settings = RuntimeSettings(executable=IN_PROCESS, env=claude_env, private=private)
    frames: list[Frame] = []
    client = client or RecordingClient()
    # The SDK's session helpers read Claude Code's folder from this process's environment, as
    # the agent's own process has it.
    saved = os.environ.get("CLAUDE_CONFIG_DIR")
    os.environ["CLAUDE_CONFIG_DIR"] = str(config_dir)
    # The agent reads this process's environment under `env`, as `spawn_adapter`'s agent reads
    # only what it is given: a sandbox this machine declares is not the test's unless `env` says.
    sandbox = os.environ.pop("IS_SANDBOX", None)
    # The runtime builds its transport from this name: a session's Claude is played here.
    transport = vars(claude_runtime)["ExitBoundedTransport"]
    # ...and the scripted Claude looks its scenario up in this table.
    shipped = vars(scripted_runtime)["SCENARIOS"]
    setattr(claude_runtime, "ExitBoundedTransport", InProcessClaude)  # noqa: B010
    setattr(scripted_runtime, "SCENARIOS", {**shipped, **{s.name: s for s in scenarios}})  # noqa: B010
    try:
        # elicitation/create is in acp's unstable set: a client declaring it takes it.
        unstable = capabilities is not None
        async with (
            _served(settings, client, frames, unstable=unstable) as conn,
            _caught_logs(claude_env.get("CLAUDE_ACP_LOG", "DEBUG")) as log,
        ):
            if initialize:
                meta = client_meta if client_meta is not None else (OPT_IN if capable else None)
                caps = ClientCapabilities.model_validate({**(capabilities or {}), "_meta": meta})
                await asyncio.wait_for(
                    conn.initialize(
                        protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps
                    ),
                    WAIT,
                )
            process: Any = None  # none: the agent runs here
            agent = InProcessAgent(
                conn, process, client, frames, tmp_path / "no-stderr", workdir, config_dir
            )
            agent.log = log
            agent.settings = settings
            yield agent
    finally:
        setattr(claude_runtime, "ExitBoundedTransport", transport)  # noqa: B010
        setattr(scripted_runtime, "SCENARIOS", shipped)  # noqa: B010
        if saved is None:
            os.environ.pop("CLAUDE_CONFIG_DIR", None)
        else:
            os.environ["CLAUDE_CONFIG_DIR"] = saved
        if sandbox is not None:
            os.environ["IS_SANDBOX"] = sandbox
    # What the agent said passes the conformance rules, as every end-to-end adapter's does.
    if off_spec is None and frames:
        violations = conformance_violations(frames)
        assert not violations, "conformance violations:\n" + "\n".join(violations)


@asynccontextmanager
async def _caught_logs(level: str) -> AsyncIterator[list[str]]:
    """The messages the agent logs (its loggers are `adapter.*`) at `level` or above."""
    caught: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            caught.append(self.format(record))

    # Each record as the agent's stderr shows it below WARNING (`adapter/app/logs.py`): its
    # level and logger before the message, so a test can tell a DEBUG line from a WARNING.
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")

    handler = Catch(level=logging.getLevelName(level.upper()))
    handler.setFormatter(formatter)
    logger = logging.getLogger("adapter")
    was = logger.level
    logger.addHandler(handler)
    logger.setLevel(min(handler.level, was) if was else handler.level)
    try:
        yield caught
    finally:
        logger.removeHandler(handler)
        logger.setLevel(was)


@asynccontextmanager
async def _served(
    settings: RuntimeSettings, client: Any, frames: list[Frame], *, unstable: bool
) -> AsyncIterator[acp.ClientSideConnection]:
    """The agent served as `adapter/app/serving.py` serves it, and the client's connection."""

    def record(event: StreamEvent) -> None:
        frames.append(Frame(event.direction.value, event.message))

    # Two socket pairs, one a direction: the agent reads its input as it reads stdin
    # (`ChunkReader`), and writes to a stream as it writes stdout.
    to_agent, agent_in = socket.socketpair()
    agent_out, to_client = socket.socketpair()
    agent_reader = ChunkReader()
    await agent_reader.connect_pipe(agent_in)  # type: ignore[arg-type]
    _, agent_writer = await asyncio.open_connection(sock=agent_out)
    _, client_writer = await asyncio.open_connection(sock=to_agent)
    client_reader, _ = await asyncio.open_connection(sock=to_client)
    async with anyio.create_task_group() as tg:
        agent = ClaudeAcpAgent(task_group=tg, settings=settings)
        transport = GuardedTransport(
            agent_reader,
            agent_writer,
            limit=MAX_LINE_BYTES,
            on_eof=agent.shutdown,
            private=settings.masked,
        )
        agent.attach_bulk_sender(transport.send_session_updates)
        agent.attach_responses(transport.responses)

        async def serve() -> None:
            await acp.run_agent(cast(Agent, agent), transport, use_unstable_protocol=True)

        tg.start_soon(serve)
        conn = acp.connect_to_agent(
            cast(Client, client),
            client_writer,
            client_reader,
            observers=[record],
            use_unstable_protocol=unstable,
        )
        try:
            yield conn
        finally:
            await conn.close()
            client_writer.close()
            with anyio.move_on_after(WAIT, shield=True):
                await agent.close()
            tg.cancel_scope.cancel()


def ends_its_process(name: str) -> bool:
    """Whether the scenario `name` has a step that ends or signals the scripted Claude's
    process (an exit, a kill, a hang): one `InProcessClaude` cannot play."""
    scenario = vars(scripted_runtime)["SCENARIOS"][name]
    steps = [*scenario.before_handshake, *(s for turn in scenario.turns for s in turn)]
    return any(isinstance(step, _ENDS_OR_SIGNALS) for step in steps)


# The scripted Claude's process steps but `Sleep`, a wait its player's thread sits through here
# as the process would (a steer or prompt it waits for still wakes it).
_ENDS_OR_SIGNALS = tuple(step for step in PROCESS_STEPS if step is not Sleep)


# What `agent_in_process` names as Claude's executable: never run, the scripted Claude is.
IN_PROCESS = "/in-process/scripted-claude"

# A session opened in a folder holding this file plays the scenario it names, not the one its
# agent was given: one agent then holds a faulty session and a healthy one beside it, and a test
# changes what a session's *next* Claude process plays by rewriting the file between prompts.
# `InProcessClaude` reads it; an end-to-end test's launcher reads it the same way.
SCENARIO_FILE = ".scripted-scenario"


def folder_playing(adapter: Adapter, name: str, scenario: str) -> Path:
    """A folder `name` beside the adapter's work folder whose sessions play `scenario`."""
    folder = adapter.workdir.parent / name
    folder.mkdir(exist_ok=True)
    (folder / SCENARIO_FILE).write_text(scenario, encoding="utf-8")
    return folder


class InProcessClaude(ExitBoundedTransport):
    """Claude Code's process as the scripted Claude plays it, in this process: its turn loop in
    a thread, its stdin and stdout two pipes. The real SDK client (its handshake, its control
    protocol, permission questions and hooks) and the adapter's `ClaudeRuntime` run over it as
    they run over Claude's process; only the process is gone. A scenario with a step that ends
    or signals the process (an exit, a kill, a hang) is refused: that one is end to end."""

    def __init__(self, prompt: Any, options: Any) -> None:
        super().__init__(prompt=prompt, options=options)
        self._stdin_fd: int | None = None
        self._lines: asyncio.StreamReader | None = None
        self._pipe: asyncio.ReadTransport | None = None
        self._player: threading.Thread | None = None

    @property
    def process(self) -> Any:
        return None  # no process to signal: `ClaudeRuntime.stop` closes this

    async def connect(self) -> None:
        if self._player is not None:
            return  # connected already (`ClaudeRuntime.spawn`)
        # The environment the SDK gives the process it spawns (`SubprocessCLITransport.connect`):
        # the options' env over this process's, and file checkpointing when the options ask.
        env = {**os.environ, "CLAUDE_CODE_ENTRYPOINT": "sdk-py", **self._options.env}
        if self._options.enable_file_checkpointing:
            env["CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"] = "true"
        name = env.get(SCENARIO_ENV, "")
        chosen = Path(self._options.cwd or ".") / SCENARIO_FILE
        if chosen.is_file():
            name = env[SCENARIO_ENV] = chosen.read_text(encoding="utf-8").strip()
        scenario = vars(scripted_runtime)["SCENARIOS"].get(name)
        if scenario is None:
            raise ValueError(f"no scenario {name!r}")
        if ends_its_process(name):
            raise ValueError(f"scenario {name!r} ends or signals its process: end to end only")
        argv = self._build_command()[1:]
        stdin_r, self._stdin_fd = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stdin = os.fdopen(stdin_r, "rb")

        def play() -> None:
            try:
                scripted_runtime.main(
                    argv, env, stdin=stdin, stdout_fd=stdout_w, cwd=str(self._options.cwd)
                )
            finally:
                with contextlib.suppress(OSError):
                    os.close(stdout_w)
                stdin.close()

        loop = asyncio.get_running_loop()
        self._lines = asyncio.StreamReader(limit=1 << 30)
        protocol = asyncio.StreamReaderProtocol(self._lines)
        self._pipe, _ = await loop.connect_read_pipe(
            lambda: protocol, os.fdopen(stdout_r, "rb", buffering=0)
        )
        self._player = threading.Thread(target=play, name="scripted-claude", daemon=True)
        self._player.start()
        self._ready = True

    async def write(self, data: str) -> None:
        if self._stdin_fd is None:
            raise CLIConnectionError("the scripted Claude's stdin is closed")
        payload = data.encode("utf-8")
        while payload:
            payload = payload[os.write(self._stdin_fd, payload) :]
        if self.written is not None:
            self.written.set()

    def read_messages(self) -> Any:
        return self._noting_hints(self._frames())

    async def _frames(self) -> AsyncIterator[dict[str, Any]]:
        assert self._lines is not None
        while line := await self._lines.readline():
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                yield json.loads(text)

    async def end_input(self) -> None:
        fd, self._stdin_fd = self._stdin_fd, None
        if fd is not None:
            os.close(fd)

    async def close(self) -> None:
        await self.end_input()
        player = self._player
        if player is not None:
            with anyio.move_on_after(WAIT, shield=True):
                await anyio.to_thread.run_sync(player.join)
        if self._pipe is not None:
            self._pipe.close()
        self._ready = False

    def is_ready(self) -> bool:
        return self._ready
