"""What each scripted Claude scenario's first turn yields through the bare SDK, as one table.

Messages are compared as short summaries (`summary`). The table is checked against the scenario
list in process (`tests/shell/test_scripted_claude_setup.py`) and each row run through the real
SDK in `tests/e2e/test_scripted_claude.py`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from claude_agent_sdk import (
    AssistantMessage,
    Message,
    RateLimitEvent,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from adapter.scripted_claude import TEXTS
from adapter.scripted_claude.faults import STARTUP_FAILURES, hostile_text

SONNET = "claude-sonnet-4-5"
INIT = "system:init"
TEXT = f"assistant[{SONNET}]:text"
OK = "result:success:ok:None:completed:end_turn"
EMIT_STATES = {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"}


def retry(status: int | None, kind: str) -> str:
    return f"api_retry:{status}/{kind}"


def synthetic_error(kind: str) -> str:
    return f"assistant[<synthetic>]!{kind}:text"


def api_result(status: int | None) -> str:
    return f"result:success:error:{status}:api_error:stop_sequence"


def summary(message: Message) -> str:
    # One line per message with the fields the adapter keys on.
    if isinstance(message, SystemMessage):
        data = message.data
        if message.subtype == "api_retry":
            return retry(data["error_status"], data["error"])
        if message.subtype == "session_state_changed":
            return f"state:{data['state']}"
        return f"system:{message.subtype}"
    if isinstance(message, AssistantMessage):
        kinds = []
        for block in message.content:
            if isinstance(block, TextBlock):
                kinds.append("text")
            elif isinstance(block, ThinkingBlock):
                kinds.append("thinking")
            elif isinstance(block, ToolUseBlock):
                kinds.append(f"tool_use:{block.name}")
        error = f"!{message.error}" if message.error else ""
        refusal = "/refusal" if message.stop_reason == "refusal" else ""
        return f"assistant[{message.model}]{error}:{','.join(kinds)}{refusal}"
    if isinstance(message, UserMessage):
        assert isinstance(message.content, list)
        block = message.content[0]
        assert isinstance(block, ToolResultBlock)
        return "user:tool_result!" if block.is_error else "user:tool_result"
    if isinstance(message, RateLimitEvent):
        return f"rate_limit_event:{message.rate_limit_info.status}"
    if isinstance(message, ResultMessage):
        outcome = "error" if message.is_error else "ok"
        return (
            f"result:{message.subtype}:{outcome}:{message.api_error_status}:"
            f"{message.terminal_reason}:{message.stop_reason}"
        )
    return type(message).__name__


@dataclass(frozen=True, slots=True, kw_only=True)
class Expect:
    """What one scenario's first turn yields through the SDK."""

    turn: tuple[str, ...]
    # "result" / "idle": stopped there, "eof": the stream ended, else an exception's
    # "<class>:<exit code>"; "connect:..." when `connect()` itself raised.
    ending: str = "result"
    text: str | None = None  # Claude's text on the last assistant message and in the result
    env: dict[str, str] = field(default_factory=dict)
    interrupt: bool = False  # interrupt after the first assistant message


def api_failure(kind: str, text_key: str, status: int | None, *retries: str) -> Expect:
    return Expect(
        turn=(INIT, *retries, synthetic_error(kind), api_result(status)), text=TEXTS[text_key]
    )


def limit(subtype: str, reason: str, text_key: str, *before: str) -> Expect:
    return Expect(
        turn=(INIT, *before, f"result:{subtype}:error:None:{reason}:None"), text=TEXTS[text_key]
    )


TOOL = f"assistant[{SONNET}]:tool_use:Bash"
R429 = retry(429, "rate_limit")

