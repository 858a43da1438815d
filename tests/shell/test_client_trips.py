"""What real ACP clients tripped over (CodeCompanion, the Python SDK's example client), played
against the scripted Claude in process (`agent_in_process`: the agent, the real SDK and the
scripted Claude in this process) with a client that negotiated nothing (legacy) and one that
opted in to sessionFailure:

- text streamed before a turn fails ends with a newline before the failure, so a client that
  appends its own error block does not glue it to an open line or code fence;
- a session whose first turn failed still gets its title pushed (`session_info_update`);
- a max-turns failure reaches a legacy client as `errorKind: "max_turns"`, not as the record
  kind it shares with an exhausted context;
- a legacy client reads a failure's words once: Claude's as agent text, the JSON-RPC error short.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapter.scripted_claude import TEXTS
from tests.support.harness import OPT_IN
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio

PROMPT = "write the parser please"


async def _turn(
    tmp_path: Path, scenario: str, *, capable: bool
) -> tuple[list[dict[str, Any]], Any]:
    """The session updates of one prompt's turn, in order, and the prompt's answer."""
    async with agent_in_process(tmp_path, scenario=scenario, initialize=False) as agent:
        params: dict[str, Any] = {"protocolVersion": 1}
        if capable:
            params["clientCapabilities"] = {"_meta": OPT_IN}
        assert "result" in await agent.call("initialize", params)
        session = await agent.new_session()
        start = len(agent.incoming())
        answer = await agent.call(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": PROMPT}]},
        )
        updates = [
            f["params"]["update"]
            for f in agent.incoming()[start:]
            if f.get("method") == "session/update"
        ]
        return updates, answer


def _text(updates: list[dict[str, Any]]) -> str:
    return "".join(
        u["content"]["text"]
        for u in updates
        if u.get("sessionUpdate") == "agent_message_chunk" and u["content"].get("type") == "text"
    )


@pytest.mark.parametrize("capable", [False, True], ids=["legacy", "sessionFailure"])
@pytest.mark.parametrize("scenario", ["max_output_tokens", "stream_then_overloaded"])
async def test_streamed_text_ends_its_line_before_the_turn_fails(
    tmp_path: Path, scenario: str, capable: bool
) -> None:
    updates, answer = await _turn(tmp_path, scenario, capable=capable)
    failed = "error" in answer or (answer["result"].get("_meta") or {}) != {}
    assert failed, answer
    text = _text(updates)
    assert text.strip(), "the scenario streams text before it fails"
    assert text.endswith("\n"), repr(text[-80:])


async def test_a_turn_that_succeeds_gets_no_extra_newline(tmp_path: Path) -> None:
    updates, answer = await _turn(tmp_path, "success", capable=False)
    assert answer["result"]["stopReason"] == "end_turn"
    chunks = [u for u in updates if u.get("sessionUpdate") == "agent_message_chunk"]
    assert chunks and all(u["content"]["text"] != "\n" for u in chunks)


@pytest.mark.parametrize("scenario", ["rate_limit", "max_output_tokens", "turn_limit"])
async def test_a_failed_first_turn_still_pushes_the_session_title(
    tmp_path: Path, scenario: str
) -> None:
    updates, answer = await _turn(tmp_path, scenario, capable=False)
    assert "error" in answer
    titles = [u.get("title") for u in updates if u.get("sessionUpdate") == "session_info_update"]
    assert titles == [PROMPT]


async def test_a_max_turns_failure_says_max_turns_to_a_legacy_client(tmp_path: Path) -> None:
    _, answer = await _turn(tmp_path, "turn_limit", capable=False)
    assert answer["error"]["code"] == -32603
    assert answer["error"]["data"] == {"errorKind": "max_turns"}


@pytest.mark.parametrize(
    ("scenario", "short"),
    [
        ("rate_limit", "Claude is temporarily rate limited."),
        ("budget_limit", "This Claude session reached its configured budget."),
        ("structured_output_retries", "The model provider reported an error."),
    ],
)
async def test_a_legacy_client_reads_the_failure_words_once(
    tmp_path: Path, scenario: str, short: str
) -> None:
    # docs/decisions.md#legacy-error-text-once: whether Claude said them in a message (forwarded
    # as it came) or only in the result (told as agent text), the words are in the transcript
    # once, and the error names the kind.
    updates, answer = await _turn(tmp_path, scenario, capable=False)
    assert answer["error"]["code"] == -32603
    assert answer["error"]["message"] == f"Internal error: {short}"
    text = _text(updates)
    assert text.count(TEXTS[scenario]) == 1, text
    assert text.endswith(f"{TEXTS[scenario]}\n"), repr(text[-80:])


async def test_a_legacy_client_reads_the_result_words_on_a_line_of_their_own(
    tmp_path: Path,
) -> None:
    updates, _ = await _turn(tmp_path, "budget_limit", capable=False)
    assert _text(updates) == f"Let me start by reading the code.\n{TEXTS['budget_limit']}\n"
