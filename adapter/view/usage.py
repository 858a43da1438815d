"""Token use and cost: a `usage_update` after each turn (and after each `rate_limit_event`, with
Claude's limit windows), `usage` on the prompt response.

`used` is what the context holds after the turn: the last top-level request's input (cached or
not) plus its output. `size` is the context window Claude's result reports for the model
(`modelUsage[*].contextWindow`), else 200,000. `cost` is Claude's `total_cost_usd` as reported.
The response's `usage` sums every turn's tokens for the session (ACP: "across session").
Numbers of the wrong type or out of range are ignored, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from acp.schema import Usage

__all__ = ["UsageMeter"]

DEFAULT_CONTEXT_WINDOW = 200_000
_INPUT_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53:
        return value
    return 0


def _window(model_usage: object) -> int:
    windows = [0]
    if isinstance(model_usage, Mapping):
        for entry in model_usage.values():
            if isinstance(entry, Mapping):
                windows.append(_count(entry, "contextWindow"))
    return max(windows) or DEFAULT_CONTEXT_WINDOW


@dataclass(slots=True)
class UsageMeter:
    used: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_read: int = 0
    cached_write: int = 0
    turns_reported: int = 0
    size: int = DEFAULT_CONTEXT_WINDOW  # the context window Claude last reported

    def saw_request(self, usage: object) -> None:
        """One top-level assistant message's `usage`: the context as of that request."""
        if isinstance(usage, Mapping):
            total = sum(_count(usage, key) for key in _INPUT_KEYS)
            total += _count(usage, "output_tokens")
            if total:
                self.used = total

    def saw_result(self, usage: object, model_usage: object, cost: object) -> dict[str, Any]:
        """Add one turn's tokens; the `usage_update` to send for it."""
        if isinstance(usage, Mapping):
            self.turns_reported += 1
            self.input_tokens += _count(usage, "input_tokens")
            self.output_tokens += _count(usage, "output_tokens")
            self.cached_read += _count(usage, "cache_read_input_tokens")
            self.cached_write += _count(usage, "cache_creation_input_tokens")
        self.size = _window(model_usage)
        update: dict[str, Any] = {
            "sessionUpdate": "usage_update",
            "used": self.used,
            "size": self.size,
        }
        if isinstance(cost, int | float) and not isinstance(cost, bool) and 0 <= cost < 1e9:
            update["cost"] = {"amount": float(cost), "currency": "USD"}
        return update

    def rate_limit_update(self, info: Mapping[str, Any]) -> dict[str, Any]:
        """The `usage_update` after a `rate_limit_event`: the context as last reported, and
        Claude's windows (utilization, reset, status) verbatim under `_claude/rateLimit`."""
        return {
            "sessionUpdate": "usage_update",
            "used": self.used,
            "size": self.size,
            "_meta": {"_claude/rateLimit": dict(info)},
        }

    def response_usage(self) -> Usage | None:
        """The session's tokens so far, for the prompt response (None before any report)."""
        if not self.turns_reported:
            return None
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cached_read_tokens=self.cached_read,
            cached_write_tokens=self.cached_write,
            total_tokens=self.input_tokens
            + self.output_tokens
            + self.cached_read
            + self.cached_write,
        )
