"""Token use and cost: `usage_update` during and after each turn (and after each
`rate_limit_event`, with Claude's limit windows), `usage` on the prompt response.

`used` is what the context holds: the last top-level request's input (cached or not) plus its
output. During a turn it follows the stream as the reference adapter does
(docs/reference-adapter.md#context-meter): each top-level
`message_start` snapshots the request's usage and each `message_delta` updates it (a missing or
null count keeps its value), and a `usage_update` goes out when `used` changed, with the model in
`_meta["_claude/model"]`; a finished message only updates the snapshot, silently; subagents and
Claude Code's `<synthetic>` messages never move it. `size` is the context window Claude's last
result reported for the model (`modelUsage[*].contextWindow`), else what Claude Code measured for
it (`get_context_usage`, asked when the session opens and after each model change:
`window_measured`; a model that is 1M natively), else 1,000,000 for a model whose picker entry or
id names `1m` (`sonnet[1m]`, "Sonnet (1M context)": from the session's first update,
`model_chosen`), else 200,000. `cost` is Claude's `total_cost_usd` as reported, on the
update after each turn that used something (a local command or a refused prompt sends none). The
prompt response's `usage` is the turn's own tokens (its results', as the reference adapter gives
them: docs/reference-adapter.md#context-meter), with `_meta.quota {token_count,
model_usage[]}`: the same tally and its split by model (`modelUsage` is a running total per
Claude process, so a result's share is what it added to the previous reading; a resumed
session's first reading only sets the baseline, its turn's row then comes from the result's own
usage). Whose a result's tokens are is the core's answer
(`fsm.ShowResult`, docs/decisions.md#result-owner), given with the result (`saw_result`'s
`for_turn`): Claude's own work (a background subagent's follow-up, a cancelled prompt's late
result, a result between turns) gets its `usage_update` but is never added to a turn. Numbers of
the wrong
type or out of range are ignored, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from acp.schema import Usage

from fsm import seeded_context_window

__all__ = ["UsageMeter"]

DEFAULT_CONTEXT_WINDOW = 200_000
_INPUT_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_KEYS = (*_INPUT_KEYS, "output_tokens")
_SYNTHETIC = "<synthetic>"


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53:
        return value
    return 0


def _cache_ttl(usage: Mapping[str, Any]) -> str | None:
    """How long the request's prompt cache lives (`1h`, `5m`), when its usage says so."""
    creation = usage.get("cache_creation")
    if not isinstance(creation, Mapping):
        return None
    if _count(creation, "ephemeral_1h_input_tokens") > 0:
        return "1h"
    if _count(creation, "ephemeral_5m_input_tokens") > 0:
        return "5m"
    return None


def _window(model_usage: object) -> int:
    """The largest context window a result reports (0: none)."""
    windows = [0]
    if isinstance(model_usage, Mapping):
        for entry in model_usage.values():
            if isinstance(entry, Mapping):
                windows.append(_count(entry, "contextWindow"))
    return max(windows)


_MODEL_KEYS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")
_RESULT_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
Tally = tuple[int, int, int, int]  # input, output, cached read, cached write
_ZERO: Tally = (0, 0, 0, 0)


def _tally(data: Mapping[str, Any], keys: tuple[str, str, str, str]) -> Tally:
    return (
        _count(data, keys[0]),
        _count(data, keys[1]),
        _count(data, keys[2]),
        _count(data, keys[3]),
    )


def _add(a: Tally, b: Tally) -> Tally:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def _readings(model_usage: object) -> dict[str, Tally]:
    if not isinstance(model_usage, Mapping):
        return {}
    return {
        model: _tally(entry, _MODEL_KEYS)
        for model, entry in model_usage.items()
        if isinstance(model, str) and isinstance(entry, Mapping)
    }


