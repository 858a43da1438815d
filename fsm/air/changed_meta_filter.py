"""What a JetBrains AIR client is not sent again: the `_meta` keys of a `tool_call_update` that
an earlier report of the same tool call already sent with the same value (docs/client-authors.md,
"JetBrains AIR"; docs/decisions.md#air-only-keys, docs/decisions.md#changed-meta-filter).

Theory of operation: AIR merges a tool call's `_meta` keys report by report, so a key it holds
need not come again; ACP defines no such merge, so only an AIR client's updates pass here. The
reference adapter's `ChangedMetaFilter` (docs/reference-adapter.md#changed-meta-filter) is the
model, rule for rule:

- Only a `tool_call` and a `tool_call_update` are read (`ChangedMetaFilter.FILTERED_UPDATES`);
  any other update passes as it is, so a sender may send it without the filter: a streamed
  chunk, the bulk of a turn, never goes through it.
- The compared keys are each key of `_meta.claudeCode`, each key of `_meta.jetbrains.air`, and
  the top-level flags `is_mcp_tool_call` and `terminal_info`. Nothing else is compared:
  `terminal_output`, `terminal_output_delta`, `terminal_exit` and `mcp_output_delta` carry data
  a client appends, and go out every time, as does every other key. A value is compared as its
  JSON text (key order counts, as in `JSON.stringify`).
- A `tool_call` starts its call afresh: what was held of it is forgotten, and what it carries is
  held. So does a `tool_call_update` of a call not held (never seen, or forgotten): it passes
  whole.
- A later `tool_call_update` loses each compared key whose value is the one held, and holds the
  changed ones. A namespace left empty goes (`claudeCode`, `jetbrains.air`, then `jetbrains` if
  nothing else is in it), and so does `_meta`. An update left with nothing but its kind and its
  tool call id is dropped (None).
- A namespace that is not an object is not compared, and an empty one goes from a `tool_call`
  too, as the reference's in-place pass removes it.
- At most `TOOL_CALL_LIMIT` calls are held; each report makes its call the most recent, and the
  least recent is forgotten past the bound.

One filter serves a connection, as the reference's serves its client: the held calls are keyed
by tool call id alone, whichever session (a native subagent's child one too) the update goes to.
The input is never changed: what loses a key is a copy. Pure.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

__all__ = [
    "COMPARED_FLAGS",
    "MERGED_NAMESPACES",
    "TOOL_CALL_LIMIT",
    "ChangedMetaFilter",
]

Wire = dict[str, Any]

# The `_meta` namespaces whose keys a client merges one by one (besides `jetbrains.air`).
MERGED_NAMESPACES: tuple[str, ...] = ("claudeCode",)
# The top-level `_meta` flags that stay the same for a tool call.
COMPARED_FLAGS: tuple[str, ...] = ("is_mcp_tool_call", "terminal_info")
# The number of tool calls whose `_meta` the filter remembers.
TOOL_CALL_LIMIT = 2048
# What an update carries besides what it is and which call it is about.
_IDENTITY = frozenset({"sessionUpdate", "toolCallId"})


def _as_record(value: object) -> dict[str, Any] | None:
    """An object (the reference's `asRecord`: not null, not an array), else None."""
    return value if isinstance(value, dict) else None


def _falsy(value: object) -> bool:
    """What JavaScript counts false: null (or absent), false, 0, NaN, the empty string."""
    if value is None or value is False:
        return True
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return not value or value != value  # 0, 0.0, "", NaN
    return False


def _has_no_keys(value: object) -> bool:
    """`Object.keys(value).length === 0`: an empty object, array or string, or a number or a
    boolean (which have no keys)."""
    if isinstance(value, dict | list | str):
        return not value
    return True


def _json(value: object) -> str | None:
    """The value's JSON text, the form values are compared in; None when it has none (then it
    is never taken for unchanged)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


class ChangedMetaFilter:
    """A connection's filter of unchanged `_meta` keys, for an AIR client (see the module's
    docstring). `apply` each update as it leaves, after the native subagent routing (which reads
    `claudeCode.toolName` and `claudeCode.parentToolUseId` on every update)."""

    __slots__ = ("_sent",)

    # The updates the filter reads: a tool call's reports. It passes any other as it is and
    # holds nothing of it, so a sender may send one past the filter without asking it
    # (docs/decisions.md#changed-meta-filter).
    FILTERED_UPDATES: ClassVar[tuple[str, ...]] = ("tool_call", "tool_call_update")

    def __init__(self) -> None:
        # Tool call id -> the JSON text of each compared key its reports sent
        # (`claudeCode.toolName`, `jetbrains.air.mcp`, `terminal_info`), least recent first.
        self._sent: dict[Any, dict[str, str]] = {}

    def __len__(self) -> int:
        """How many tool calls are held."""
        return len(self._sent)

    def apply(self, update: Wire) -> Wire | None:
        """The update without its unchanged keys (`update` itself when nothing goes), or None
        when nothing is left of it."""
        kind = update.get("sessionUpdate")
        if kind not in self.FILTERED_UPDATES:
            return update
        tool_call_id = update.get("toolCallId")
        try:
            held = self._sent.get(tool_call_id)
        except TypeError:
            # An id no dict can key (an object): never one seen before, as a JavaScript map
            # keys an object by its identity. It passes whole, and nothing is held of it.
            return update
        meta = update.get("_meta")
        if kind == "tool_call" or held is None:
            held = {}
            self._remember(tool_call_id, held)
            kept = _record_and_strip(held, meta, strip=False)
            return update if kept is meta else {**update, "_meta": kept}
        self._remember(tool_call_id, held)
        if _falsy(meta):
            return update
        kept = _record_and_strip(held, meta, strip=True)
        if not _has_no_keys(kept):
            return update if kept is meta else {**update, "_meta": kept}
        # No key left in `_meta` (or none to begin with: `{}` goes too, as in the reference).
        filtered = {key: value for key, value in update.items() if key != "_meta"}
        return filtered if any(key not in _IDENTITY for key in filtered) else None

    def _remember(self, tool_call_id: Any, held: dict[str, str]) -> None:
        """Hold `held` as the most recent call's, and forget the least recent past the bound."""
        self._sent.pop(tool_call_id, None)
        self._sent[tool_call_id] = held
        if len(self._sent) > TOOL_CALL_LIMIT:
            del self._sent[next(iter(self._sent))]