EXPECTED: dict[str, Expect] = {
    "success": Expect(turn=(INIT, TEXT, OK)),
    "thinking_and_tools": Expect(
        turn=(INIT, f"assistant[{SONNET}]:thinking", TOOL, "user:tool_result", TEXT, OK)
    ),
    # No can_use_tool callback, so no --permission-prompt-tool: the fake denies by itself.
    "permission": Expect(turn=(INIT, TOOL, "user:tool_result!", TEXT, OK)),
    "retry_then_success": Expect(turn=(INIT, R429, R429, TEXT, OK)),
    "retry_then_rate_limit": api_failure("rate_limit", "rate_limit", 429, R429, R429),
    "reconnect_then_transport_loss": Expect(
        turn=(INIT, retry(None, "unknown")), ending="ProcessError:1"
    ),
    "authentication_failed": api_failure(
        "authentication_failed",
        "authentication_failed",
        401,
        retry(401, "authentication_failed"),
        retry(401, "authentication_failed"),
    ),
    "oauth_org_not_allowed": api_failure("oauth_org_not_allowed", "oauth_org_not_allowed", 403),
    "synthetic_login": Expect(
        turn=(INIT, "assistant[<synthetic>]:text", api_result(None)),
        text=TEXTS["synthetic_login"],
    ),
    "verification_required": api_failure("verification_required", "verification_required", 403),
    "cloud_credential_error": api_failure("cloud_credential_error", "cloud_credential_error", None),
    "billing_error": api_failure("billing_error", "billing_error", 400),
    "rate_limit": api_failure("rate_limit", "rate_limit", 429),
    "max_output_tokens": api_failure("max_output_tokens", "max_output_tokens", None, TEXT),
    "usage_limit": api_failure("rate_limit", "usage_limit", 429, "rate_limit_event:rejected"),
    "budget_limit": limit("error_max_budget_usd", "budget_exhausted", "budget_limit", TEXT),
    "turn_limit": limit("error_max_turns", "max_turns", "turn_limit", TOOL, "user:tool_result"),
    "structured_output_retries": limit(
        "error_max_structured_output_retries",
        "structured_output_retry_exhausted",
        "structured_output_retries",
    ),
    "invalid_request": api_failure("invalid_request", "invalid_request", 400),
    "model_not_found": api_failure("model_not_found", "model_not_found", 404),
    "overloaded": api_failure(
        "server_error", "overloaded", 529, retry(529, "overloaded"), retry(529, "overloaded")
    ),
    "server_error": api_failure("server_error", "server_error", 500, retry(500, "server_error")),
    "unknown_error": api_failure("quantum_flux", "unknown_error", None),
    "worker_shutdown": Expect(turn=(INIT, "system:worker_shutting_down"), ending="eof"),
    "crash_mid_turn": Expect(turn=(INIT, TEXT), ending="ProcessError:-9"),
    "model_fallback": Expect(turn=(INIT, "system:model_refusal_fallback", TEXT, OK)),
    "refusal": Expect(
        turn=(
            INIT,
            f"assistant[{SONNET}]:text/refusal",
            "result:success:ok:None:completed:refusal",
        ),
        text=TEXTS["refusal"],
    ),
    "no_result": Expect(turn=(INIT, TEXT), ending="eof"),
    "garbage": Expect(turn=(INIT,), ending="CLIJSONDecodeError:None"),
    "hang": Expect(
        turn=(INIT, TEXT, "result:error_during_execution:error:None:aborted_streaming:None"),
        text=TEXTS["interrupted"],
        interrupt=True,
    ),
    "exit_before_handshake": Expect(turn=(), ending="connect:ProcessError:1"),
    # Without CLAUDE_CODE_STARTUP_FAILURE_RESULTS (the bare SDK sets none), stderr alone.
    **{
        f"startup_{reason}": Expect(turn=(), ending="connect:ProcessError:1")
        for reason in STARTUP_FAILURES
    },
    "idle_without_result": Expect(
        turn=("state:running", INIT, TEXT, "state:idle"), ending="idle", env=EMIT_STATES
    ),
    # The SDK only notices closed stdout once the process exits (2 s later, status 0).
    "close_stdout": Expect(turn=(INIT, TEXT), ending="eof"),
}


# The fault scenarios (scripted_claude/faults.py), through the bare SDK: what it does with each
# death and each broken line or frame, which is what the adapter then has to handle.
EXPECTED.update(
    {
        "die_after_error": Expect(
            turn=(INIT, TEXT, synthetic_error("rate_limit")), ending="ProcessError:1"
        ),
        "idle_at_prompt": Expect(
            turn=("state:running", INIT, "state:idle"), ending="idle", env=EMIT_STATES
        ),
        # A non-JSON line is skipped; the turn goes on.
        "non_json_line": Expect(turn=(INIT, TEXT, TEXT, OK)),
        # A JSON line cut off mid-object ends the stream: nothing later could complete it.
        "truncated_json_line": Expect(turn=(INIT, TEXT), ending="CLIJSONDecodeError:None"),
        # A frame of a type it does not know is skipped.
        "unknown_frame_type": Expect(turn=(INIT, TEXT, TEXT, OK)),
        # A known type missing a required field raises from the bare SDK's iterator (the
        # adapter parses frames itself so that it can skip them instead).
        "assistant_content_not_a_list": Expect(turn=(INIT, TEXT), ending="MessageParseError:None"),
        "rate_limit_event_without_info": Expect(turn=(INIT, TEXT), ending="MessageParseError:None"),
        "result_missing_subtype": Expect(turn=(INIT, TEXT), ending="MessageParseError:None"),
        "hostile_error": Expect(
            turn=(INIT, synthetic_error("server_error"), api_result(500)),
            text=hostile_text(os.environ.get("HOME", "/root")),
        ),
    }
)

