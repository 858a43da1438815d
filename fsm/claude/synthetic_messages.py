"""Claude Code's own messages: what it composes itself rather than a model answering.

Theory of operation: Claude Code names the model of a message it composed locally
`<synthetic>` (`SYNTHETIC_MODEL`): a usage limit reached (`USAGE_LIMIT_PREFIXES`), a sign-in
prompt. These rules tell such a message, or any placeholder model name, from a model's answer,
for the live turn (`turn.py`), replay and the shell's transcript tail alike. They name no
failure kind: what a notice means for a turn is `classify.py`'s, so reading a transcript's tail
(before a resume's Claude is spawned) needs none of the failure vocabulary.
"""

from __future__ import annotations

import re

__all__ = [
    "SYNTHETIC_MODEL",
    "USAGE_LIMIT_PREFIXES",
    "is_error_prose",
    "is_login_text",
    "is_real_model",
    "is_synthetic_login",
    "is_synthetic_usage_limit",
]

SYNTHETIC_MODEL = "<synthetic>"

# Copied from the TypeScript SDK's USAGE_LIMIT_ERROR_PREFIXES (@anthropic-ai/claude-agent-sdk
# 0.3.318 / 0.3.332, @alpha): the Python SDK exports no such list, so it is kept in step by hand.
USAGE_LIMIT_PREFIXES: tuple[str, ...] = (
    "You've hit your",
    "You've reached your",
    "You're out of usage credits",
    "Your org is out of usage \u00b7 add funds to continue",
    "Your org is out of usage \u00b7 contact your admin",
    "Your seat type doesn't include usage credits",
    "Your seat type doesn't include usage",
    "Your usage allocation has been disabled by your admin",
    "Your group's usage limit is set to $0",
    "Fable 5 requires usage credits",
    "You're out of extra usage",
    "Your seat type doesn't include extra usage",
)

_LOGIN = re.compile(r"\brun /login\b", re.IGNORECASE)


def is_error_prose(model: object, error: object) -> bool:
    """Whether an assistant message is Claude's error prose rather than the model's answer: it
    names an API error, or Claude Code composed it (`<synthetic>`). Error prose is masked where
    it reaches the client (docs/decisions.md#secrets); the model's own answer is the user's
    content and stays verbatim."""
    return error is not None or model == SYNTHETIC_MODEL


def is_real_model(model: object) -> bool:
    """Whether a message's model name says a model answered: a name, not a placeholder. Claude
    Code marks what it composes itself `<synthetic>`; any `<...>` name, or a missing or blank
    one, is taken the same way. The one rule for the turn (live), replay and the shell's
    transcript tail alike; the turn adds its own memory (a login prompt seen) in its guard."""
    if not isinstance(model, str):
        return False
    name = model.strip()
    return bool(name) and not (name.startswith("<") and name.endswith(">"))


def is_synthetic_usage_limit(model: str | None, text: str) -> bool:
    """A usage-limit message Claude Code composed itself (never arbitrary model prose)."""
    return model == SYNTHETIC_MODEL and text.startswith(USAGE_LIMIT_PREFIXES)


def is_login_text(text: str) -> bool:
    return _LOGIN.search(text) is not None


def is_synthetic_login(model: str | None, text_block_count: int, text: str) -> bool:
    """Claude Code's local "please run /login" message: one text block, not a usage limit."""
    return (
        model == SYNTHETIC_MODEL
        and text_block_count == 1
        and is_login_text(text)
        and not is_synthetic_usage_limit(model, text)
    )
