"""The shipped API-failure scenarios: one per way a turn's API call can fail (retries, auth,
limits, refusals, a crash mid-turn), plus the retry that recovers.

Split from `scenarios.py`, which registers them in place, so `scenario_names()` keeps its order.
Claude's texts live in `texts.py`. `api_failure` is the real CLI's shape for a failed call,
reused by the test suite's random sessions (`tests/support/scripted/randomized.py`).
"""

from __future__ import annotations

from adapter.scripted_claude.steps import (
    ApiRetry,
    AssistantError,
    Exit,
    KillSelf,
    ModelRefusalFallback,
    NoResponse,
    RateLimitEvent,
    Refusal,
    Reply,
    Result,
    Scenario,
    Stderr,
    Synthetic,
    Text,
    ToolUse,
    TurnScript,
    WorkerShuttingDown,
)
from adapter.scripted_claude.texts import TEXTS

__all__ = ["API_SCENARIOS", "DEFAULT_SCENARIO", "LIST_FILES", "api_failure", "single_turn"]

# What `--simulate` plays unless told otherwise: a warning series, then a terminal failure.
DEFAULT_SCENARIO = "retry_then_rate_limit"
# A Bash call listing the working directory, and what it printed.
LIST_FILES = ToolUse(
    name="Bash",
    input={"command": "ls", "description": "List files in the working directory"},
    result="README.md\nsrc\ntests",
)


def api_failure(
    kind: str,
    text: str,
    status: int | None,
    retries: tuple[ApiRetry, ...] = (),
    before: TurnScript = (),
) -> TurnScript:
    # The real CLI's shape for a failed API call: retries (if any), the synthetic error message,
    # then a result that says "success" but is_error, with the HTTP status and "api_error".
    return (
        *retries,
        *before,
        AssistantError(error=kind, text=text, api_error_status=status),
        Result(
            is_error=True,
            result=text,
            api_error_status=status,
            terminal_reason="api_error",
            stop_reason="stop_sequence",
        ),
    )


def _retries(count: int, status: int | None, kind: str) -> tuple[ApiRetry, ...]:
    return tuple(
        ApiRetry(
            attempt=n,
            max_retries=10,
            retry_delay_ms=500 * 2 ** (n - 1),
            error_status=status,
            error=kind,
        )
        for n in range(1, count + 1)
    )


def _limit(subtype: str, text: str, reason: str, before: TurnScript) -> TurnScript:
    return (
        *before,
        Result(
            subtype=subtype,
            is_error=True,
            errors=(text,),
            terminal_reason=reason,
            stop_reason=None,
        ),
    )


def single_turn(name: str, description: str, turn: TurnScript) -> Scenario:
    """A scenario whose first turn plays `turn` (later turns play the plain success turn)."""
    return Scenario(name=name, description=description, turns=(turn,))


_one = single_turn

