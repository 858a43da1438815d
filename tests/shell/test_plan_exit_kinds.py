"""The plan exit's options for a client that tells options apart by kind alone, in
process (`agent_in_process`) (docs/decisions.md#plan-exit-option-kinds).

The scripted Claude's `plan_mode` scenario enters plan mode in its first turn and asks to leave
it in its second; the client names itself in `initialize`'s `clientInfo`. CodeCompanion (which
labels every option by its kind and maps kinds to options) gets one option of each kind, and the
one it picks works; a client that reads option names gets the reference adapter's whole list.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.raw_agent import RawAgent

# The scripted session offers bypass (not auto) and a plan a fresh context can take.
REFERENCE = [
    ("exit-plan-default", "allow_once"),
    ("exit-plan-clear-bypass", "allow_always"),
    ("exit-plan-bypass", "allow_always"),
    ("reject", "reject_once"),
]


def _plan_exit(
    tmp_path: Path, client_name: str, pick: str
) -> tuple[list[dict[str, Any]], Any, list[str]]:
    """The options the plan exit offered, the second prompt's answer after `pick`, and the
    modes the session was switched to."""
    agent = RawAgent(tmp_path, "plan_mode")
    try:
        params = {"protocolVersion": 1, "clientInfo": {"name": client_name, "version": "1.0.0"}}
        assert "result" in agent.call("initialize", params)
        session = agent.new_session()
        first = {"sessionId": session, "prompt": [{"type": "text", "text": "plan it"}]}
        assert "result" in agent.answer(agent.request("session/prompt", first))
        second = {"sessionId": session, "prompt": [{"type": "text", "text": "go on"}]}
        prompt = agent.request("session/prompt", second)
        options: list[dict[str, Any]] | None = None
        while True:
            frame = agent.read_frame()
            assert frame is not None, "the agent ended first"
            if frame.get("method") == "session/request_permission":
                options = frame["params"]["options"]
                chosen = {"outcome": {"outcome": "selected", "optionId": pick}}
                reply = {"jsonrpc": "2.0", "id": frame["id"], "result": chosen}
                agent.write(json.dumps(reply).encode() + b"\n")
            elif "method" not in frame and frame.get("id") == prompt:
                assert options is not None, "no plan exit was asked"
                modes = [
                    f["params"]["update"]["currentModeId"]
                    for f in agent.frames
                    if isinstance(f, dict)
                    and f.get("method") == "session/update"
                    and f["params"]["update"].get("sessionUpdate") == "current_mode_update"
                ]
                return options, frame, modes
    finally:
        agent.close()


@pytest.mark.parametrize("client_name", ["CodeCompanion.nvim", "codecompanion"])
def test_a_client_keyed_by_kind_gets_one_option_of_each_kind(
    tmp_path: Path, client_name: str
) -> None:
    options, answer, modes = _plan_exit(tmp_path, client_name, "exit-plan-bypass")
    assert [(o["optionId"], o["kind"]) for o in options] == [
        ("exit-plan-default", "allow_once"),
        ("exit-plan-bypass", "allow_always"),
        ("reject", "reject_once"),
    ]
    assert max(Counter(o["kind"] for o in options).values()) == 1
    # The one "allow always" it can pick does what its name says.
    assert answer["result"]["stopReason"] == "end_turn"
    assert modes[-1] == "bypassPermissions", modes


def test_a_client_that_reads_names_gets_the_reference_list(tmp_path: Path) -> None:
    options, answer, modes = _plan_exit(tmp_path, "zed", "exit-plan-default")
    assert [(o["optionId"], o["kind"]) for o in options] == REFERENCE
    assert answer["result"]["stopReason"] == "end_turn"
    assert modes[-1] == "default", modes
