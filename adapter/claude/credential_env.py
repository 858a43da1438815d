"""Placeholder credentials are not passed to Claude Code.

Theory of operation: an editor's preset may start the agent with a credential variable it never
filled in: `CLAUDE_CODE_OAUTH_TOKEN=CLAUDE_CODE_OAUTH_TOKEN` (CodeCompanion's Claude preset does
when the user set no token), an unexpanded `${...}`, or an empty value. Claude Code would take it
for a credential, and it outranks the user's real sign-in, so every turn fails to authenticate.
`drop_placeholders` removes such a variable from an environment (the adapter's own at start-up:
every Claude Code process and `claude auth status` inherit it; a client's
`_meta.claudeCode.options.env`) and says once per variable, on stderr and without the value,
which one was ignored. Only Claude Code's credential variables are touched; any other variable
may legitimately be empty (docs/decisions.md#empty-and-placeholder-input).
"""

from __future__ import annotations

import logging
import re
from collections.abc import MutableMapping

__all__ = ["CREDENTIAL_VARIABLES", "drop_placeholders", "is_placeholder"]

log = logging.getLogger(__name__)

# The variables Claude Code reads a credential from.
CREDENTIAL_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_REFRESH_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "ANTHROPIC_FOUNDRY_API_KEY",
)
# `$NAME` as a shell would have expanded it; `${...}` anywhere is a template never filled in.
_SHELL_NAME = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")

_told: set[str] = set()


def is_placeholder(name: str, value: str) -> bool:
    """Whether `value` of credential variable `name` stands in for a credential nobody set."""
    text = value.strip()
    return not text or text == name or "${" in text or _SHELL_NAME.fullmatch(text) is not None


def drop_placeholders(environ: MutableMapping[str, str], where: str) -> tuple[str, ...]:
    """Remove every credential variable of `environ` whose value is a placeholder; the names
    removed. `where` names the environment in the log line ("the adapter's environment")."""
    dropped = tuple(
        name
        for name in CREDENTIAL_VARIABLES
        if name in environ and is_placeholder(name, environ[name])
    )
    for name in dropped:
        del environ[name]
        if name not in _told:
            _told.add(name)
            log.warning(
                "ignoring %s from %s: its value is empty or a placeholder, not a credential, "
                "so it is not passed to Claude Code",
                name,
                where,
            )
    return dropped
