"""`fsm.records.redact`, which keeps credentials, private paths and environment values out of every
title (spec "Title and details", docs/decisions.md#titles): ordinary text passes unchanged (a title
is Claude's text, so every false positive rewrites what Claude said), and each credential shape is
masked while the words around it survive. Through the whole agent, with the scripted Claude's
`hostile_error` prose, in `tests/shell/test_redaction.py`.
"""

from __future__ import annotations

import pytest

from adapter.scripted_claude import TEXTS
from adapter.scripted_claude.faults import HOSTILE_SECRETS, hostile_text
from fsm import redact

# --- redact: ordinary text is left alone ----------------------------------------------------

ORDINARY: tuple[str, ...] = (
    *TEXTS.values(),
    "API Error: 529 Overloaded. Please try again later.",
    "Reached maximum budget ($1.50)",
    "Please run /login · API key is invalid",
    "See https://status.claude.com and https://docs.claude.com/en/docs/errors for updates.",
    "The /rootfs mount and the ~/.claude folder are read-only.",
    "Max tokens: 4096 were used; the token budget is spent.",
    "Your password reset is required before continuing.",
    "Use Bearer tokens or an API key; see the docs.",
    "A basic understanding of the codebase helps here.",
    "Here is the secret: restart the proxy and try again.",
    "Error 401 from api.anthropic.com:443 after 3 attempts",
    "Line 1\n\nLine 3 with   spacing and unicode · ✓",
    "",
)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert redact(text) == text


# --- redact: each credential shape is masked, the words around it survive -------------------

# (text, the secret that must be gone, words that must stay)
SHAPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "The key sk-ant-api03-Xq9vT2mB7nK4pL8sR1wE6yU3iO0aZ5cV-abcDEF_42AA was rejected.",
        "Xq9vT2mB7nK4pL8sR1wE6yU3iO0aZ5cV",
        ("The key", "was rejected."),
    ),
    (
        "Sent Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl to the proxy.",
        "eyJhbGciOiJIUzI1NiJ9",
        ("Sent", "to the proxy."),
    ),
    (
        "Header Authorization: Bearer abcDEF123456ghiJKL789 was refused.",
        "abcDEF123456ghiJKL789",
        ("Header", "was refused."),
    ),
    (
        "Fetching https://alice:hunter2@proxy.example.test/v1/messages failed.",
        "hunter2",
        ("Fetching https://", "proxy.example.test/v1/messages failed."),
    ),
    (
        "Could not read /home/alice/project/.env today.",
        "/home/alice",
        ("Could not read", "today."),
    ),
    (
        "Could not read /root/.claude/credentials.json today.",
        "/root/.claude",
        ("Could not read", "today."),
    ),
    (
        "Could not read /Users/bob/Library/Keychains/login.keychain today.",
        "/Users/bob",
        ("Could not read", "today."),
    ),
    (
        "Config had api_key=abc123secretvalue in it.",
        "abc123secretvalue",
        ("Config had", "in it."),
    ),
    (
        "Request carried x-api-key: sk-live-0123456789abcdef and failed.",
        "0123456789abcdef",
        ("Request carried", "and failed."),
    ),
    (
        "password: hunter2hunter2 was in the log.",
        "hunter2hunter2",
        ("was in the log.",),
    ),
    # A token is a token without its "Bearer" in front of it.
    (
        "Token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl expired.",
        "eyJzdWIiOiJhbGljZSJ9",
        ("Token", "expired."),
    ),
    # A private path is private on Windows too.
    (
        "Could not read C:\\Users\\alice\\project\\.env today.",
        "Users\\alice",
        ("Could not read", "today."),
    ),
)


@pytest.mark.parametrize(("text", "secret", "kept"), SHAPES, ids=[s[1][:20] for s in SHAPES])
def test_credential_shapes_are_masked_and_their_words_kept(
    text: str, secret: str, kept: tuple[str, ...]
) -> None:
    masked = redact(text)
    assert secret not in masked, masked
    for words in kept:
        assert words in masked, (words, masked)


def test_redact_is_idempotent_on_the_hostile_text() -> None:
    once = redact(hostile_text("/home/alice"))
    assert redact(once) == once
    for secret in HOSTILE_SECRETS:
        assert secret not in once, (secret, once)
