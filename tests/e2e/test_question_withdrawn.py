"""A permission question open when its turn ends is withdrawn: Claude dies
while the client still shows the question, or the session is closed under it; the client gets
`$/cancel_request` for that request, and a late answer changes nothing. Through the real stdio
agent with a raw client that never answers in time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import script_launcher
from tests.support.raw_agent import RawAgent

_SCRIPT = """
import os, sys
from adapter.scripted_claude import runtime
from adapter.scripted_claude.scenarios import SCENARIOS
from adapter.scripted_claude.steps import *

question = ('{"type":"control_request","request_id":"req_q","request":{"subtype":"can_use_tool",'
            '"tool_name":"Bash","input":{"command":"make deploy"},"tool_use_id":"toolu_q"}}')
mine = [
    # Claude asks, then dies (SIGKILL) while the question is open.
    Scenario(name="dies_while_asking", description="", turns=((
        Garbage(line=question), Sleep(seconds=1.0), KillSelf()),)),
    # Claude asks and waits (the test closes the session under the question).
    Scenario(name="asks_and_waits", description="", turns=((
        Garbage(line=question), Sleep(seconds=600.0), Result()),)),
]
runtime.SCENARIOS = {**SCENARIOS, **{s.name: s for s in mine}}
code = runtime.main(sys.argv[1:], os.environ)
sys.stderr.flush()
os._exit(code)
"""


def _question_then_withdrawal(agent: RawAgent, prompt: str, ending: str) -> dict[str, Any]:
    """Frames up to the withdrawal of the question; returns the prompt's answer."""
    asked: Any = None
    replaced: Any = None
    answer: dict[str, Any] | None = None
    withdrawn = False
    reopened: dict[str, Any] | None = None
    while answer is None or not withdrawn or (ending == "load" and reopened is None):
        frame = agent.read_frame()
        assert frame is not None, "the agent ended first"
        if frame.get("method") == "session/request_permission":
            asked = frame["id"]  # never answered in time
            session = frame["params"]["sessionId"]
            if ending == "close":
                agent.request("session/close", {"sessionId": session})
            elif ending == "load":
                # The same id opened again while live: the old session is replaced under it.
                opening = {"sessionId": session, "cwd": str(agent.workdir), "mcpServers": []}
                replaced = agent.request(f"session/{ending}", opening)
        elif frame.get("method") == "$/cancel_request":
            assert asked is not None and frame["params"] == {"requestId": asked}
            withdrawn = True
        elif "method" not in frame and frame.get("id") == prompt:
            answer = frame
        elif "method" not in frame and replaced is not None and frame.get("id") == replaced:
            reopened = frame
    if reopened is not None:
        assert "result" in reopened, reopened  # the load answers, and succeeds
    # The late answer: an "allow" for a question nobody waits for any more.
    late = {"outcome": {"outcome": "selected", "optionId": "allow"}}
    agent.write(json.dumps({"jsonrpc": "2.0", "id": asked, "result": late}).encode() + b"\n")
    return answer


@pytest.mark.parametrize(
    ("scenario", "ending"),
    [
        ("dies_while_asking", "claude_gone"),
        ("asks_and_waits", "close"),
        ("asks_and_waits", "load"),
    ],
)
def test_an_open_question_is_withdrawn_when_its_turn_ends(
    scenario: str, ending: str, tmp_path: Path
) -> None:
    launcher = script_launcher(tmp_path / "bin-q", "questions", _SCRIPT)
    agent = RawAgent(tmp_path, scenario, CLAUDE_CODE_EXECUTABLE=str(launcher))
    try:
        agent.initialize()
        session = agent.new_session()
        prompt = agent.request(
            "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
        )
        answer = _question_then_withdrawal(agent, prompt, ending)
        # Exactly one answer to the prompt, whatever ended it.
        assert ("result" in answer) != ("error" in answer)
        assert [r for r in agent.responses() if r.get("id") == prompt] == [answer]
        if ending == "claude_gone":
            # The session still serves: the next prompt starts a fresh Claude.
            again = agent.call(
                "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "?"}]}
            )
            assert "result" in again or "error" in again
        agent.close_stdin()
        agent.read_to_end()
        assert agent.wait() == 0
    finally:
        agent.close()
