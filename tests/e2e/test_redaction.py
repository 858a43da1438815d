"""Nothing leaked: credentials, private paths and environment values never reach a title.

Spec ("Title and details") and DECISIONS row 9: titles are Claude's own words, verbatim, but
"never ... a URL, token, header, environment value or private path". Two halves:

- `fsm.records.redact` itself: ordinary text passes unchanged (a title is Claude's text, so
  every false positive rewrites what Claude said), and each credential shape is masked while
  the words around it survive.
- End to end: the scripted Claude's `hostile_error` scenario fails a turn with prose full of
  secrets and the adapter's own `$HOME`; no title, details, agent_error message or JSON-RPC
  error message may carry any of them, in any client mode, while the ordinary words survive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from adapter.scripted_claude.faults import HOSTILE_SECRETS, hostile_text
from fsm.records import redact
from tests.support.harness import OPT_IN, Adapter, spawn_adapter

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


# --- end to end --------------------------------------------------------------------------------

# Ordinary words of the hostile text that must survive into what the client shows.
KEPT = ("API Error: 500 upstream rejected the key", "Please try again later.")

AGENT_ERROR_OPT_IN: dict[str, Any] = {"agentError": {"version": 1}}


def _shown_texts(adapter: Adapter) -> list[str]:
    """Every adapter-chosen text the client shows about a failure: record titles and details,
    agent_error messages, JSON-RPC error messages (and their data)."""
    shown: list[str] = []
    for _, record in adapter.records():
        shown.append(record["title"])
        if "details" in record:
            shown.append(record["details"])
    for update in adapter.updates("agent_error"):
        shown.append(str(update["error"]["message"]))
    for message in adapter.incoming():
        if "error" in message and "method" not in message:
            shown.append(str(message["error"].get("message", "")))
            shown.append(json.dumps(message["error"].get("data")))
    return shown


def _secrets(home: str) -> tuple[str, ...]:
    return (*HOSTILE_SECRETS, home)


async def _hostile_turn(
    tmp_path: Path, *, home: str, capable: bool, client_meta: dict[str, Any] | None = None
) -> tuple[Adapter, PromptResponse | acp.RequestError]:
    env = {"HOME": home}
    async with spawn_adapter(
        tmp_path, "hostile_error", capable=capable, client_meta=client_meta, env=env
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    return adapter, answer


def _assert_nothing_leaked(shown: list[str], home: str) -> None:
    assert shown, "the failure reached the client somehow"
    for text in shown:
        for secret in _secrets(home):
            assert secret not in text, (secret, text)
    joined = "\n".join(shown)
    for words in KEPT:
        assert words in joined, (words, shown)


# HOME as this machine has it, and a home outside /home, /Users and /root: an environment
# value is not a secret because of the shape of its path.
HOMES = ("/root", "/var/lib/alice-home")


@pytest.mark.e2e
@pytest.mark.asyncio
@pytest.mark.parametrize("home", HOMES)
async def test_capable_client_sees_no_secret_anywhere(tmp_path: Path, home: str) -> None:
    adapter, answer = await _hostile_turn(tmp_path, home=home, capable=True)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "service" and record["severity"] == "error"
    _assert_nothing_leaked(_shown_texts(adapter), home)
    # The prose became the title (row 20), so it is not agent text either: no frame at all
    # carries a secret to a capable client.
    for message in adapter.incoming():
        wire = json.dumps(message, ensure_ascii=False)
        for secret in _secrets(home):
            assert secret not in wire, (secret, wire)


@pytest.mark.e2e
@pytest.mark.asyncio
@pytest.mark.parametrize("home", HOMES)
async def test_legacy_error_message_carries_no_secret(tmp_path: Path, home: str) -> None:
    adapter, answer = await _hostile_turn(tmp_path, home=home, capable=False)
    assert isinstance(answer, acp.RequestError), answer
    assert answer.code == -32603 and answer.data == {"errorKind": "server_error"}
    assert adapter.records() == []
    _assert_nothing_leaked(_shown_texts(adapter), home)


@pytest.mark.e2e
@pytest.mark.asyncio
@pytest.mark.parametrize("home", HOMES)
async def test_agent_error_message_carries_no_secret(tmp_path: Path, home: str) -> None:
    adapter, answer = await _hostile_turn(
        tmp_path, home=home, capable=True, client_meta={**OPT_IN, **AGENT_ERROR_OPT_IN}
    )
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [update] = adapter.updates("agent_error")
    assert update["error"]["type"] == "provider_unavailable"
    _assert_nothing_leaked(_shown_texts(adapter), home)
