"""The scripted Claude's command line: the flags the SDK's `_build_command` emits, parsed the
way the real CLI takes them (`--flag=value` and `--flag value`). Split from `runtime.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["CliArgs", "parse_argv"]

# Flags that take no value. Everything else that the SDK's `_build_command` emits takes one.
_BOOL_FLAGS = frozenset(
    {
        "--verbose",
        "--continue",
        "--fork-session",
        "--include-partial-messages",
        "--include-hook-events",
        "--strict-mcp-config",
        "--session-mirror",
        "--replay-user-messages",
        "--print",
        "-p",
        "--debug",
    }
)
# Flags whose value is optional in the real CLI: a following "--flag" is not their value.
_OPTIONAL_VALUE_FLAGS = frozenset({"--resume", "-r"})
_VALUE_FLAGS = frozenset(
    {
        "--output-format",
        "--input-format",
        "--system-prompt",
        "--system-prompt-file",
        "--append-system-prompt",
        "--tools",
        "--allowedTools",
        "--disallowedTools",
        "--max-turns",
        "--max-budget-usd",
        "--task-budget",
        "--model",
        "--fallback-model",
        "--betas",
        "--permission-prompt-tool",
        "--permission-mode",
        "--session-id",
        "--settings",
        "--add-dir",
        "--mcp-config",
        "--plugin-dir",
        "--setting-sources",
        "--resume-session-at",
        "--resume-drops-turn",
        "--thinking",
        "--max-thinking-tokens",
        "--thinking-display",
        "--effort",
        "--json-schema",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CliArgs:
    """The flags the fake acts on; `flags` keeps every flag seen (value None for booleans)."""

    flags: Mapping[str, str | None] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        return self.flags.get(name)

    def has(self, name: str) -> bool:
        return name in self.flags


def parse_argv(argv: Sequence[str]) -> CliArgs:
    """Parse both `--flag=value` and `--flag value`; unknown flags take the next token as their
    value unless it looks like a flag. Stray positionals are ignored."""
    flags: dict[str, str | None] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-"):
            continue
        if token.startswith("--") and "=" in token:
            name, value = token.split("=", 1)
            flags[name] = value
        elif token in _BOOL_FLAGS:
            flags[token] = None
        elif token in _VALUE_FLAGS:
            flags[token] = argv[i] if i < len(argv) else ""
            i += 1
        elif i < len(argv) and not argv[i].startswith("--"):
            flags[token] = argv[i]
            i += 1
        else:
            flags[token] = None
    if "-r" in flags:
        flags.setdefault("--resume", flags["-r"])
    return CliArgs(flags=flags)
