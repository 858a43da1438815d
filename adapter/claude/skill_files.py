"""Where a skill's `SKILL.md` is: Claude Code's own list of skill files, and a look on disk
for the skills it does not list (JetBrains AIR's skill paths, docs/client-authors.md).

Theory of operation: Claude Code says where its skills are in its context usage answer
(`skills.skillFrontmatter`, `{name, path}`); an entry whose path is not a `SKILL.md` is a
prompt command of `.claude/commands`, no skill, and an entry without a path is a skill without
a file (bundled with Claude Code). A skill command it does not list, and the `Skill` tool's
skill, are looked up the way the reference adapter does (`resolveSkillPath`:
docs/reference-adapter.md#skill-paths): under `.claude/skills` and `.agents/skills` of the
session's folder, then of the home folder, and for a `<scope>:<name>` spelling first in the
scope's own folder and the plugins' folders. A
candidate `<container>/<name>/SKILL.md` counts while its frontmatter declares that name or
none; otherwise the containers are scanned for a `SKILL.md` that declares it (unless a
`.claude/commands/<name>.md` prompt command has the name). A name with a separator or `..`
never reaches the file system. Only a file that exists is ever named; every failure to read is
"no file".
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["Scans", "listed_skill_files", "resolve_skill_path", "skill_file_in"]

# The folders skills live in, relative to the folder a scope resolves to.
_CONTAINERS = (".claude/skills", ".agents/skills")
_SKILL_FILE = "SKILL.md"
# What is read of a SKILL.md: its frontmatter is far shorter.
_HEAD_BYTES = 8192
_NAME_LINE = re.compile(r"^name[ \t]*:(?:[ \t]+(.*))?$")

# A container's skills by declared name, read once per resolution pass.
Scans = dict[str, dict[str, str]]


def listed_skill_files(usage: object) -> dict[str, str | None]:
    """Claude Code's skills from its context usage answer: name -> `SKILL.md` path (None: a
    skill without a file). Entries naming another kind of file are no skills."""
    skills = usage.get("skills") if isinstance(usage, Mapping) else None
    entries = skills.get("skillFrontmatter") if isinstance(skills, Mapping) else None
    found: dict[str, str | None] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            continue
        path = entry.get("path")
        if isinstance(path, str) and path:
            if os.path.basename(path) != _SKILL_FILE:
                continue
            found[entry["name"]] = path
        else:
            found[entry["name"]] = None
    return found


def _head(path: str) -> str | None:
    try:
        with open(path, "rb") as file:
            data = file.read(_HEAD_BYTES)
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", errors="replace")
    if len(data) < _HEAD_BYTES:
        return text
    cut = text.rfind("\n")  # half a last line could be half a name
    return "" if cut < 0 else text[:cut]


def _scalar(raw: str) -> str:
    """A YAML plain or single-line quoted scalar, its quotes resolved, a comment dropped."""
    if not raw or raw[0] not in "\"'":
        comment = re.search(r"(?:^|[ \t])#", raw)
        return (raw if comment is None else raw[: comment.start()]).strip()
    quote, value, index = raw[0], "", 1
    while index < len(raw):
        char = raw[index]
        if char == quote:
            if quote == "'" and raw[index + 1 : index + 2] == "'":
                value += "'"
                index += 2
                continue
            return value
        if quote == '"' and char == "\\" and index + 1 < len(raw):
            index += 1
            char = raw[index]
        value += char
        index += 1
    return value


def _declared_name(path: str) -> str | bool | None:
    """The `name:` the frontmatter of `path` declares; None when it declares none; False when
    the file cannot be read."""
    head = _head(path)
    if head is None:
        return False
    lines = re.split(r"\r?\n", head)
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            break
        match = _NAME_LINE.match(line)
        if match:
            return _scalar((match.group(1) or "").strip()) or None
    return None


def _by_declared_name(container: str, scans: Scans) -> dict[str, str]:
    known = scans.get(container)
    if known is not None:
        return known
    found: dict[str, str] = {}
    try:
        entries = sorted(os.listdir(container))
    except (OSError, ValueError):
        entries = []
    for entry in entries:
        candidate = os.path.join(container, entry, _SKILL_FILE)
        if not os.path.isfile(candidate):
            continue
        name = _declared_name(candidate)
        if isinstance(name, str) and name not in found:
            found[name] = candidate
    scans[container] = found
    return found


def _escapes(segment: str) -> bool:
    return os.path.isabs(segment) or ".." in re.split(r"[/\\]", segment)


def resolve_skill_path(
    skill: str, cwd: str, *, home: str | None = None, scans: Scans | None = None
) -> str | None:
    """The absolute path of skill `skill`'s `SKILL.md`, or None when no known layout holds
    one. `scans`: the container listings of one pass (one list of commands)."""
    if not cwd:
        return None
    home = home if home is not None else str(Path.home())
    scans = scans if scans is not None else {}
    scope, colon, name = skill.partition(":")
    if not colon:
        scope, name = "", skill
    if not name or re.search(r"[/\\]", name) or name == ".." or (colon and _escapes(scope)):
        return None
    containers: list[str] = []

    def add(base: str) -> None:
        containers.extend(os.path.join(base, c) for c in _CONTAINERS)

    def add_scoped(base: str) -> None:
        if not colon:
            return
        add(os.path.join(base, scope))
        containers.append(os.path.join(base, ".claude/plugins", scope, "skills"))
        marketplaces = os.path.join(base, ".claude/plugins/marketplaces")
        try:
            installed = sorted(os.listdir(marketplaces))
        except (OSError, ValueError):
            return
        for marketplace in installed:
            containers.append(os.path.join(marketplaces, marketplace, "plugins", scope, "skills"))

    add_scoped(cwd)
    add_scoped(home)
    add(cwd)
    add(home)
    for container in containers:
        candidate = os.path.join(container, name, _SKILL_FILE)
        if not os.path.isfile(candidate):
            continue
        declared = _declared_name(candidate)
        if declared is None or declared == name:
            return candidate
    if not colon and any(
        os.path.exists(os.path.join(base, ".claude/commands", f"{name}.md")) for base in (cwd, home)
    ):
        return None  # a prompt command of that name, no skill
    for container in containers:
        found = _by_declared_name(container, scans).get(name)
        if found:
            return found
    return None


def skill_file_in(cwd: str) -> Callable[[object], str | None]:
    """The `Skill` tool's lookup for a session in `cwd`: a skill's name -> its `SKILL.md`."""
    return lambda name: resolve_skill_path(name, cwd) if isinstance(name, str) else None
