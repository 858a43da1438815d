"""The shell in process, for tests of shell rules: a fake client link, a fake Claude runtime and
an injected clock around a real `Session`, with no subprocess and no sleep.

`session_with_fakes` gives a session whose Claude process is `FakeRuntime` (it takes prompts and
interrupts and is closed; what Claude says is fed by the test through
`session.claude.on_message`), whose client is `FakeLink` (it records every update, and refuses
`session_info_update`s while `failing`), and whose monotonic clock is `Clock` (the session's
timer sleeps toward the core's deadlines on it; a test moves `clock.now` and sets
`session._rearm`). The end-to-end tier is for stdio, processes, the SDK and signals; a rule the
shell keeps is tested here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from acp import RequestError
from acp.schema import SessionInfoUpdate, TextContentBlock
from claude_agent_sdk import ResultMessage, SystemMessage

from adapter.claude.runtime_settings import RuntimeSettings
from adapter.controls.session_controls import SessionControls
from adapter.session.session import Session
from adapter.wire.client_link import ClientLink
from fsm import Dialects, RuntimeStarted

__all__ = [
    "EPOCH",
    "WAIT",
    "Clock",
    "FakeLink",
    "FakeRuntime",
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
