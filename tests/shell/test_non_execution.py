"""Why Claude Code did not run a tool, on the card's last update (`_meta.claudeCode.
nonExecutionKind`, `userFeedback`), for every client, as the reference sends it
(docs/reference-adapter.md#non-execution-kind): read from the user frame's `tool_result_meta`,
which the SDK's parser drops, in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapter.scripted_claude.steps import RawFrame, Reply, Result, Scenario, ToolUse
from adapter.view.tool_results import non_execution
from tests.support.shell_harness import agent_in_process

_REFUSED = RawFrame(
    frame={
        "type": "user",
        "session_id": "scripted",
        "uuid": "00000000-0000-4000-8000-0000000c0de3",
        "parent_tool_use_id": None,
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_refused",
                    "content": "The user doesn't want to proceed with this tool use.",
                    "is_error": True,
                },
                {"type": "tool_result", "tool_use_id": "toolu_ran", "content": "a.py"},
            ],
        },
        "tool_result_meta": [
            {
                "id": "toolu_refused",
                "non_execution_kind": "user-rejected",
                "user_feedback": "use tabs",
            },
            {"id": "toolu_ran"},  # no kind: it ran
        ],
    }
)
# A call Claude Code's rules refused before it ran: `permission_denied` fails its card with the
# reason, then the error result comes with its kind.
_RULED = (
    ToolUse(name="Bash", input={"command": "rm -rf /"}, result=None, id="toolu_ruled"),
    RawFrame(
        frame={
            "type": "system",
            "subtype": "permission_denied",
            "session_id": "x",
            "uuid": "pd1",
            "tool_use_id": "toolu_ruled",
            "tool_name": "Bash",
            "decision_reason_type": "rule",
            "decision_reason": "Bash(rm:*) is denied",
        }
    ),
    RawFrame(
        frame={
            "type": "user",
            "session_id": "scripted",
            "uuid": "00000000-0000-4000-8000-0000000c0de4",
            "parent_tool_use_id": None,
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_ruled",
                        "content": "Permission to use Bash has been denied.",
                        "is_error": True,
                    }
                ],
            },
            "tool_result_meta": [{"id": "toolu_ruled", "non_execution_kind": "permission-rule"}],
        }
    ),
)
SCENARIOS = [
    Scenario(
        name="ruled_out_call",
        description="",
        turns=((*_RULED, Reply(), Result()),),
    ),
    Scenario(
        name="refused_call",
        description="",
        turns=(
            (
                ToolUse(
                    name="Bash", input={"command": "rm -rf build"}, result=None, id="toolu_refused"
                ),
                ToolUse(name="Glob", input={"pattern": "*.py"}, result=None, id="toolu_ran"),
                _REFUSED,
                Reply(),
                Result(),
            ),
        ),
    ),
]


def _last_update(updates: list[dict[str, Any]], tool_id: str) -> dict[str, Any]:
    return [u for u in updates if u.get("toolCallId") == tool_id][-1]


@pytest.mark.asyncio
@pytest.mark.parametrize("client_meta", [None, {"terminal_output": True}], ids=["air", "terminal"])
async def test_a_refused_call_says_why_on_its_last_update(
    tmp_path: Path, client_meta: dict[str, Any] | None
) -> None:
    async with agent_in_process(
        tmp_path, "refused_call", scenarios=SCENARIOS, client_meta=client_meta
    ) as agent:
        session = await agent.new_session()
        await agent.prompt(session, "clean up")
        updates = agent.updates()
    refused = _last_update(updates, "toolu_refused")
    assert refused["status"] == "failed"
    assert refused["_meta"]["claudeCode"]["nonExecutionKind"] == "user-rejected"
    assert refused["_meta"]["claudeCode"]["userFeedback"] == "use tabs"
    if client_meta is not None:
        # An AIR client (the harness's default) is not sent the unchanged tool name again
        # (docs/decisions.md#changed-meta-filter); the others get it beside the kind.
        assert refused["_meta"]["claudeCode"]["toolName"] == "Bash"
    ran = _last_update(updates, "toolu_ran")
    assert ran["status"] == "completed"
    assert "nonExecutionKind" not in repr(ran)


def test_the_sidecar_is_read_whatever_its_shape() -> None:
    raw = {
        "tool_result_meta": [
            {"id": "a", "non_execution_kind": "interrupted"},
            {"id": "b", "non_execution_kind": "a-kind-from-later", "user_feedback": "no"},
            {"id": "c", "non_execution_kind": 3},
            {"id": 4, "non_execution_kind": "cancelled"},
            "junk",
            {"id": "d", "non_execution_kind": "permission-rule", "user_feedback": None},
        ]
    }
    assert non_execution(raw) == {
        "a": {"nonExecutionKind": "interrupted"},
        "b": {"nonExecutionKind": "a-kind-from-later", "userFeedback": "no"},
        "d": {"nonExecutionKind": "permission-rule"},
    }
    for nothing in (None, {}, {"tool_result_meta": "x"}, [1, 2]):
        assert non_execution(nothing) == {}


@pytest.mark.asyncio
@pytest.mark.parametrize("client_meta", [None, {"terminal_output": True}], ids=["air", "terminal"])
async def test_a_call_the_rules_refused_says_why_too(
    tmp_path: Path, client_meta: dict[str, Any] | None
) -> None:
    """Its card failed with the reason at `permission_denied`; the result's kind still reaches
    the client (as the reference sends it on the result's update), and the reason stays
    shown: the result's text says less (docs/reference-adapter.md#non-execution-kind)."""
    async with agent_in_process(
        tmp_path, "ruled_out_call", scenarios=SCENARIOS, client_meta=client_meta
    ) as agent:
        session = await agent.new_session()
        await agent.prompt(session, "clean up")
        updates = [u for u in agent.updates() if u.get("toolCallId") == "toolu_ruled"]
    denial, why = updates[-2:]
    assert denial["status"] == "failed"
    assert "Bash(rm:*) is denied" in repr(denial["content"])
    assert why == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "toolu_ruled",
        "_meta": {"claudeCode": {"toolName": "Bash", "nonExecutionKind": "permission-rule"}},
    } or (
        client_meta is None  # AIR is not sent the unchanged tool name again
        and why["_meta"] == {"claudeCode": {"nonExecutionKind": "permission-rule"}}
    )
    assert "has been denied" not in repr(updates)