# Through the bare SDK this one never ends (it waits for the process to exit); the adapter's
# bounded wait is what ends it, so it is tested there (test_adapter_faults.py). The others are
# fault scenarios whose frames carry no session id of this test's session (they are written
# verbatim, `RawFrame`), whose parse raises outside the SDK's error types (a TypeError the bare
# iterator does not wrap), whose process is gone before a second turn, or whose later turns are
# not the success turn: each is asserted through the adapter (test_adapter_faults.py,
# test_memory.py). The two that die at the prompt write no frame at all (nothing to compare).
ADAPTER_ONLY = {
    "close_stdout_and_linger",
    "die_at_prompt",
    "exit_zero_at_prompt",
    "die_after_result",
    "text_block_not_a_string",
    "retry_attempt_not_a_number",
    "retry_delay_out_of_range",
    "assistant_message_not_an_object",
    "rate_limit_info_not_an_object",
    "tool_use_with_wrong_types",
    "tool_use_without_name",
    "tool_result_with_wrong_types",
    "rate_limit_every_turn",
    # The session's state as the editor shows it: test_session_state.py.
    "tool_stream",
    "tool_progress",
    "compaction",
    # Cancelled mid-compaction: tests/e2e/test_compaction_cut_short.py.
    "compaction_cut_short",
    # Idle compaction: tests/shell/test_idle_compaction.py.
    "idle_compaction",
    "idle_compaction_slow",
    "idle_compaction_fails",
    "idle_compaction_unwanted",
    "idle_compaction_small",
    "idle_compaction_short_cache",
    "idle_compaction_limited",
    "idle_compaction_rate_limited",
    # Notices: tests/shell/test_notice_forms.py.
    "mcp_problems",
    "mcp_unknown_shapes",
    # Claude asks: test_questions.py, test_permission_hints.py.
    "ask_question",
    "ask_questions",
    "permission_hints",
    # JetBrains AIR's permission heading and plan file: tests/shell/test_air_extensions.py.
    "air_permission",
    "air_plan_file",
    "air_diff_patch",
    "air_subagents",  # ... its native subagent sessions: tests/shell/test_air_subagents.py
    "air_subagent_config",  # ... their configuration: tests/shell/test_air_subagent_config.py
    "air_skill",
    "air_repeated_meta",  # ... what is not sent again: tests/shell/test_changed_meta.py
    "mcp_elicit",  # an MCP server asks: test_mcp_elicitation.py
    "mcp_elicit_url",  # ... to sign in on a page: test_mcp_url_elicitation.py
    "mcp_elicit_url_no_id",
    "mcp_elicit_url_no_url",
    "mcp_elicit_url_confirmed",
    # Its turns wait for a reset on the wall clock: tests/e2e/test_usage_limits.py.
    "usage_limit_resets",
    # Everyday coding turns: tests/shell/test_turn.py and the benchmark.
    "coding_turn",
    "every_tool",
    "broken_stream",
    "stream_then_overloaded",
    "bad_stream",
    "long_stream",
    "streamed_answer",
    "large_message",  # test_large_messages.py (over the SDK's default 1 MiB buffer)
    "huge_tool_result",  # test_huge_result.py and the benchmark (one 100 MiB result)
    "ignore_sigterm",  # test_signals.py (stopped only by SIGKILL)
    # The session-feature scenarios are driven through the adapter (test_adapter_session.py).
    "plan_mode",
    "permission_rules",
    "commands_changed",
    "edit_permission",
    # The picker following Claude Code's own model switches (test_model_following.py).
    "model_typed",
    "model_fallback_local",
    # `/rename` typed in the chat names the live session (test_live_titles.py).
    "rename_typed",
    # `/remote-control` is answered without a turn (test_remote_control.py).
    "remote_control",
    # A session reloaded with Claude Code's plumbing in its history (test_replay_markers.py).
    "reloaded_history",
    # Leaving plan mode in a fresh context is driven through the adapter (test_plan_clear.py).
    "plan_clear",
    "plan_clear_slow_start",
    "plan_clear_start_fails",
    # A background subagent and a steered follow-up: the demo plays it
    # (tests/e2e/test_demo.py); tests/e2e/test_background_and_steering.py checks the frames.
    "background_subagent",
}
