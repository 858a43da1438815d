"""Claude Code's reports of what it could not do that no ACP update carries: lines for the log.

Theory of operation (docs/reference-adapter.md#unsaved-history): the reference logs three of
Claude Code's system frames and tells the client nothing, and so do we:

- `system/init`'s `plugin_errors` (`[{plugin, type, path?, message}]`): a plugin that did not
  load. Said once per list: a later `init` (a fresh Claude process) with the same list says
  nothing new;
- `system/session_writes_lost` (`{lost: [...], error_code}`): a full disk (ENOSPC) or a used-up
  quota (EDQUOT) kept Claude Code from saving transcript lines or its settings file; it comes
  as Claude Code exits, after the last result, so no turn is open to carry it;
- `system/mirror_error` (`{error}`): the SDK could not copy the history to a session store.

Each field is checked for its type; what does not fit is left out, never a crash. The lines are
Claude Code's words and may name private paths: the log masks them as it masks every line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["ProblemReports"]


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


class ProblemReports:
    """A session's: which plugin failures it logged already."""

    def __init__(self) -> None:
        self._plugins_said: str | None = None

    def lines(self, subtype: object, data: object) -> tuple[str, ...]:
        """What to log of a system frame (`subtype`, its raw `data`); none for any other."""
        if not isinstance(data, Mapping):
            return ()
        if subtype == "init":
            return self._plugin_errors(data.get("plugin_errors"))
        if subtype == "session_writes_lost":
            lost = data.get("lost")
            what = (
                [item for item in lost if isinstance(item, str)] if isinstance(lost, list) else []
            )
            code = _text(data, "error_code") or "unknown error"
            return (
                f"Claude Code could not save {' and '.join(what) or 'its session files'} "
                f"({code}); resuming may miss part of the conversation",
            )
        if subtype == "mirror_error":
            return (f"failed to persist history: {_text(data, 'error') or 'unknown error'}",)
        return ()

    def _plugin_errors(self, errors: object) -> tuple[str, ...]:
        if not isinstance(errors, list) or not errors:
            return ()
        said = json.dumps(errors, sort_keys=True, default=str)
        if said == self._plugins_said:
            return ()
        self._plugins_said = said
        lines = []
        for error in errors:
            if not isinstance(error, Mapping):
                continue
            plugin = _text(error, "plugin") or "?"
            kind = _text(error, "type") or "unknown"
            path = _text(error, "path")
            where = f" from {path}" if path else ""
            message = _text(error, "message") or "no reason given"
            lines.append(f"Plugin {plugin} failed to load ({kind}){where}: {message}")
        return tuple(lines)
