"""Whose failed call's text is shown in a code fence (`failed_text_fenced`,
docs/decisions.md#failed-call-text-fenced): every client's, as the reference's
`toAcpContentUpdate(content, true)` shows it, but the agent control tools' and the plan exit's
for an AIR client, which reads those plain (the reference's `AgentControlReporter` and
`ExitPlanModeReporter`)."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import air_client, failed_text_fenced
from fsm.air.client import PLAIN_ERROR_TOOLS

AGENT_CONTROL = ("SendMessage", "TaskStop", "ListAgents", "Monitor")


def test_the_plain_tools_are_the_references() -> None:
    assert frozenset({*AGENT_CONTROL, "ExitPlanMode"}) == PLAIN_ERROR_TOOLS


@pytest.mark.parametrize("tool", [*AGENT_CONTROL, "ExitPlanMode"])
def test_an_air_client_reads_the_agent_control_and_plan_exit_errors_plain(tool: str) -> None:
    assert failed_text_fenced(tool, air=True) is False


@pytest.mark.parametrize("tool", [*AGENT_CONTROL, "ExitPlanMode"])
def test_any_other_client_gets_them_fenced(tool: str) -> None:
    assert failed_text_fenced(tool, air=False) is True


@pytest.mark.parametrize(
    "tool", ["Read", "Edit", "mcp__srv__run", "EnterPlanMode", "", "sendmessage"]
)
def test_every_other_tool_is_fenced_for_an_air_client_too(tool: str) -> None:
    assert failed_text_fenced(tool, air=True) is True
    assert failed_text_fenced(tool, air=False) is True


def test_any_air_client_counts_whatever_it_declared() -> None:
    # The reference asks only `capabilities.air.client`: no capability is needed.
    metas: list[Any] = [{"jetbrains": {"air": {}}}, {"jetbrains": {"air": {"version": "x"}}}]
    for meta in metas:
        assert failed_text_fenced("SendMessage", air=air_client(meta).air) is False
    assert failed_text_fenced("SendMessage", air=air_client(None).air) is True