def _merged(held: dict[str, str], prefix: str, values: dict[str, Any], strip: bool) -> Wire:
    """`values` without the keys whose JSON text `held` has under `prefix` (with `strip`);
    each key kept is held with its value's text. `values` itself when none goes."""
    kept: Wire | None = None
    for key, value in values.items():
        text = _json(value)
        name = prefix + key
        if strip and text is not None and held.get(name) == text:
            if kept is None:
                kept = dict(values)
            del kept[key]
            continue
        if text is None:
            held.pop(name, None)
        else:
            held[name] = text
    return values if kept is None else kept


def _record_and_strip(held: dict[str, str], meta: object, *, strip: bool) -> Any:
    """`meta` as it goes out: its compared keys held, the unchanged ones gone (with `strip`),
    a namespace left empty gone. `meta` itself when nothing goes; else a copy (the namespaces
    it changes are copies too)."""
    if _falsy(meta) or not isinstance(meta, dict):
        # Nothing to compare in a value that is not an object (the reference reads no key of
        # one).
        return meta
    out: Wire | None = None

    def put(key: str, value: Any) -> None:
        nonlocal out
        if out is None:
            out = dict(meta)
        out[key] = value

    def drop(key: str) -> None:
        nonlocal out
        if out is None:
            out = dict(meta)
        del out[key]

    for namespace in MERGED_NAMESPACES:
        values = _as_record(meta.get(namespace))
        if values is None:
            continue
        kept = _merged(held, f"{namespace}.", values, strip)
        if not kept:
            drop(namespace)
        elif kept is not values:
            put(namespace, kept)
    jetbrains = _as_record(meta.get("jetbrains"))
    air = _as_record(jetbrains.get("air")) if jetbrains is not None else None
    if jetbrains is not None and air is not None:
        kept_air = _merged(held, "jetbrains.air.", air, strip)
        if not kept_air:
            rest = {key: value for key, value in jetbrains.items() if key != "air"}
            if rest:
                put("jetbrains", rest)
            else:
                drop("jetbrains")
        elif kept_air is not air:
            put("jetbrains", {**jetbrains, "air": kept_air})
    for flag in COMPARED_FLAGS:
        if flag not in meta:
            continue
        text = _json(meta[flag])
        if strip and text is not None and held.get(flag) == text:
            drop(flag)
        elif text is None:
            held.pop(flag, None)
        else:
            held[flag] = text
    return meta if out is None else out
