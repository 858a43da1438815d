"""Nothing leaked, in process (`agent_in_process`: a real ACP client, the real SDK and the scripted
Claude in this process): credentials, private paths and environment values never reach a title
(spec "Title and details", docs/decisions.md#titles). That a log line keeps none of them either
is end to end, where the command's own stderr is read: tests/e2e/test_secrets.py.

The scripted Claude's `hostile_error` scenario fails a turn with prose full of secrets and the
adapter's own `$HOME`; no title, details, agent_error message or JSON-RPC error message may carry
any of them, in any client mode, while the ordinary words survive. `redact` alone is tested in
`tests/shell/test_redact.py`.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import SCENARIOS
from adapter.scripted_claude.faults import HOSTILE_SECRETS, hostile_text
from adapter.scripted_claude.steps import Scenario
from tests.support.harness import OPT_IN, Adapter
from tests.support.shell_harness import agent_in_process

# --- in process --------------------------------------------------------------------------------

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


def _hostile_error_at(home: str) -> Scenario:
    """`hostile_error` as the scripted Claude plays it in an environment whose `$HOME` is
    `home`: it writes its own environment's home into its prose, and in this process that
    environment was the test's when the scenario was built."""
    shipped = SCENARIOS["hostile_error"]
    built = hostile_text(os.environ.get("HOME", "/root"), os.environ.get("ANTHROPIC_API_KEY", ""))
    prose = hostile_text(home)

    def swapped(step: Any) -> Any:
        fields = {k: prose for k in ("text", "result") if getattr(step, k, None) == built}
        assert fields, step  # every step of the turn carries the prose
        return replace(step, **fields)

    turns = tuple(tuple(swapped(step) for step in turn) for turn in shipped.turns)
    return replace(shipped, turns=turns)


async def _hostile_turn(
    tmp_path: Path, *, home: str, capable: bool, client_meta: dict[str, Any] | None = None
) -> tuple[Adapter, PromptResponse | acp.RequestError]:
    env = {"HOME": home}
    async with agent_in_process(
        tmp_path,
        "hostile_error",
        capable=capable,
        client_meta=client_meta,
        env=env,
        scenarios=[_hostile_error_at(home)],
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


@pytest.mark.asyncio
@pytest.mark.parametrize("home", HOMES)
async def test_capable_client_sees_no_secret_anywhere(tmp_path: Path, home: str) -> None:
    adapter, answer = await _hostile_turn(tmp_path, home=home, capable=True)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "service" and record["severity"] == "error"
    _assert_nothing_leaked(_shown_texts(adapter), home)
    # The prose became the title (docs/decisions.md#capable-clients), so it is not agent text
    # either: no frame at all carries a secret to a capable client.
    for message in adapter.incoming():
        wire = json.dumps(message, ensure_ascii=False)
        for secret in _secrets(home):
            assert secret not in wire, (secret, wire)


@pytest.mark.asyncio
@pytest.mark.parametrize("home", HOMES)
async def test_legacy_error_message_carries_no_secret(tmp_path: Path, home: str) -> None:
    adapter, answer = await _hostile_turn(tmp_path, home=home, capable=False)
    assert isinstance(answer, acp.RequestError), answer
    assert answer.code == -32603 and answer.data == {"errorKind": "server_error"}
    assert adapter.records() == []
    # docs/decisions.md#legacy-error-text-once: Claude's words are the transcript's (masked),
    # the JSON-RPC error only names the kind.
    errors = _shown_texts(adapter)
    assert not any(words in text for text in errors for words in KEPT), errors
    _assert_nothing_leaked([*errors, *adapter.agent_texts()], home)


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
