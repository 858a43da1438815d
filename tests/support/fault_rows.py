"""The broken frames and deaths of the scripted Claude's fault scenarios, one row each: how the
turn must end and which agent text it must (or must not) still deliver, and how a run is checked
against its row (`check_fault`). Played in process for the rows whose Claude process lives
through the turn (`tests/shell/test_claude_faults.py`), and through one adapter per client mode
end to end for the rows whose process dies or breaks its stream
(`tests/e2e/test_claude_faults.py`); that every fault scenario has its row (or its own test
elsewhere) is checked in `tests/shell/test_scenario_tables.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from adapter.scripted_claude.broken_frames import AFTER_BAD_FRAME, BEFORE_BAD_FRAME
from fsm import TURN_NO_RESULT_TITLE
from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import folder_playing

LOST = "The connection to Claude was lost."


@dataclass(frozen=True, slots=True)
class Fault:
    scenario: str
    # "lost" (transport_lost), "no_result" (internal_error), "claude_error" (the error Claude
    # reported before it died) or "continues" (the turn goes on past a frame it skipped)
    outcome: str
    streamed: tuple[str, ...] = ()  # agent text the turn must still deliver, in both modes
    not_streamed: tuple[str, ...] = ()  # agent text that must not arrive (it came after death)
    # "continues": the frame was read after all (a value in it was ignored), so what it says
    # may be published (an api_retry warning), and nothing was skipped.
    readable: bool = False


_AROUND = (BEFORE_BAD_FRAME, AFTER_BAD_FRAME)

FAULTS: tuple[Fault, ...] = (
    # The process dies at every point of a turn.
    Fault("die_at_prompt", "lost"),
    Fault("exit_zero_at_prompt", "no_result"),
    Fault("crash_mid_turn", "lost", streamed=("Let me look at the repository first.",)),
    Fault("no_result", "no_result", streamed=("I'll start by reading the file.",)),
    # Claude said why the turn failed, then died before the result: its own words win over the
    # adapter's "connection lost" (spec, "Title and details"; the adapter's choice since
    # 4aee309, beyond docs/decisions.md#never-silent: "a process that dies is transport_lost").
    Fault("die_after_error", "claude_error", streamed=("Let me check that.",)),
    # The turn opens and goes idle before Claude said anything: it will never have a result.
    Fault("idle_at_prompt", "no_result"),
    # Lines and frames that cannot be read. A line cut off mid-JSON ends the SDK's stream (it is
    # unrecoverable: nothing later can complete it), which is a lost transport.
    Fault(
        "truncated_json_line", "lost", streamed=(BEFORE_BAD_FRAME,), not_streamed=(AFTER_BAD_FRAME,)
    ),
    # A result the SDK cannot parse is skipped; the turn then goes idle without one.
    Fault("result_missing_subtype", "no_result", streamed=("Scripted reply to: first prompt",)),
    # Everything else that does not end the stream is skipped and the turn goes on.
    Fault("non_json_line", "continues", streamed=_AROUND),
    Fault("unknown_frame_type", "continues", streamed=_AROUND),
    Fault("retry_attempt_not_a_number", "continues", streamed=_AROUND),
    Fault("assistant_content_not_a_list", "continues", streamed=_AROUND),
    Fault("rate_limit_event_without_info", "continues", streamed=_AROUND),
    Fault("text_block_not_a_string", "continues", streamed=_AROUND),
    Fault("assistant_message_not_an_object", "continues", streamed=_AROUND),
    Fault("rate_limit_info_not_an_object", "continues", streamed=_AROUND),
    Fault("tool_use_with_wrong_types", "continues", streamed=_AROUND),
    # A tool call with no name is still a tool call: it is shown under a generic title.
    Fault("tool_use_without_name", "continues", streamed=_AROUND, readable=True),
    Fault("tool_result_with_wrong_types", "continues", streamed=_AROUND),
    # A retry delay no float can hold is ignored; the retry itself is real (a warning).
    Fault("retry_delay_out_of_range", "continues", streamed=_AROUND, readable=True),
)


Answer = PromptResponse | acp.RequestError


def each_request_answered_once(adapter: Adapter) -> None:
    for method in ("session/new", "session/prompt"):
        counts = adapter.answers(method)
        assert all(count == 1 for count in counts.values()), (method, counts)


def record_on(answer: Answer) -> dict[str, Any] | None:
    assert isinstance(answer, PromptResponse), answer
    meta = answer.field_meta or {}
    record = meta.get("jetbrains", {}).get("air", {}).get("sessionFailure")
    assert record is None or isinstance(record, dict)
    return record


def check_lost(answer: Answer, *, capable: bool) -> None:
    """docs/decisions.md#never-silent: a process that dies is `transport_lost`
    (docs/decisions.md#actions: connection, new_session)."""
    if capable:
        assert isinstance(answer, PromptResponse), answer
        assert answer.stop_reason == "end_turn"
        record = record_on(answer)
        assert record is not None, answer
        assert {k: v for k, v in record.items() if k != "id"} == {
            "revision": 1,
            "category": "connection",
            "severity": "error",
            "title": LOST,
            "actions": ["new_session"],
        }
        assert record["id"].endswith(":error")
    else:
        assert isinstance(answer, acp.RequestError), answer
        assert answer.code == -32603
        assert answer.data == {"errorKind": "transport_lost"}
        assert str(answer) == f"Internal error: {LOST}"


def check_no_result(answer: Answer, *, capable: bool) -> None:
    """docs/decisions.md#never-silent: a stream that ends without a result is `internal_error`
    (service, retry)."""
    if capable:
        assert isinstance(answer, PromptResponse), answer
        assert answer.stop_reason == "end_turn"
        record = record_on(answer)
        assert record is not None, answer
        assert {k: v for k, v in record.items() if k != "id"} == {
            "revision": 1,
            "category": "service",
            "severity": "error",
            "title": TURN_NO_RESULT_TITLE,
            "actions": ["retry"],
        }
    else:
        assert isinstance(answer, acp.RequestError), answer
        assert answer.code == -32603
        # docs/decisions.md#legacy-clients leaves the kind open; the adapter names every result-less
        # turn `no_result`, whether Claude went idle or its stream closed.
        assert answer.data == {"errorKind": "no_result"}
        assert str(answer) == f"Internal error: {TURN_NO_RESULT_TITLE}"


def check_claude_rate_limit(answer: Answer, *, capable: bool) -> None:
    """The rate-limit error Claude reported, as it would have been with a result after it."""
    if capable:
        assert isinstance(answer, PromptResponse), answer
        record = record_on(answer)
        assert record is not None, answer
        assert {k: v for k, v in record.items() if k != "id"} == {
            "revision": 1,
            "category": "limit",
            "severity": "error",
            "title": TEXTS["rate_limit"],
            "actions": ["retry"],
        }
    else:
        assert isinstance(answer, acp.RequestError), answer
        assert answer.code == -32603
        assert answer.data == {"errorKind": "rate_limit"}


def check_success(answer: Answer) -> None:
    assert isinstance(answer, PromptResponse), answer
    assert answer.stop_reason == "end_turn"
    assert record_on(answer) is None


async def keeps_serving(adapter: Adapter, session: str) -> None:
    """A second prompt in the faulty session, and a prompt in a healthy session beside it, are
    answered as successes (after a dead process, by a replacement that resumed the session)."""
    again = await adapter.prompt(session, "second prompt")
    check_success(again)
    assert "Scripted reply to: second prompt" in adapter.agent_texts()
    other = await adapter.new_session(folder_playing(adapter, "healthy", "success"))
    answer = await adapter.prompt(other, "other session")
    check_success(answer)
    assert "Scripted reply to: other session" in adapter.agent_texts()
    each_request_answered_once(adapter)


# A hang bound for the faulty turn, never a speed requirement: each of these answers in a second
# or two; a turn still unanswered after this long would wait for ever.
FIRST_ANSWER_BOUND = TIMEOUT / 2


async def first_answer(adapter: Adapter, session: str) -> Answer:
    answer: Answer | None = None
    with contextlib.suppress(TimeoutError):
        answer = await asyncio.wait_for(adapter.prompt(session, "first prompt"), FIRST_ANSWER_BOUND)
    if answer is None:
        pytest.fail(f"the prompt was never answered (waited {FIRST_ANSWER_BOUND:.0f} s)")
    return answer


async def check_fault(adapter: Adapter, session: str, fault: Fault, *, capable: bool) -> None:
    """The first prompt in `session` (whose Claude plays `fault`) gets the one answer the row
    says, with the agent text it says; then the session and one beside it keep being served."""
    first = await first_answer(adapter, session)
    texts = adapter.agent_texts()
    if fault.outcome == "lost":
        check_lost(first, capable=capable)
    elif fault.outcome == "no_result":
        check_no_result(first, capable=capable)
    elif fault.outcome == "claude_error":
        check_claude_rate_limit(first, capable=capable)
    elif fault.readable:
        check_success(first)
        assert all(r["severity"] == "warning" for _, r in adapter.records())
    else:
        check_success(first)
        # Nothing was published about the frame that was skipped; it was logged.
        assert adapter.records() == []
        assert "skip" in adapter.stderr().lower()
    for text in fault.streamed:
        assert text in texts, (text, texts)
    for text in fault.not_streamed:
        assert text not in texts, (text, texts)
    await keeps_serving(adapter, session)
