"""The permission mode and model a session was last using, read from the end of its transcript.

Theory of operation: Claude Code records the permission mode on each prompt entry of type
`user` (`"permissionMode": "acceptEdits"`) and the model that answered on each `assistant`
entry (`message.model`, the full id such as `claude-haiku-5-5`), checked against the real CLI
(2.1.332) in `tests/real_claude/test_sessions.py`. A resume needs only those two values, so the
file is read backwards (`transcripts.lines_newest_first`) until both are known: the cost does not
grow with the length of the session. The rules follow the reference adapter's `readResumedTail`
(docs/reference-adapter.md#resumed-tail):

- only main-thread entries count (a subagent's `isSidechain` entries do not);
- the model is the last real one (`fsm.claude.synthetic_messages.is_real_model`): Claude Code's
  own notices carry `<synthetic>`;
- the mode search stops at the first entry that has a mode, or at a prompt that has none (a
  Claude Code too old to record modes: nothing is known); a prompt is what replay calls one
  (`fsm.claude.transcript_entries.is_prompt_entry`);
- leaving plan mode through ExitPlanMode writes only a `plan_mode_exit` attachment, not the new
  mode, so a `plan` recorded before such an attachment is not current (no mode is known).

Lines without the marker a rule looks for are never parsed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapter.claude.transcripts import lines_newest_first
from adapter.wire.json_codec import decode_line
from fsm import is_prompt_entry, is_real_model

__all__ = ["Tail", "read_tail"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Tail:
    """What the transcript says the session last ran with (None: it does not say)."""

    mode: str | None = None
    model: str | None = None


def _real_model(model: object) -> str | None:
    return model.strip() if isinstance(model, str) and is_real_model(model) else None


class _Scan:
    """Visits the lines from the last to the first; `done` once both values are settled."""

    def __init__(self) -> None:
        self.mode: str | None = None
        self.model: str | None = None
        self.mode_settled = False
        self._plan_exited = False

    @property
    def done(self) -> bool:
        return self.mode_settled and self.model is not None

    def visit(self, line: bytes) -> None:
        wants_model = self.model is None and b'"assistant"' in line
        wants_mode = not self.mode_settled and (b'"user"' in line or b'"plan_mode_exit"' in line)
        if not (wants_model or wants_mode):
            return
        entry = _main_thread_entry(line)
        if entry is None:
            return
        if wants_model and entry.get("type") == "assistant":
            message = entry.get("message")
            self.model = _real_model(message.get("model") if isinstance(message, dict) else None)
        if wants_mode:
            self._visit_for_mode(entry)

    def _visit_for_mode(self, entry: dict[str, Any]) -> None:
        mode = entry.get("permissionMode") if entry.get("type") == "user" else None
        if isinstance(mode, str) and mode.strip():
            self.mode_settled = True
            if not (self._plan_exited and mode.strip() == "plan"):
                self.mode = mode.strip()
            return
        attachment = entry.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "plan_mode_exit":
            self._plan_exited = True
        elif is_prompt_entry(entry):
            self.mode_settled = True  # a prompt without a mode: this Claude Code records none


def _main_thread_entry(line: bytes) -> dict[str, Any] | None:
    try:
        entry = decode_line(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("isSidechain") is True:
        return None
    return entry


def read_tail(path: Path) -> Tail:
    """The last mode and model `path` records; an empty `Tail` when it cannot be read."""
    scan = _Scan()
    try:
        for line in lines_newest_first(path):
            if line.strip():
                scan.visit(line)
                if scan.done:
                    break
    except OSError as exc:
        log.warning("could not read the end of a transcript: %s", exc.strerror or "error")
        return Tail()
    return Tail(mode=scan.mode, model=scan.model)
