"""A tool call's `_meta` as a JetBrains AIR client holds it: merged report by report.

An AIR client's `tool_call_update` carries only the `_meta` keys that changed since an earlier
report of the call (`fsm.ChangedMetaFilter`); the client merges `claudeCode` and
`jetbrains.air` key by key and takes any other top-level key whole. Tests that read a card as
the client shows it merge its reports with this.
"""

from __future__ import annotations

from typing import Any

__all__ = ["merged_meta"]


def merged_meta(held: Any, update: Any) -> Any:
    """`held` (a card's `_meta` so far) with an update's `_meta` merged in, as AIR merges it;
    `held` when the update has none."""
    if not isinstance(update, dict):
        return held
    if not isinstance(held, dict):
        return update
    out = {**held, **update}
    if isinstance(held.get("claudeCode"), dict) and isinstance(update.get("claudeCode"), dict):
        out["claudeCode"] = {**held["claudeCode"], **update["claudeCode"]}
    held_jb, new_jb = held.get("jetbrains"), update.get("jetbrains")
    if isinstance(held_jb, dict) and isinstance(new_jb, dict):
        jetbrains = {**held_jb, **new_jb}
        if isinstance(held_jb.get("air"), dict) and isinstance(new_jb.get("air"), dict):
            jetbrains["air"] = {**held_jb["air"], **new_jb["air"]}
        out["jetbrains"] = jetbrains
    return out
