"""The real Claude Code CLI's agent list behind the agent picker.

The bundled CLI (2.1.332) lists the project's own agents (`.claude/agents/*.md`) beside its
built-in subagents in its initialize answer; the session offers only the project's as the
`agent` config option, and the CLI takes a choice (`apply_flag_settings {agent}`) without
refusing it, and the next turn runs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import real_adapter
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
