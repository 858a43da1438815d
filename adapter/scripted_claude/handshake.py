"""What the scripted Claude reports at start-up, and how it takes mode, model and effort changes.

Theory of operation: the real CLI answers the SDK's `initialize` control request with its slash
commands (`{name, description, argumentHint}`), its model picker (`{value, resolvedModel,
displayName, description, supportsEffort?, supportedEffortLevels?, ...}`) and account facts;
`COMMANDS`, `MODELS` and `ACCOUNT` copy those shapes. Model aliases resolve to full ids as the
CLI resolves them, so the next turn's `system/init` names the model in use. With
`$CLAUDE_ACP_SCRIPTED_LOG` set, the fake appends one JSON line per thing a test may want to
check: its argv at start and every control request it receives (`record`).

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "ACCOUNT",
    "BUILTIN_AGENTS",
    "COMMANDS",
    "LOG_ENV",
    "LOG_ENV_NAMES",
    "MODELS",
    "PERMISSION_MODES",
    "agents_in",
    "initialize_extras",
    "record",
    "resolve_model",
]

# Where the fake records its argv and the control requests it receives (one JSON per line).
LOG_ENV = "CLAUDE_ACP_SCRIPTED_LOG"
# Names of environment variables (comma-separated) whose values the fake records at start.
LOG_ENV_NAMES = "CLAUDE_ACP_SCRIPTED_LOG_ENV"

# The modes `set_permission_mode` accepts (the real CLI's PermissionMode values).
PERMISSION_MODES = frozenset(
    {"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"}
)

COMMANDS: tuple[Mapping[str, str], ...] = (
    {
        "name": "compact",
        "description": "Clear conversation history but keep a summary in context",
        "argumentHint": "<optional custom summarization instructions>",
    },
    {"name": "init", "description": "Initialize a new CLAUDE.md file", "argumentHint": ""},
    {
        "name": "review",
        "description": "Review a pull request",
        "argumentHint": "[pr-number]",
    },
    {"name": "clear", "description": "Clear conversation history", "argumentHint": ""},
    {"name": "cost", "description": "Show the total cost of this session", "argumentHint": ""},
    {"name": "login", "description": "Sign in with your Anthropic account", "argumentHint": ""},
)

MODELS: tuple[Mapping[str, Any], ...] = (
    {
        "value": "default",
        "resolvedModel": "claude-sonnet-4-5",
        "displayName": "Default (recommended)",
        "description": "Sonnet 4.5 · Best for everyday tasks",
        "supportsEffort": True,
        "supportedEffortLevels": ["low", "medium", "high"],
    },
    {
        "value": "opus",
        "resolvedModel": "claude-opus-4-1",
        "displayName": "Opus",
        "description": "Opus 4.1 · Most capable for complex work",
        "supportsEffort": True,
        "supportedEffortLevels": ["low", "medium", "high", "max"],
    },
    {
        "value": "haiku",
        "resolvedModel": "claude-haiku-4-5",
        "displayName": "Haiku",
        "description": "Haiku 4.5 · Fastest for quick answers",
    },
)

ACCOUNT: Mapping[str, str] = {
    "email": "scripted@example.invalid",
    "organization": "Scripted Claude",
    "subscriptionType": "pro",
    "tokenSource": "claude.ai",
    "apiProvider": "firstParty",
}

_ALIASES = {
    "default": "claude-sonnet-4-5",
    "sonnet": "claude-sonnet-4-5",
    # The 1M-context alias: the API model id is the same, the window is not.
    "sonnet[1m]": "claude-sonnet-4-5",
    "opus": "claude-opus-4-1",
    "haiku": "claude-haiku-4-5",
}


def resolve_model(name: object) -> str:
    """The full model id for an alias (or a full id as given); the default for nothing."""
    if not isinstance(name, str) or not name:
        return _ALIASES["default"]
    return _ALIASES.get(name, name)


def record(env: Mapping[str, str], kind: str, **fields: object) -> None:
    """Append `{"kind": kind, **fields}` to the log a test asked for (nothing otherwise)."""
    path = env.get(LOG_ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps({"kind": kind, **fields}) + "\n")


# Claude Code's built-in subagents, which its initialize answer always lists.
BUILTIN_AGENTS: tuple[Mapping[str, str], ...] = (
    {"name": "general-purpose", "description": "General-purpose agent for complex tasks"},
    {"name": "statusline-setup", "description": "Configures the status line setting"},
    {"name": "Explore", "description": "Fast agent specialized for exploring codebases"},
    {"name": "Plan", "description": "Software architect agent for designing plans"},
)


def agents_in(cwd: str) -> list[dict[str, str]]:
    """The agents of the initialize answer: the built-ins, then the project's own, one per
    `<cwd>/.claude/agents/*.md` whose front matter names it (`name:`, `description:`), as the
    real CLI reads them."""
    found = [dict(a) for a in BUILTIN_AGENTS]
    folder = Path(cwd) / ".claude" / "agents"
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if not lines or lines[0].strip() != "---":
            continue
        fields: dict[str, str] = {}
        for line in lines[1:]:
            if line.strip() == "---":
                break
            key, sep, value = line.partition(":")
            if sep:
                fields[key.strip()] = value.strip()
        if fields.get("name"):
            found.append({"name": fields["name"], "description": fields.get("description", "")})
    return found


def initialize_extras() -> dict[str, Any]:
    """The keys of the real CLI's initialize answer that describe this installation."""
    return {
        "commands": [dict(c) for c in COMMANDS],
        "models": [dict(m) for m in MODELS],
        "account": dict(ACCOUNT),
    }
