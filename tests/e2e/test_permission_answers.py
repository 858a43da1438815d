"""Permission answers fail closed: through the real stdio agent, a raw client
answers the scripted Claude's Bash question with every kind of malformed reply, and only a
well-formed selection of an offered "allow" option lets the tool run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.raw_agent import RawAgent

_ALLOW = {"outcome": {"outcome": "selected", "optionId": "allow"}}

# What the client puts beside "jsonrpc" and "id" in its reply, as raw JSON text (some of these
# cannot be built as Python values a JSON encoder would write the same way).
MALFORMED = {
    "a string": '"result": "allow"',
    "a number": '"result": 1',
    "null": '"result": null',
    "an error": '"error": {"code": -32000, "message": "the user closed the dialog"}',
    "both a result and an error": (
        f'"result": {json.dumps(_ALLOW)}, "error": {{"code": -32000, "message": "no"}}'
    ),
    "an error that is a string": '"error": "allow"',
    "neither a result nor an error": '"comment": "allow"',
    "no optionId": '"result": {"outcome": {"outcome": "selected"}}',
    "an unknown optionId": '"result": {"outcome": {"outcome": "selected", "optionId": "yes"}}',
    "an optionId in another case": (
        '"result": {"outcome": {"outcome": "selected", "optionId": "Allow"}}'
    ),
    "a number as optionId": '"result": {"outcome": {"outcome": "selected", "optionId": 1}}',
    "an unknown outcome kind": (
        '"result": {"outcome": {"outcome": "approved", "optionId": "allow"}}'
    ),
    "extra nesting": f'"result": {{"outcome": {json.dumps(_ALLOW)}}}',
    "no nesting": '"result": {"outcome": "selected", "optionId": "allow"}',
    "an outcome list": f'"result": {{"outcome": [{json.dumps(_ALLOW["outcome"])}]}}',
}


def _turn(agent: RawAgent, reply: str) -> tuple[str, dict[str, Any]]:
    """One prompt of a fresh session; the permission question is answered with `reply`.
    Returns the turn's agent text and the prompt's answer."""
    session = agent.new_session()
    prompt = agent.request(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "clean up"}]}
    )
    text = ""
    while True:
        frame = agent.read_frame()
        assert frame is not None, "the agent ended mid-turn"
        if frame.get("method") == "session/request_permission":
            offered = [o["optionId"] for o in frame["params"]["options"]]
            assert "allow" in offered and "reject" in offered
            agent.write(
                f'{{"jsonrpc": "2.0", "id": {json.dumps(frame["id"])}, {reply}}}\n'.encode()
            )
        elif frame.get("method") == "session/update":
            update = frame["params"]["update"]
            if update.get("sessionUpdate") == "agent_message_chunk":
                text += update["content"].get("text", "")
        elif "method" not in frame and frame.get("id") == prompt:
            return text, frame


def test_only_a_well_formed_selection_allows_and_every_other_answer_denies(
    tmp_path: Path,
) -> None:
    agent = RawAgent(tmp_path, "permission")
    try:
        agent.initialize()
        # The control: a well-formed "allow" lets the tool run, so a denial below is the answer.
        text, answer = _turn(agent, f'"result": {json.dumps(_ALLOW)}')
        assert "Bash was allowed." in text and answer["result"]["stopReason"] == "end_turn"
        outcomes = {}
        for name, reply in MALFORMED.items():
            text, answer = _turn(agent, reply)
            # Every prompt is still answered, once, and the turn goes on without the tool.
            assert answer["result"]["stopReason"] == "end_turn", name
            outcomes[name] = (
                "allowed"
                if "Bash was allowed." in text
                else ("denied" if "Bash was denied" in text else text)
            )
        # A cancelled outcome is the client's own "no": denied too.
        text, _ = _turn(agent, '"result": {"outcome": {"outcome": "cancelled"}}')
        assert "Bash was denied" in text
        agent.close_stdin()
        agent.read_to_end()
        assert agent.wait() == 0
    finally:
        agent.close()
    assert outcomes == dict.fromkeys(MALFORMED, "denied")
    log = agent.stderr_path.read_text()
    # Each malformed answer is one warning, saying it was denied.
    denials = [line for line in log.splitlines() if "denying" in line]
    assert len(denials) == len(MALFORMED), denials
    assert "a response with both a result and an error" in log
    assert "the user closed the dialog" not in log  # the client's words stay out of the log
