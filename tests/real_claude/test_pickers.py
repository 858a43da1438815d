"""The real Claude Code CLI's agent list behind the agent picker, and its word on Ultracode.

The bundled CLI (2.1.332) lists the project's own agents (`.claude/agents/*.md`) beside its
built-in subagents in its initialize answer; the session offers only the project's as the
`agent` config option, and the CLI takes a choice (`apply_flag_settings {agent}`) without
refusing it, and the next turn runs. Its `get_settings` answer says whether ultracode is
available and asked for, and names the model it was computed for (`applied.model`, the full id
a listed entry resolves to), which the session reads after its answer.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import real_adapter, wait_until
from tests.support.harness import TIMEOUT

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]

_REVIEWER = "---\nname: reviewer\ndescription: Reviews code for bugs\n---\nYou review code.\n"


async def test_the_projects_agent_is_offered_and_claude_code_takes_the_choice(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    double.script(Answer("Reviewed."))
    project = tmp_path / "agents-project"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "reviewer.md").write_text(_REVIEWER, encoding="utf-8")
    async with real_adapter(tmp_path, double, capable=True) as adapter:
        send = adapter.conn._conn.send_request
        opened = await asyncio.wait_for(
            send("session/new", {"cwd": str(project), "mcpServers": []}), TIMEOUT
        )
        option = next(o for o in opened["configOptions"] if o["id"] == "agent")
        params: dict[str, Any] = {
            "sessionId": opened["sessionId"],
            "configId": "agent",
            "value": "reviewer",
        }
        answer = await asyncio.wait_for(send("session/set_config_option", params), TIMEOUT)
        turn = await adapter.prompt(opened["sessionId"], "review the parser")
    assert [o["value"] for o in option["options"]] == ["default", "reviewer"]
    chosen = next(o for o in answer["configOptions"] if o["id"] == "agent")
    assert chosen["currentValue"] == "reviewer"
    assert getattr(turn, "stop_reason", None) == "end_turn", turn


async def test_claude_codes_ultracode_answer_names_its_model_and_settles_the_option(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    """docs/decisions.md#ultracode-after-the-answer: the project's settings ask for ultracode,
    the answer shows it on, and Claude Code's late answer, for the model it names, agrees."""
    project = tmp_path / "ultracode-project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"ultracode": true}', encoding="utf-8")
    said = "get_settings says Ultracode is available"
    async with real_adapter(tmp_path, double, capable=True, CLAUDE_ACP_LOG="DEBUG") as adapter:
        send = adapter.conn._conn.send_request
        opened = await asyncio.wait_for(
            send("session/new", {"cwd": str(project), "mcpServers": []}), TIMEOUT
        )
        await wait_until(lambda: said in adapter.stderr())
        params = {"sessionId": opened["sessionId"], "configId": "effort", "value": "high"}
        high = await asyncio.wait_for(send("session/set_config_option", params), TIMEOUT)
        line = next(x for x in adapter.stderr().splitlines() if said in x)
    shown = next(o for o in opened["configOptions"] if o["id"] == "ultracode")
    assert shown["currentValue"] == "on"
    assert "available: True, requested: True (for claude-" in line, line
    told = [
        o.get("currentValue")
        for u in adapter.updates("config_option_update")
        for o in u["configOptions"]
        if o["id"] == "ultracode"
    ]
    assert told == ["on"]  # the effort's update only: Claude Code said what was shown
    after = next(o for o in high["configOptions"] if o["id"] == "ultracode")
    assert after["currentValue"] == "on"
