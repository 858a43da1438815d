"""`claude-acp demo --list`: the scenarios grouped by what each one shows a person.

A scenario missing from the groups, or in two of them, is a mistake `tests/e2e/test_demo.py`
catches; one the groups name that no longer exists is too.
"""

from __future__ import annotations

__all__ = ["AIR_HEADING", "GROUPS", "declares_air", "listing"]

# The group played by a client that declares JetBrains AIR's extension set (`AIR_OPT_IN`).
AIR_HEADING = "JetBrains AIR (the client declares the AIR set)"

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Everyday work",
        (
            "success",
            "thinking_and_tools",
            "coding_turn",
            "every_tool",
            "streamed_answer",
            "tool_stream",
            "tool_progress",
            "commands_changed",
            "background_subagent",
            "reloaded_history",
        ),
    ),
    (
        "Permissions and questions",
        (
            "permission",
            "edit_permission",
            "permission_rules",
            "permission_hints",
            "ask_question",
            "ask_questions",
            "mcp_elicit",
            "mcp_elicit_url",
            "mcp_elicit_url_confirmed",
            "mcp_elicit_url_no_id",
            "mcp_elicit_url_no_url",
        ),
    ),
    ("Plan mode", ("plan_mode", "plan_clear", "plan_clear_slow_start", "plan_clear_start_fails")),
    (
        "Compaction",
        (
            "compaction",
            "compaction_cut_short",
            "idle_compaction",
            "idle_compaction_slow",
            "idle_compaction_fails",
            "idle_compaction_unwanted",
            "idle_compaction_rate_limited",
            "idle_compaction_short_cache",
            "idle_compaction_small",
            "idle_compaction_limited",
        ),
    ),
    (
        "Sign-in and billing failures",
        (
            "authentication_failed",
            "oauth_org_not_allowed",
            "synthetic_login",
            "verification_required",
            "cloud_credential_error",
            "billing_error",
        ),
    ),
    (
        "Limits",
        (
            "rate_limit",
            "rate_limit_every_turn",
            "usage_limit",
            "usage_limit_resets",
            "budget_limit",
            "turn_limit",
        ),
    ),
    (
        "Retries and the API's other failures",
        (
            "retry_then_success",
            "retry_then_rate_limit",
            "overloaded",
            "server_error",
            "unknown_error",
            "invalid_request",
            "model_not_found",
            "max_output_tokens",
            "structured_output_retries",
            "broken_stream",
            "stream_then_overloaded",
            "hostile_error",
        ),
    ),
    (
        "What Claude says about itself",
        (
            "model_fallback",
            "model_fallback_local",
            "model_typed",
            "rename_typed",
            "remote_control",
            "refusal",
            "mcp_problems",
            "mcp_unknown_shapes",
        ),
    ),
    (
        "Claude's process failing",
        (
            "reconnect_then_transport_loss",
            "worker_shutdown",
            "crash_mid_turn",
            "no_result",
            "die_at_prompt",
            "exit_zero_at_prompt",
            "die_after_error",
            "die_after_result",
            "idle_at_prompt",
            "idle_without_result",
            "hang",
            "ignore_sigterm",
            "exit_before_handshake",
            "close_stdout",
            "close_stdout_and_linger",
        ),
    ),
    (
        "Claude Code that will not start, and says why",
        (
            "startup_proxy_invalid",
            "startup_gateway_signin_required",
            "startup_org_pin_mismatch",
            "startup_cwd_unavailable",
        ),
    ),
    (
        "Malformed output from Claude",
        (
            "garbage",
            "non_json_line",
            "truncated_json_line",
            "unknown_frame_type",
            "bad_stream",
            "retry_attempt_not_a_number",
            "retry_delay_out_of_range",
            "assistant_content_not_a_list",
            "assistant_message_not_an_object",
            "text_block_not_a_string",
            "tool_use_with_wrong_types",
            "tool_use_without_name",
            "tool_result_with_wrong_types",
            "rate_limit_event_without_info",
            "rate_limit_info_not_an_object",
            "result_missing_subtype",
        ),
    ),
    (
        AIR_HEADING,
        (
            "air_permission",
            "air_plan_file",
            "air_diff_patch",
            "air_skill",
            "air_repeated_meta",
            "air_subagents",
            "air_subagent_config",
        ),
    ),
    ("Size and load (the benchmarks)", ("large_message", "long_stream", "huge_tool_result")),
)


def declares_air(scenario: str) -> bool:
    """Whether the demo plays `scenario` as a JetBrains AIR client (its group's)."""
    return any(heading == AIR_HEADING and scenario in names for heading, names in GROUPS)


def listing(descriptions: dict[str, str]) -> str:
    """Every group under its heading, each scenario with its description; a scenario of
    `descriptions` no group names is listed last, under "Other", so none is ever hidden."""
    width = max(len(name) for name in descriptions)
    grouped = {name for _, names in GROUPS for name in names}
    rest = tuple(name for name in descriptions if name not in grouped)
    blocks = []
    for heading, names in (*GROUPS, *((("Other", rest),) if rest else ())):
        shown = [f"  {n:<{width}}  {descriptions[n]}" for n in names if n in descriptions]
        if shown:
            blocks.append("\n".join([f"{heading}:", *shown]))
    return "\n\n".join(blocks)
