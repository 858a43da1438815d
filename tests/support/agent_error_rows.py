"""The `agent_error` dialect's expectations, shared by its in-process tests
(`tests/shell/test_agent_error_dialect.py`) and the end-to-end one for a Claude that dies
mid-turn (`tests/e2e/test_agent_error.py`): the update each scripted failure becomes, and
`check_one_agent_error`, what a turn that failed so must have sent."""

from __future__ import annotations

from typing import Any

from acp import RequestError
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from tests.support.harness import OPT_IN, Adapter

TITLE_ONLY = {"sessionUpdate", "title", "updatedAt"}

AGENT_ERROR_ONLY: dict[str, Any] = {"agentError": {"version": 1}}
BOTH: dict[str, Any] = {**OPT_IN, **AGENT_ERROR_ONLY}

# scenario -> (type, retryable, message, category)
ERRORS: dict[str, tuple[str, bool, str, str]] = {
    "rate_limit": ("rate_limit", True, TEXTS["rate_limit"], "limit"),
    "billing_error": ("budget", False, TEXTS["billing_error"], "limit"),
    "usage_limit": ("budget", False, TEXTS["usage_limit"], "limit"),
    "budget_limit": ("budget", False, TEXTS["budget_limit"], "limit"),
    "turn_limit": ("context_overflow", False, TEXTS["turn_limit"], "limit"),
    "max_output_tokens": ("context_overflow", False, TEXTS["max_output_tokens"], "limit"),
    "authentication_failed": ("auth", False, TEXTS["authentication_failed"], "access"),
    "verification_required": ("auth", True, TEXTS["verification_required"], "access"),
    "invalid_request": ("unknown", False, TEXTS["invalid_request"], "request"),
    "overloaded": ("provider_unavailable", True, TEXTS["overloaded"], "service"),
    "unknown_error": ("provider_unavailable", True, TEXTS["unknown_error"], "service"),
    "crash_mid_turn": (
        "provider_unavailable",
        False,
        "The connection to Claude was lost.",
        "connection",
    ),
}


def agent_errors(adapter: Adapter) -> list[tuple[int, dict[str, Any]]]:
    """(frame index, update) for every agent_error update the client received."""
    return [
        (index, frame.message["params"]["update"])
        for index, frame in enumerate(adapter.frames)
        if frame.direction == "incoming"
        and frame.message.get("method") == "session/update"
        and frame.message["params"]["update"].get("sessionUpdate") == "agent_error"
    ]


def prompt_response_index(adapter: Adapter) -> int:
    prompt_ids = {
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "session/prompt"
    }
    return next(
        i
        for i, f in enumerate(adapter.frames)
        if f.direction == "incoming" and f.message.get("id") in prompt_ids
    )


def check_one_agent_error(
    adapter: Adapter, scenario: str, answer: PromptResponse | RequestError
) -> None:
    """One `agent_error` update before the prompt's response, as `ERRORS[scenario]` says."""
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # Only the agent_error dialect was asked for: no sessionFailure record anywhere.
    assert adapter.records() == []
    [(index, update)] = agent_errors(adapter)
    assert index < prompt_response_index(adapter)
    kind, retryable, message, category = ERRORS[scenario]
    error = update["error"]
    assert update["stopReason"] == "error"
    assert error["type"] == kind
    assert error["message"] == message
    assert error["retryable"] is retryable
    assert error["source"] == "claude"
    assert error["detail"]["category"] == category
    assert error["detail"]["id"].endswith(":error")
    # Retry warnings are not sent in this dialect (docs/decisions.md#agent-error-only-clients:
    # nothing for retry progress), so they are no revisions either: the error is the incident's
    # first.
    assert error["detail"]["revision"] == 1
    assert set(error) <= {
        "type",
        "message",
        "retryable",
        "detail",
        "retry_after_seconds",
        "reset_at_epoch_ms",
        "source",
    }
