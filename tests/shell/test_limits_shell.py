"""Usage limits at the shell's seams: `rate_limit_event` frames into core events (bad input
included), the windows on a `usage_update`, and the reset revision published when the timer the
core armed fires (injected monotonic and wall clocks, no sleep)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from acp.schema import PromptResponse, TextContentBlock
from claude_agent_sdk import AssistantMessage, TextBlock
from claude_agent_sdk._internal.message_parser import parse_message

from adapter.claude import local_time
from adapter.claude.translate import event_for
from adapter.session.session import Session
from fsm import Dialects, LimitWindow, RateLimitReported
from tests.support.shell_harness import (
    EPOCH,
    WAIT,
    Clock,
    FakeLink,
    FakeRuntime,
    answer_of,
    echo,
    result_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio

W0 = 1_796_160_000
RESET = W0 + 2876  # 10:08pm UTC
LIMIT_TEXT = "You've hit your 5-hour limit \u00b7 resets 10:08pm (UTC)"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The titles show the agent's local time: these tests run in UTC wherever they run.
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_zone_is_named_as_claude_code_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert local_time.zone_name() == "UTC"
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    assert local_time.zone_name() == "Europe/Paris"
    assert local_time.utc_offset_at(RESET) == 3600  # December: CET
    assert local_time.utc_offset_at(RESET - 150 * 86_400) == 7200  # July: CEST


def frame(info: Any) -> dict[str, Any]:
    return {"type": "rate_limit_event", "rate_limit_info": info, "uuid": "u", "session_id": "s"}


def translated(info: Any) -> RateLimitReported:
    event = event_for(parse_message(frame(info)), EPOCH)
    assert isinstance(event, RateLimitReported)
    return event


def test_the_issues_frame_becomes_every_window() -> None:
    event = translated(
        {
            "status": "allowed",
            "resetsAt": 1796162876,
            "rateLimitType": "five_hour",
            "isUsingOverage": False,
            "unifiedWindows": {
                "five_hour": {
                    "utilization": 0.92,
                    "resetsAt": 1796162876,
                    "status": "allowed_warning",
                },
                "seven_day": {"utilization": 0.41, "resetsAt": 1796591276, "status": "allowed"},
            },
        }
    )
    assert (event.status, event.resets_at) == ("allowed", 1796162876)
    assert [(w.name, w.status, w.utilization, w.resets_at) for w in event.windows] == [
        ("five_hour", "allowed_warning", 0.92, 1796162876),
        ("seven_day", "allowed", 0.41, 1796591276),
    ]


def test_without_unified_windows_the_event_is_about_its_own_window() -> None:
    event = translated({"status": "rejected", "resetsAt": RESET, "rateLimitType": "seven_day"})
    assert event.windows == (
        LimitWindow(name="seven_day", status="rejected", resets_at=RESET, utc_offset_seconds=0),
    )


@pytest.mark.parametrize("resets_at", ["soon", True, -5, 1.5, 2**60, None])
def test_a_reset_that_is_not_a_time_is_dropped(resets_at: Any) -> None:
    window = {"utilization": "lots", "resetsAt": resets_at, "status": "allowed_warning"}
    event = translated(
        {"status": "rejected", "resetsAt": resets_at, "unifiedWindows": {"x": window}}
    )
    assert event.resets_at is None
    assert event.windows == (LimitWindow(name="x", status="allowed_warning"),)


def test_windows_of_odd_shapes_are_skipped() -> None:
    event = translated(
        {"status": "allowed", "unifiedWindows": {"five_hour": "full", "seven_day": [1], "": {}}}
    )
    assert [w.name for w in event.windows] == [""]
    assert translated({"status": "allowed", "unifiedWindows": "none"}).windows == ()


@asynccontextmanager
async def limited_session(
    dialects: Dialects,
) -> AsyncIterator[tuple[Session, FakeLink, FakeRuntime, Clock]]:
    """A session on the fakes whose wall clock is W0 when its monotonic clock starts."""
    async with session_with_fakes(
        dialects=dialects, stall=1e7, wall=lambda clock: lambda: W0 + clock.now - 1000.0
    ) as fakes:
        yield fakes


def _limit_message() -> AssistantMessage:
    return AssistantMessage(
        content=[TextBlock(text=LIMIT_TEXT)], model="<synthetic>", error="rate_limit"
    )


async def _settled_prompt(session: Session, tg: Any) -> list[Any]:
    box: list[Any] = []

    async def run() -> None:
        box.append(await session.prompt([TextContentBlock(type="text", text="hi")]))

    tg.start_soon(run)
    with anyio.fail_after(WAIT):
        while session.core.turn.turn_id is None or not session.core.turn.live:
            await anyio.sleep(0)
    return box


async def test_warning_usage_and_reset_reach_a_capable_client() -> None:
    dialects = Dialects(session_failure=True)
    async with (
        limited_session(dialects) as (session, link, _runtime, clock),
        anyio.create_task_group() as tg,
    ):
        box = await _settled_prompt(session, tg)
        with anyio.fail_after(WAIT):
            await _runtime.sent.wait()
        await echo(session, _runtime, _runtime.prompts[-1])
        warning = {"status": "allowed_warning", "resetsAt": RESET, "utilization": 0.92}
        info = {"status": "allowed_warning", "resetsAt": RESET, "rateLimitType": "five_hour",
                "unifiedWindows": {"five_hour": warning}}  # fmt: skip
        await session.claude.on_message(parse_message(frame(info)), {}, EPOCH)
        usage = [
            u for u in link.sent if isinstance(u, dict) and u["sessionUpdate"] == "usage_update"
        ]
        assert usage == [
            {"sessionUpdate": "usage_update", "used": 0, "size": 200_000,
             "_meta": {"_claude/rateLimit": info}}
        ]  # fmt: skip
        [record] = link.records()
        assert record["title"] == "You've used 92% of your 5-hour limit \u00b7 resets 10:08pm (UTC)"
        # The rejection, then Claude's words: the turn fails with a record on its answer.
        rejected = {"status": "rejected", "resetsAt": RESET, "rateLimitType": "five_hour"}
        await session.claude.on_message(parse_message(frame(rejected)), {}, EPOCH)
        await session.claude.on_message(_limit_message(), {}, EPOCH)
        await session.claude.on_message(result_message(is_error=True, text=LIMIT_TEXT), {}, EPOCH)
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.field_meta is not None
        failure = answer.field_meta["jetbrains"]["air"]["sessionFailure"]
        # The timer sleeps toward the reset the core named; at it, revision 2 goes out.
        assert session.core.next_deadline() == pytest.approx(1000.0 + RESET - W0)
        clock.now = 1000.0 + RESET - W0
        session._rearm.set()
        with anyio.fail_after(WAIT):
            while len(link.records()) < 2:
                await anyio.sleep(0)
        reset = link.records()[-1]
        assert (reset["id"], reset["revision"], reset["actions"]) == (failure["id"], 2, ["retry"])
        assert reset["title"] == LIMIT_TEXT + " \u00b7 The limit has reset; you can retry now."


async def test_an_acp_notices_client_gets_the_warning_as_a_notice() -> None:
    async with (
        limited_session(Dialects(acp_notices=True)) as (session, link, _runtime, _),
        anyio.create_task_group() as tg,
    ):
        await _settled_prompt(session, tg)
        info = {"status": "allowed_warning", "resetsAt": RESET, "rateLimitType": "seven_day",
                "utilization": 0.8}  # fmt: skip
        await session.claude.on_message(parse_message(frame(info)), {}, EPOCH)
        notices = [u for u in link.sent if isinstance(u, dict) and u["sessionUpdate"] == "notice"]
        assert notices == [
            {"sessionUpdate": "notice", "severity": "warning",
             "title": "You've used 80% of your weekly limit \u00b7 resets 10:08pm (UTC)"}
        ]  # fmt: skip
        assert link.records() == []
        await session.claude.on_message(result_message(), {}, EPOCH)
