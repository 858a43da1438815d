"""Frames Claude Code writes that the SDK's parser does not know and drops (it returns None
for an unknown `type`), but the editor has a use for: they reach the session as they came.

- `tool_progress`: a running tool's heartbeat (`tool_use_id`, `elapsed_time_seconds`, …), which
  turns its card `in_progress` (`adapter.view.turn_view`).
- `active_goal`: the goal Claude Code pursues (`value`, or null once cleared), which JetBrains
  AIR shows (`fsm.air.goals`).
- `prompt_suggestion`: the prompt Claude Code predicts the user sends next, written after a
  turn's result when asked for (`--prompt-suggestions`), which JetBrains AIR shows
  (`fsm.air.prompt_suggestions`).
- `command_lifecycle`: what became of a user message Claude Code was sent (`queued`, `started`,
  then one of `completed`, `cancelled`, `discarded`, `refused`): `started` is where a waiting
  prompt's turn begins (docs/decisions.md#turn-begins-at-echo), and an end before it answers
  that prompt (docs/decisions.md#prompt-ended-unstarted); a client that asked for Claude's
  messages raw (`_claude/sdkMessage`) gets them all, as the reference adapter forwards them
  (docs/reference-adapter.md#raw-messages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["UNPARSED_TYPES", "UnparsedFrame"]

UNPARSED_TYPES = frozenset(
    {"tool_progress", "active_goal", "prompt_suggestion", "command_lifecycle"}
)


@dataclass(frozen=True, slots=True)
class UnparsedFrame:
    """One such frame, as Claude wrote it (the SDK's shape: `type` is one of `UNPARSED_TYPES`)."""

    data: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.data.get("type"))
