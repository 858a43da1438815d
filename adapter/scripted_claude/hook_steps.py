"""Claude Code's hooks in the scripted Claude: the step that fires one, and the callbacks the
SDK registers (`hook_player.py` plays the step; split so the steps never import the session).

Theory of operation: the SDK registers its hook callbacks in `initialize` (`hooks: {event:
[{matcher, hookCallbackIds, timeout?}]}`); the fake keeps them (`SessionState.hooks`). A
`FireHook` step sends, for each callback registered for its event, a `hook_callback` control
request with the hook's input (`hook_event_name` and the session's common fields added, as
the real CLI adds them) and waits for its answer before the turn goes on, as the CLI does; an
event nobody registered for sends nothing. Every answer is recorded (`hook_answer`) for the
tests. Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["FireHook", "callback_ids"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FireHook:
    """Claude Code runs the hooks of `event` with `input` (e.g. PostCompact's `trigger` and
    `compact_summary`) and waits for them."""

    event: str
    input: Mapping[str, object]


def callback_ids(hooks: object) -> dict[str, list[str]]:
    """The callback ids `initialize`'s `hooks` registers, by event (odd shapes ignored)."""
    found: dict[str, list[str]] = {}
    if not isinstance(hooks, Mapping):
        return found
    for event, matchers in hooks.items():
        for matcher in matchers if isinstance(matchers, list) else ():
            ids = matcher.get("hookCallbackIds") if isinstance(matcher, Mapping) else None
            for ident in ids if isinstance(ids, list) else ():
                if isinstance(event, str) and isinstance(ident, str):
                    found.setdefault(event, []).append(ident)
    return found
