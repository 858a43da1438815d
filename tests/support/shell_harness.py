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
instead of stdio, every frame recorded: for what the agent answers without a Claude process
(`initialize`, its capabilities and sign-in methods, methods a client did not negotiate, listing
sessions); on the way out its frames must pass the conformance rules. Nothing here spawns
Claude; a test that needs one is end to end.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import acp
import anyio
from acp import RequestError
from acp.connection import StreamEvent
from acp.interfaces import Agent, Client
from acp.schema import ClientCapabilities, SessionInfoUpdate, TextContentBlock
from claude_agent_sdk import ResultMessage, SystemMessage

from adapter.agent.acp_agent import ClaudeAcpAgent
from adapter.claude.runtime_settings import MAX_LINE_BYTES, RuntimeSettings
from adapter.controls.session_controls import SessionControls
from adapter.session.session import Session
from adapter.wire.client_link import ClientLink
from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader
from fsm import Dialects, RuntimeStarted
from tests.support.harness import Frame, RecordingClient, conformance_violations

__all__ = [
    "EPOCH",
    "WAIT",
    "Clock",
    "FakeLink",
    "FakeRuntime",
    "InProcessAgent",
    "agent_in_process",
    "answer_of",
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

    async def send_raw_update(self, session_id: str, update: dict[str, Any]) -> bool:
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


async def prompt_in_background(session: Session, runtime: FakeRuntime, tg: Any) -> list[Any]:
    """Send a prompt from a task of `tg`; once Claude has it, the box its answer will be in."""
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
) -> ResultMessage:
    return ResultMessage(
        subtype=subtype,
        duration_ms=1,
        duration_api_ms=1,
        is_error=is_error,
        num_turns=1,
        session_id="s",
        result=text,
        errors=errors,
    )


def retry_message() -> SystemMessage:
    data = {"type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 3}
    return SystemMessage(subtype="api_retry", data={**data, "error_status": 529})


@dataclass(slots=True)
class InProcessAgent:
    """The agent and its client in this process: `conn` is the client's connection, `frames`
    every frame in order from the client's side (`incoming`: the agent's)."""

    conn: acp.ClientSideConnection
    client: Any
    frames: list[Frame]
    workdir: Path
    config_dir: Path

    def incoming(self) -> list[dict[str, Any]]:
        return [f.message for f in self.frames if f.direction == "incoming"]

    def answers(self, method: str) -> dict[Any, int]:
        """How many answers each request of `method` got."""
        asked = {
            f.message["id"]
            for f in self.frames
            if f.direction == "outgoing" and f.message.get("method") == method
        }
        counts = dict.fromkeys(asked, 0)
        for message in self.incoming():
            if "method" not in message and message.get("id") in counts:
                counts[message["id"]] += 1
        return counts

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """A raw request's result, or the `acp.RequestError` it failed with."""
        try:
            return await asyncio.wait_for(self.conn._conn.send_request(method, params), WAIT)
        except acp.RequestError as exc:
            return exc


@asynccontextmanager
async def agent_in_process(
    tmp_path: Path,
    *,
    client_meta: dict[str, Any] | None = None,
    initialize: bool = True,
    client: Any = None,
) -> AsyncIterator[InProcessAgent]:
    """The agent served over a socket pair, its Claude Code config folder under `tmp_path`;
    initialized (with `client_meta` as the capabilities' `_meta`) unless `initialize` is false."""
    workdir, config_dir = tmp_path / "project", tmp_path / "claude-config"
    for folder in (workdir, config_dir):
        folder.mkdir(parents=True, exist_ok=True)
    settings = RuntimeSettings(env={"CLAUDE_CONFIG_DIR": str(config_dir)})
    frames: list[Frame] = []
    client = client or RecordingClient()
    # The SDK's session helpers read Claude Code's folder from this process's environment, as
    # the agent's own process has it.
    saved = os.environ.get("CLAUDE_CONFIG_DIR")
    os.environ["CLAUDE_CONFIG_DIR"] = str(config_dir)
    try:
        async with _served(settings, client, frames) as conn:
            if initialize:
                caps = ClientCapabilities.model_validate({"_meta": client_meta})
                await asyncio.wait_for(
                    conn.initialize(
                        protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps
                    ),
                    WAIT,
                )
            yield InProcessAgent(conn, client, frames, workdir, config_dir)
    finally:
        if saved is None:
            os.environ.pop("CLAUDE_CONFIG_DIR", None)
        else:
            os.environ["CLAUDE_CONFIG_DIR"] = saved
    # What the agent said passes the conformance rules, as every end-to-end adapter's does.
    violations = conformance_violations(frames)
    assert not violations, "conformance violations:\n" + "\n".join(violations)


@asynccontextmanager
async def _served(
    settings: RuntimeSettings, client: Any, frames: list[Frame]
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
            private=settings.private,
        )
        agent.attach_bulk_sender(transport.send_session_updates)
        agent.attach_responses(transport.responses)

        async def serve() -> None:
            await acp.run_agent(cast(Agent, agent), transport, use_unstable_protocol=True)

        tg.start_soon(serve)
        conn = acp.connect_to_agent(
            cast(Client, client), client_writer, client_reader, observers=[record]
        )
        try:
            yield conn
        finally:
            await conn.close()
            client_writer.close()
            with anyio.move_on_after(WAIT, shield=True):
                await agent.close()
            tg.cancel_scope.cancel()
