"""The scripted Claude's skills, found in its working folder as Claude Code finds them.

Theory of operation: each `<cwd>/.claude/skills/<dir>/SKILL.md` is a skill command named by its
frontmatter's `name:` (else the folder), listed in the initialize answer's commands and, with
its path, in the context usage answer's `skills.skillFrontmatter`; each
`<cwd>/.claude/commands/<name>.md` is a prompt command, listed in both too (Claude Code lists
its path beside the skills'). A skill under `<cwd>/.agents/skills/<dir>/SKILL.md` is a command
only: Claude Code gives no file for it, so an adapter has to look for it. Where the folder has
any skill, Claude Code's bundled `simplify` skill is listed too, without a file. A folder
without skills changes nothing.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["skill_commands", "skill_frontmatter"]

_BUNDLED = "simplify"
_NAME = re.compile(r"^name:[ \t]*(\S.*?)\s*$", re.M)


def _skills(cwd: str, container: str) -> list[tuple[str, str]]:
    base = os.path.join(cwd, container)
    try:
        folders = sorted(os.listdir(base))
    except OSError:
        return []
    found = []
    for folder in folders:
        path = os.path.join(base, folder, "SKILL.md")
        try:
            with open(path, encoding="utf-8") as file:
                head = file.read(4096)
        except OSError:
            continue
        match = _NAME.search(head)
        found.append((match.group(1) if match else folder, path))
    return found


def _prompt_commands(cwd: str) -> list[tuple[str, str]]:
    base = os.path.join(cwd, ".claude", "commands")
    try:
        names = sorted(n for n in os.listdir(base) if n.endswith(".md"))
    except OSError:
        return []
    return [(name[: -len(".md")], os.path.join(base, name)) for name in names]


def skill_frontmatter(cwd: str) -> list[dict[str, Any]]:
    """`skills.skillFrontmatter` of the context usage answer."""
    listed = _skills(cwd, ".claude/skills") + _prompt_commands(cwd)
    found: list[dict[str, Any]] = [{"name": n, "path": p} for n, p in listed]
    if found or _skills(cwd, ".agents/skills"):
        found.append({"name": _BUNDLED})
    return found


def skill_commands(cwd: str) -> list[dict[str, Any]]:
    """The commands the folder's skills and prompt commands add to the initialize answer."""
    names = [n for n, _ in _skills(cwd, ".claude/skills") + _skills(cwd, ".agents/skills")]
    names += [n for n, _ in _prompt_commands(cwd)]
    if names:
        names.append(_BUNDLED)
    return [{"name": n, "description": f"The {n} skill", "argumentHint": ""} for n in names]
