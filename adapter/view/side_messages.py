"""What Claude Code says beside the model's answer, so that no turn ends blank.

- `system/local_command_output`: a local command's output (`/context`, `/cost`, …) as agent
  text; the model never ran, so nothing else would show it.
- `system/informational`: a free-form line of Claude Code's (why a Stop or UserPromptSubmit
  hook blocked the turn, a warning). A client that declared `session.notices` gets an ACP
  `notice` at its level (`warning` a warning, `notice`/`suggestion` info; `info` is transcript
  noise, sent to nobody as a notice); any other client a bold-labelled line of agent text
  (`**Warning:** …`), tagged `_meta.claudeCode.kind = "informational"`, as the reference
  adapter does (docs/reference-adapter.md#notices). Once per tool use: Claude Code repeats a
  hook's line for each of its events.
- The `result` text, when the turn showed nothing else: a local-only command (`/context`,
  `/heapdump`, `/extra-usage`), or a turn that generated no output tokens and delivered no
  text (a cache-replayed turn that never streamed, a command answered in the result alone),
  unless it only repeats a notice already shown. A result the core says is no prompt's
  (Claude's own work, docs/decisions.md#result-owner) never reaches the feed this way.

Claude Code's own words are masked like any text it writes about the session
(docs/decisions.md#secrets: docs/decisions.md#secrets); a notice's title is one visible line
(docs/decisions.md#titles: titles).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from fsm import LOCAL_ONLY_COMMANDS, TITLE_LIMIT, redact, visible

__all__ = ["SideMessages"]

Wire = dict[str, Any]

_LEVELS = frozenset({"info", "notice", "suggestion", "warning"})
# Light markdown a notice (plain text) would show as literal marks.
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.MULTILINE)
_STRONG = re.compile(r"(\*\*|__)(?=\S)([\s\S]*?\S)\1")
_CODE = re.compile(r"(?<![\w`])`([^`\n]+)`(?![\w`])")


def _normal(text: str) -> str:
    """Whitespace collapsed: a notice repeated by the result is recognised."""
    return " ".join(text.split())


def _plain(text: str) -> str:
    return _CODE.sub(r"\1", _STRONG.sub(r"\2", _HEADING.sub("", text)))


def _text_chunk(text: str, message_id: str | None = None, meta: Wire | None = None) -> Wire:
    update: Wire = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
    }
    if message_id:
        update["messageId"] = message_id
    if meta:
        update["_meta"] = meta
    return update


class SideMessages:
    """Per session: what the current turn showed, and the tool uses already noticed."""

    def __init__(self, *, notices: bool, private: Callable[[], tuple[str, ...]] = tuple) -> None:
        self._notices = notices  # the client declared `session.notices`
        self._private = private
        self._local_only = False
        self._delivered = False  # the turn showed text (an answer, a command's output)
        self._noticed_texts: set[str] = set()
        self._noticed_tool_uses: set[str] = set()

    def prompted(self, text: str) -> None:
        """A user turn begins with this prompt text."""
        first = text.lstrip().split(" ", 1)[0] if text.strip() else ""
        self._local_only = first in LOCAL_ONLY_COMMANDS
        self._delivered = False
        self._noticed_texts.clear()

    def delivered(self) -> None:
        """The turn showed some of the model's text."""
        self._delivered = True

    def system(self, subtype: str, data: Mapping[str, Any]) -> list[Wire]:
        if subtype == "local_command_output":
            content = data.get("content")
            if not isinstance(content, str) or not content.strip():
                return []
            self._delivered = True
            uuid = data.get("uuid")
            return [
                _text_chunk(
                    redact(content, self._private()), uuid if isinstance(uuid, str) else None
                )
            ]
        if subtype == "informational":
            return self._informational(data)
        return []

    def _informational(self, data: Mapping[str, Any]) -> list[Wire]:
        content = data.get("content")
        if not isinstance(content, str) or not content.strip():
            return []
        level = data.get("level")
        level = level if isinstance(level, str) and level in _LEVELS else "info"
        if self._notices and level == "info":
            return []
        tool_use = data.get("tool_use_id")
        if isinstance(tool_use, str) and tool_use:
            if tool_use in self._noticed_tool_uses:
                return []  # Claude Code repeats a hook's line for the same tool use
            self._noticed_tool_uses.add(tool_use)
        content = redact(content, self._private())
        meta = {"claudeCode": {"kind": "informational", "level": level}}
        if not self._notices:
            self._delivered = True
            text = content if level == "info" else f"**{level.capitalize()}:** {content}"
            return [_text_chunk(text, meta=meta)]
        self._noticed_texts.add(_normal(content))
        severity = "warning" if level == "warning" else "info"
        fallback = (
            "Claude reported a warning" if severity == "warning" else "Claude reported a notice"
        )
        update: Wire = {
            "sessionUpdate": "notice",
            "severity": severity,
            **_split(content, fallback),
        }
        update["_meta"] = meta
        return [update]

    def result(self, message: Any, *, own_work: bool) -> list[Wire]:
        """The result's text, when the turn would otherwise end without showing it; never for
        Claude's `own_work` (the core's word on whose the result is)."""
        text = getattr(message, "result", None)
        if own_work or getattr(message, "subtype", None) != "success":
            return []
        if getattr(message, "is_error", False) or not isinstance(text, str) or not text.strip():
            return []
        if not self._local_only:
            usage = getattr(message, "usage", None)
            output = usage.get("output_tokens") if isinstance(usage, Mapping) else None
            if self._delivered or (isinstance(output, int) and output != 0):
                return []
            if _normal(text) in self._noticed_texts:
                return []
        self._delivered = True
        return [_text_chunk(redact(text, self._private()))]


def _split(text: str, fallback: str) -> Wire:
    """A notice's title (its first line, when short enough) and description (the rest)."""
    plain = _plain(text).strip()
    first, _, rest = plain.partition("\n")
    first, rest = first.strip(), rest.strip()
    if len(first) > TITLE_LIMIT:
        return {"title": fallback, "description": plain}
    fields: Wire = {"title": visible(first)}
    if rest:
        fields["description"] = rest
    return fields
