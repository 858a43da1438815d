"""The follow-up prompt Claude Code predicts after a turn, as JetBrains AIR shows it: gray text
in an empty composer, which Tab fills (docs/client-authors.md, "JetBrains AIR").

Theory of operation: Claude Code writes at most one `prompt_suggestion` frame after a turn's
`result` (none on a session's first turn, after an API error, in plan mode, near the usage
limit). Only the first one after a result counts; its text is trimmed, and a blank one clears.
It travels as `session_info_update._meta.promptSuggestions {suggestions: [{text}]}` (the key
names no vendor), `{suggestions: []}` being the clear. A client prompt spends the prediction:
it is cleared when one is shown (a session that never showed one sends no clear), and so is a
conversation reset. A value equal to the one shown is not sent again. Every AIR client gets
it, and no other client. The reference adapter's `promptSuggestionsMeta` and
`publishPromptSuggestion` are the model (docs/reference-adapter.md#prompt-suggestions). Pure.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROMPT_SUGGESTIONS_KEY", "PromptSuggestions"]

PROMPT_SUGGESTIONS_KEY = "promptSuggestions"


def _update(text: str | None) -> dict[str, Any]:
    suggestions = [] if text is None else [{"text": text}]
    return {
        "sessionUpdate": "session_info_update",
        "_meta": {PROMPT_SUGGESTIONS_KEY: {"suggestions": suggestions}},
    }


class PromptSuggestions:
    """One session's predicted prompt. `air`: the client is an AIR client (the only one told)."""

    def __init__(self, *, air: bool) -> None:
        self.air = air
        self._shown: str | None = None
        self._expected = False  # a turn's result came: its prediction may follow

    def _publish(self, text: str | None) -> list[dict[str, Any]]:
        if text is None:
            self._expected = False  # a clear ends the window the result opened
        if self._shown == text or not self.air:
            return []
        self._shown = text
        return [_update(text)]

    def result(self) -> None:
        """A turn's `result`: Claude Code predicts the next prompt right after it."""
        self._expected = True

    def suggested(self, suggestion: object) -> list[dict[str, Any]]:
        """Claude Code's `prompt_suggestion` frame's `suggestion`."""
        if not self._expected:
            return []
        self._expected = False
        text = suggestion.strip() if isinstance(suggestion, str) else ""
        return self._publish(text or None)

    def prompted(self) -> list[dict[str, Any]]:
        """A client's prompt: the prediction is spent."""
        if self._shown is not None:
            return self._publish(None)
        self._expected = False
        return []

    def reset(self) -> list[dict[str, Any]]:
        """A conversation reset: the prediction follows from nothing any more."""
        return self._publish(None)
