"""The scripted Claude's permission rules: settings files, modes and `updatedPermissions`.

Theory of operation: like Claude Code, the fake decides a tool call itself before it asks the
host: `bypassPermissions` allows everything, `acceptEdits` allows file edits, and an allow rule
(`"Bash"` or `"Bash(npm test:*)"`) from a settings file or an earlier answer allows a matching
call. Settings files are read only for the sources named by `--setting-sources` (user:
`<config>/settings.json`, project: `<cwd>/.claude/settings.json`, local:
`<cwd>/.claude/settings.local.json`). An allow answer's `updatedPermissions` are applied the
way Claude Code applies them: `setMode` switches the mode, `addRules` adds rules, and a
destination other than `session` is also written to that settings file, so it holds in the
next session.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["EDIT_TOOLS", "Rules", "rule_matches", "settings_path"]

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

_SOURCE_FOR_DESTINATION = {
    "userSettings": "user",
    "projectSettings": "project",
    "localSettings": "local",
}


def settings_path(source: str, *, config: Path, cwd: str) -> Path:
    if source == "user":
        return config / "settings.json"
    name = "settings.json" if source == "project" else "settings.local.json"
    return Path(cwd) / ".claude" / name


def rule_matches(rule: str, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
    """`Tool` matches every call of the tool; `Tool(prefix:*)` a command starting with
    prefix; `Tool(text)` a command equal to text."""
    if "(" not in rule:
        return rule == tool_name
    name, _, content = rule.partition("(")
    if name != tool_name or not content.endswith(")"):
        return False
    content = content[:-1]
    command = str(tool_input.get("command", ""))
    if content.endswith(":*"):
        return command.startswith(content[:-2])
    return command == content


def _rule_text(rule: Mapping[str, Any]) -> str | None:
    name = rule.get("toolName")
    if not isinstance(name, str) or not name:
        return None
    content = rule.get("ruleContent")
    return f"{name}({content})" if isinstance(content, str) and content else name


@dataclass(kw_only=True)
class Rules:
    config: Path
    cwd: str
    sources: tuple[str, ...] = ()
    allow: list[str] = field(default_factory=list)

    def load(self) -> None:
        for source in self.sources:
            path = settings_path(source, config=self.config, cwd=self.cwd)
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            permissions = data.get("permissions") if isinstance(data, dict) else None
            allow = permissions.get("allow") if isinstance(permissions, dict) else None
            if isinstance(allow, list):
                self.allow.extend(str(rule) for rule in allow)

    def default_mode(self) -> str | None:
        """`permissions.defaultMode` from the settings files read (the last one wins)."""
        mode = None
        for source in self.sources:
            path = settings_path(source, config=self.config, cwd=self.cwd)
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            permissions = data.get("permissions") if isinstance(data, dict) else None
            if isinstance(permissions, dict) and isinstance(permissions.get("defaultMode"), str):
                mode = permissions["defaultMode"]
        return mode

    def ultracode(self) -> bool:
        """The settings files' `ultracode: true` (the last one that names it wins), which
        starts Claude Code with ultracode asked for (`model_features`)."""
        on = False
        for source in self.sources:
            path = settings_path(source, config=self.config, cwd=self.cwd)
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and "ultracode" in data:
                on = data["ultracode"] is True
        return on

    def decide(self, mode: str, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        """True when the call is allowed without asking."""
        if mode == "bypassPermissions":
            return True
        if mode == "acceptEdits" and tool_name in EDIT_TOOLS:
            return True
        return any(rule_matches(rule, tool_name, tool_input) for rule in self.allow)

    def apply(self, updates: object) -> str | None:
        """Apply `updatedPermissions`; returns the new mode when one was set."""
        new_mode = None
        for update in updates if isinstance(updates, list) else []:
            if not isinstance(update, dict):
                continue
            if update.get("type") == "setMode" and isinstance(update.get("mode"), str):
                new_mode = update["mode"]
            elif update.get("type") == "addRules" and update.get("behavior") == "allow":
                rules = [_rule_text(r) for r in update.get("rules") or [] if isinstance(r, dict)]
                added = [r for r in rules if r]
                self.allow.extend(added)
                self._persist(str(update.get("destination", "session")), added)
        return new_mode

    def _persist(self, destination: str, rules: list[str]) -> None:
        source = _SOURCE_FOR_DESTINATION.get(destination)
        if source is None or not rules:
            return
        path = settings_path(source, config=self.config, cwd=self.cwd)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        data = data if isinstance(data, dict) else {}
        permissions = data.setdefault("permissions", {})
        allow = permissions.setdefault("allow", [])
        allow.extend(r for r in rules if r not in allow)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
