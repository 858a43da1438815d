"""How the demo prints the turn's own updates: cards, diffs, the plan, usage and the title."""

from __future__ import annotations

from typing import Any

__all__ = ["describe_turn_update"]

_MARKS = {"pending": "\u25cb", "in_progress": "\u25d4", "completed": "\u25cf"}


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _content_lines(content: Any) -> list[str]:
    lines: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "diff":
            old = len(str(block.get("oldText") or "").splitlines())
            new = len(str(block.get("newText") or "").splitlines())
            lines.append(f"      diff {block.get('path')}  ({old} \u2192 {new} lines)")
        elif block.get("type") == "terminal":
            lines.append(f"      terminal {block.get('terminalId')}")
        elif isinstance(block.get("content"), dict):
            inner = block["content"]
            shown = inner.get("text") or f"[{inner.get('type')}]"
            lines.append(f"      {_short(str(shown))}")
    return lines


def describe_turn_update(head: str, update: dict[str, Any]) -> list[str] | None:
    """Lines for a card, plan, usage or title update; None for other kinds."""
    kind = update.get("sessionUpdate")
    if kind in ("tool_call", "tool_call_update"):
        # An update names only what changed: no "(None)" for a kind it did not send.
        title = f"{update['title']} " if "title" in update else ""
        if "title" in update and update.get("kind") is not None:
            title = f"{update['title']} ({update['kind']}) "
        status = f"[{update['status']}]" if "status" in update else ""
        lines = [f"{head}: {title}{status}".rstrip()]
        for location in update.get("locations") or []:
            line = f":{location['line']}" if location.get("line") is not None else ""
            lines.append(f"      at {location.get('path')}{line}")
        return lines + _content_lines(update.get("content"))
    if kind == "plan":
        entries = update.get("entries") or []
        return [f"{head}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"] + [
            f"      {_MARKS.get(e.get('status'), '?')} {e.get('content')}" for e in entries
        ]
    if kind == "usage_update":
        cost = update.get("cost")
        paid = f", ${cost['amount']:.4f}" if isinstance(cost, dict) else ""
        lines = [f"{head}: {update.get('used')} of {update.get('size')} tokens{paid}"]
        return lines + _limit_lines(update.get("_meta"))
    if kind == "notice":
        return [f"{head}: [{update.get('severity')}] {update.get('title')}"]
    if kind == "session_info_update" and "title" in update:
        return [f'{head}: title "{update["title"]}"']
    if kind == "available_commands_update":
        commands = [
            c.get("name") for c in update.get("availableCommands") or [] if isinstance(c, dict)
        ]
        shown = ", ".join(f"/{name}" for name in commands[:6])
        more = f", \u2026 ({len(commands)} in all)" if len(commands) > 6 else ""
        return [f"{head}: {shown}{more}" if commands else f"{head}: none"]
    if kind == "current_mode_update":
        return [f"{head}: mode {update.get('currentModeId')}"]
    if kind == "config_option_update":
        options = [o for o in update.get("configOptions") or [] if isinstance(o, dict)]
        values = ", ".join(f"{o.get('id')}={o.get('currentValue')}" for o in options)
        return [f"{head}: {values or 'none'}"]
    return None


def _limit_lines(meta: object) -> list[str]:
    # The usage limit windows a rate_limit_event reported (a client's meter).
    info = meta.get("_claude/rateLimit") if isinstance(meta, dict) else None
    windows = info.get("unifiedWindows") if isinstance(info, dict) else None
    if not isinstance(windows, dict):
        return [f"      limit: {info.get('status')}"] if isinstance(info, dict) else []
    lines = []
    for name, window in windows.items():
        if isinstance(window, dict):
            used = window.get("utilization")
            percent = f"{used:.0%}" if isinstance(used, int | float) else "?"
            lines.append(f"      limit {name}: {percent} used, {window.get('status')}")
    return lines