def _token_count(tally: Tally) -> dict[str, int]:
    return {
        "totalTokens": sum(tally),
        "inputTokens": tally[0],
        "cachedInputTokens": tally[2],
        "cachedWriteTokens": tally[3],
        "outputTokens": tally[1],
        "reasoningOutputTokens": 0,
    }


@dataclass(slots=True)
class UsageMeter:
    resumed: bool = False  # the session's Claude went on from a transcript (modelUsage baseline)
    used: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_read: int = 0
    cached_write: int = 0
    turns_reported: int = 0
    reported_window: int = 0  # what Claude's last result said (0: nothing yet)
    promised_window: int = 0  # what the chosen model's name promises (`1m`; 0: nothing)
    measured_window: int = 0  # what Claude Code measured for it (`get_context_usage`; 0: none)
    model: str | None = None  # of the latest top-level request
    sent: int | None = None  # the `used` the client last heard
    cache_ttl: str | None = None  # of the last top-level request that said (idle compaction)
    _snapshot: dict[str, int] = field(default_factory=dict)
    # The current user turn's own tokens, and by model; None: no result of it yet.
    _turn: Tally | None = None
    _turn_models: dict[str, Tally] = field(default_factory=dict)
    _reading: dict[str, Tally] | None = None  # the last `modelUsage` running total

    def turn_started(self) -> None:
        """A user turn begins: its tally starts at nothing."""
        self._turn = None
        self._turn_models = {}

    @property
    def size(self) -> int:
        if self.reported_window:
            return self.reported_window
        return (
            self.measured_window
            or self.promised_window
            or seeded_context_window((self.model,))
            or DEFAULT_CONTEXT_WINDOW
        )

    def model_chosen(self, window: int | None) -> None:
        """The session runs another model (or its first): the window its words promise
        (`fsm.seeded_context_window`), until Claude Code measures it or a result of it
        reports one."""
        self.promised_window = window or 0
        self.reported_window = self.measured_window = 0

    def window_measured(self, window: int) -> None:
        """Claude Code measured the current model's window (`get_context_usage`'s
        `rawMaxTokens`); a result's report still wins."""
        self.measured_window = window

    def saw_stream(self, event: object) -> dict[str, Any] | None:
        """One top-level stream event; the `usage_update` to send, if the context changed."""
        if not isinstance(event, Mapping):
            return None
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message")
            if not isinstance(message, Mapping) or message.get("model") == _SYNTHETIC:
                self._snapshot = {}
                return None
            model = message.get("model")
            self.model = model if isinstance(model, str) else self.model
            usage = message.get("usage")
            usage = usage if isinstance(usage, Mapping) else {}
            self._snapshot = {key: _count(usage, key) for key in _KEYS}
            self.cache_ttl = _cache_ttl(usage) or self.cache_ttl
        elif kind == "message_delta" and self._snapshot:
            usage = event.get("usage")
            if not isinstance(usage, Mapping):
                return None
            for key in _KEYS:
                if usage.get(key) is not None:
                    self._snapshot[key] = _count(usage, key)
        else:
            return None
        used = sum(self._snapshot.values())
        if not used or used == self.sent:
            return None
        self.used = self.sent = used
        update: dict[str, Any] = {"sessionUpdate": "usage_update", "used": used, "size": self.size}
        if self.model is not None:
            update["_meta"] = {"_claude/model": self.model}
        return update

    def compacted(self, metadata: object) -> dict[str, Any]:
        """Claude Code compacted the conversation (`compact_boundary`): the context is what it
        retained (`post_tokens`, 0 when not said); the `usage_update` that says so."""
        data: Mapping[str, Any] = metadata if isinstance(metadata, Mapping) else {}
        self.used = self.sent = _count(data, "post_tokens")
        self._snapshot = {}
        update: dict[str, Any] = {"sessionUpdate": "usage_update", "used": self.used}
        update["size"] = self.size
        if self.model is not None:
            update["_meta"] = {"_claude/model": self.model}
        return update

    def percent_used(self) -> int | None:
        """How full the context is, in whole percent; None before Claude reported any use."""
        return round(self.used / self.size * 100) if self.used else None

    def cleared(self) -> dict[str, Any]:
        """A plan exit cleared the context (a fresh Claude session): the `usage_update` that
        says it is empty. The turn's tokens so far stay counted (the prompt's usage)."""
        self.used = self.sent = 0
        self._snapshot = {}
        return {"sessionUpdate": "usage_update", "used": 0, "size": self.size}

    def saw_request(self, usage: object) -> None:
        """One top-level assistant message's `usage`: the context as of that request."""
        if isinstance(usage, Mapping):
            self.cache_ttl = _cache_ttl(usage) or self.cache_ttl
            total = sum(_count(usage, key) for key in _INPUT_KEYS)
            total += _count(usage, "output_tokens")
            if total:
                self.used = total

    def saw_result(
        self, usage: object, model_usage: object, cost: object, *, for_turn: bool
    ) -> dict[str, Any] | None:
        """Add one result's tokens to the session's, and to the current turn's when the core
        said it is the turn's (`for_turn`; else Claude's own work); the `usage_update` to send
        for it, None when it used nothing."""
        tally = _tally(usage, _RESULT_KEYS) if isinstance(usage, Mapping) else _ZERO
        if isinstance(usage, Mapping):
            self.turns_reported += 1
            self.input_tokens += tally[0]
            self.output_tokens += tally[1]
            self.cached_read += tally[2]
            self.cached_write += tally[3]
        reading = _readings(model_usage)
        if self._reading is None and self.resumed:
            # The first reading holds the transcript's history: only a baseline.
            key = self.model or next(iter(reading), None)
            share = {key: tally} if key is not None and any(tally) else {}
        else:
            share = self._increment(reading, self._reading or {})
        self._reading = reading
        if for_turn and isinstance(usage, Mapping):
            self._turn = _add(self._turn or _ZERO, tally)
            for model, row in share.items():
                self._turn_models[model] = _add(self._turn_models.get(model, _ZERO), row)
        self.reported_window = _window(model_usage) or self.reported_window
        spent = isinstance(cost, int | float) and not isinstance(cost, bool) and 0 < cost < 1e9
        if not any(tally) and not spent:
            return None  # nothing used (a local command, a refused prompt): nothing to say
        self.sent = self.used
        update: dict[str, Any] = {
            "sessionUpdate": "usage_update",
            "used": self.used,
            "size": self.size,
        }
        if isinstance(cost, int | float) and not isinstance(cost, bool) and 0 <= cost < 1e9:
            update["cost"] = {"amount": float(cost), "currency": "USD"}
        return update

    @staticmethod
    def _increment(current: dict[str, Tally], previous: dict[str, Tally]) -> dict[str, Tally]:
        """What each model's running total grew by (a total that fell restarted: all of it)."""
        grown: dict[str, Tally] = {}
        for model, now in current.items():
            base = previous.get(model, _ZERO)
            delta: Tally = (now[0] - base[0], now[1] - base[1], now[2] - base[2], now[3] - base[3])
            if min(delta) < 0:
                delta = now
            if any(delta):
                grown[model] = delta
        return grown

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
        """The turn's own tokens, for the prompt response (None before a result of it)."""
        if self._turn is None:
            return None
        tally = self._turn
        return Usage(
            input_tokens=tally[0],
            output_tokens=tally[1],
            cached_read_tokens=tally[2],
            cached_write_tokens=tally[3],
            total_tokens=sum(tally),
        )

    def quota(self) -> dict[str, Any] | None:
        """The prompt response's `_meta.quota`: the turn's tokens and their split by model."""
        if self._turn is None:
            return None
        return {
            "quota": {
                "token_count": _token_count(self._turn),
                "model_usage": [
                    {"model": model, "token_count": _token_count(row)}
                    for model, row in self._turn_models.items()
                ],
            }
        }