API_SCENARIOS: tuple[Scenario, ...] = (
    _one(
        "retry_then_success",
        "Two 429 retries, then the request goes through.",
        (*_retries(2, 429, "rate_limit"), Reply(), Result()),
    ),
    _one(
        DEFAULT_SCENARIO,
        "Two 429 retries, then the CLI gives up with a rate_limit error; turn 2 succeeds.",
        api_failure("rate_limit", TEXTS["rate_limit"], 429, _retries(2, 429, "rate_limit")),
    ),
    _one(
        "reconnect_then_transport_loss",
        "A retry without an HTTP response, then the process exits 1 mid-turn.",
        (
            ApiRetry(
                attempt=1,
                max_retries=10,
                retry_delay_ms=1000,
                error_status=None,
                error="unknown",
                no_response=NoResponse(waited_ms=30000, retry_wait_ms=1000),
            ),
            Stderr(line=TEXTS["transport_loss"]),
            Exit(code=1),
        ),
    ),
    _one(
        "authentication_failed",
        "401 twice, then the invalid-API-key error.",
        api_failure(
            "authentication_failed",
            TEXTS["authentication_failed"],
            401,
            _retries(2, 401, "authentication_failed"),
        ),
    ),
    _one(
        "oauth_org_not_allowed",
        "The organization does not allow subscription (OAuth) access.",
        api_failure("oauth_org_not_allowed", TEXTS["oauth_org_not_allowed"], 403),
    ),
    _one(
        "synthetic_login",
        "A <synthetic> login notice without an error field, then an error result.",
        (
            Synthetic(text=TEXTS["synthetic_login"]),
            Result(
                is_error=True,
                result=TEXTS["synthetic_login"],
                terminal_reason="api_error",
                stop_reason="stop_sequence",
            ),
        ),
    ),
    _one(
        "verification_required",
        "403: the organization must verify its identity.",
        api_failure("verification_required", TEXTS["verification_required"], 403),
    ),
    _one(
        "cloud_credential_error",
        "Bedrock credentials could not be loaded (no HTTP request was made).",
        api_failure("cloud_credential_error", TEXTS["cloud_credential_error"], None),
    ),
    _one(
        "billing_error",
        "400 credit balance too low (not retried).",
        api_failure("billing_error", TEXTS["billing_error"], 400),
    ),
    _one(
        "rate_limit",
        "429 without retries.",
        api_failure("rate_limit", TEXTS["rate_limit"], 429),
    ),
    _one(
        "max_output_tokens",
        "The answer starts, then exceeds the output token maximum.",
        api_failure(
            "max_output_tokens",
            TEXTS["max_output_tokens"],
            None,
            before=(Text(text="Here is the complete listing of every file:"),),
        ),
    ),
    _one(
        "usage_limit",
        "A rejected rate_limit_event, then the synthetic spend-limit message.",
        api_failure(
            "rate_limit", TEXTS["usage_limit"], 429, before=(RateLimitEvent(status="rejected"),)
        ),
    ),
    _one(
        "budget_limit",
        "The --max-budget-usd limit is reached.",
        _limit(
            "error_max_budget_usd",
            TEXTS["budget_limit"],
            "budget_exhausted",
            (Text(text="Let me start by reading the code."),),
        ),
    ),
    _one(
        "turn_limit",
        "The --max-turns limit is reached after a tool call.",
        _limit("error_max_turns", TEXTS["turn_limit"], "max_turns", (LIST_FILES,)),
    ),
    _one(
        "structured_output_retries",
        "No valid structured output after the allowed retries.",
        _limit(
            "error_max_structured_output_retries",
            TEXTS["structured_output_retries"],
            "structured_output_retry_exhausted",
            (),
        ),
    ),
    _one(
        "invalid_request",
        "400: the prompt is too long.",
        api_failure("invalid_request", TEXTS["invalid_request"], 400),
    ),
    _one(
        "model_not_found",
        "404: the selected model does not exist.",
        api_failure("model_not_found", TEXTS["model_not_found"], 404),
    ),
    _one(
        "overloaded",
        "529 twice (retried as overloaded), then a server_error.",
        api_failure("server_error", TEXTS["overloaded"], 529, _retries(2, 529, "overloaded")),
    ),
    _one(
        "server_error",
        "500 once, then a server_error.",
        api_failure("server_error", TEXTS["server_error"], 500, _retries(1, 500, "server_error")),
    ),
    _one(
        "unknown_error",
        "An error kind the SDK has never heard of.",
        api_failure("quantum_flux", TEXTS["unknown_error"], None),
    ),
    _one(
        "worker_shutdown",
        "worker_shutting_down, then exit 0 without a result.",
        (WorkerShuttingDown(reason="host_exit"), Exit(code=0)),
    ),
    _one(
        "crash_mid_turn",
        "A text, then SIGKILL. A resumed process plays turn 2 (success).",
        (Text(text="Let me look at the repository first."), KillSelf()),
    ),
    _one(
        "model_fallback",
        "The model refused; the CLI fell back to another model and answered.",
        (
            ModelRefusalFallback(
                original_model="claude-opus-4-5",
                fallback_model="claude-sonnet-4-5",
                content=TEXTS["model_fallback"],
                api_refusal_category="cyber",
                api_refusal_explanation=None,
            ),
            Reply(),
            Result(),
        ),
    ),
    _one(
        "refusal",
        "The model refuses: stop_reason refusal with stop_details.explanation.",
        (
            Refusal(explanation=TEXTS["refusal"]),
            Result(result=TEXTS["refusal"], stop_reason="refusal"),
        ),
    ),
    _one(
        "no_result",
        "A text, then exit 0 without a result.",
        (Text(text="I'll start by reading the file."), Exit(code=0)),
    ),
)
