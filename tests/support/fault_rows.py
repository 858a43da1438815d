"""The broken frames and deaths of the scripted Claude's fault scenarios, one row each: how the
turn must end and which agent text it must (or must not) still deliver. Driven through one
adapter per client mode in `tests/e2e/test_claude_faults.py`; that every fault scenario has its
row (or its own test elsewhere) is checked in `tests/shell/test_scenario_tables.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapter.scripted_claude.broken_frames import AFTER_BAD_FRAME, BEFORE_BAD_FRAME


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
