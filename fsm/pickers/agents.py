"""The agent picker: which of Claude Code's agents a session may run its main thread as, as the
reference adapter offers them (`discoverCustomAgents`, `buildConfigOptions`:
docs/reference-adapter.md#agent-picker).

Claude Code lists its agents in its initialize answer (`agents: [{name, description, model?}]`):
its built-in subagents (`general-purpose`, `Explore`, `Plan`, ...) always, and the agents the user,
a plugin or the project defines. The built-ins are Task-tool helpers, not personas for the main
thread, so only the others are offered; with none there is no picker at all. The picker's first
entry, `default`, is Claude Code's own agent: a defined agent named `default` would collide with
it and is left out. Choosing an agent sets Claude Code's `agent` flag (`apply_flag_settings`,
null for `default`), which takes effect from the next turn; a fresh Claude process of the session
starts with the choice (`--agent`). An agent the client asked for at the session's start
(`_meta.claudeCode.options.agent`) is the picker's value only when the picker lists it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fsm.visible_text import visible

__all__ = [
    "BUILTIN_AGENTS",
    "DEFAULT_AGENT",
    "AgentChoice",
    "agent_choices",
    "agent_flag",
    "initial_agent",
]

# Claude Code's built-in subagents (the reference's `BUILTIN_AGENT_NAMES`).
BUILTIN_AGENTS = frozenset({"claude", "general-purpose", "Explore", "Plan", "statusline-setup"})
# The picker's value for Claude Code's own agent.
DEFAULT_AGENT = "default"
# An agent's name is a file name; past this an entry is not one.
_MAX_NAME = 256
_MAX_DESCRIPTION = 1000


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """One entry of the agent picker: `name` is both its value and what it shows."""

    name: str
    description: str | None = None


def agent_choices(entries: object) -> tuple[AgentChoice, ...]:
    """The agents to offer, in Claude Code's order, from its initialize answer's `agents`;
    entries of another shape (a name that is empty, over 256 characters or holds a control
    character), built-ins, `default` and repeated names are left out; a description is shown on
    one line, at most 1,000 characters."""
    if not isinstance(entries, Iterable) or isinstance(entries, str | bytes | dict):
        return ()
    found: list[AgentChoice] = []
    seen: set[str] = set()
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.strip() or len(name) > _MAX_NAME:
            continue
        if visible(name) != name:
            continue  # its value is sent back as it is: a control character is no name
        if name in BUILTIN_AGENTS or name == DEFAULT_AGENT or name in seen:
            continue
        seen.add(name)
        found.append(AgentChoice(name=name, description=_description(entry.get("description"))))
    return tuple(found)


def _description(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    line = " ".join(visible(text[: _MAX_DESCRIPTION * 4]).split())
    if not line:
        return None
    return line if len(line) <= _MAX_DESCRIPTION else line[: _MAX_DESCRIPTION - 1] + "…"


def initial_agent(requested: str | None, choices: Iterable[AgentChoice]) -> str:
    """The picker's value when the session opens: the agent the client asked for, when the
    picker lists it; else `default`."""
    if requested is not None and any(c.name == requested for c in choices):
        return requested
    return DEFAULT_AGENT


def agent_flag(value: str) -> str | None:
    """What Claude Code's `agent` flag is set to for the picker's `value` (None: its own)."""
    return None if value == DEFAULT_AGENT else value
