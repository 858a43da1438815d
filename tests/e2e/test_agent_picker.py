"""The agent picker end to end through the real stdio agent and SDK: the agents a project
defines (`.claude/agents/*.md`, which Claude Code lists in its initialize answer beside its
built-in subagents) become the `agent` config option; choosing one sets Claude Code's `agent`
flag (`apply_flag_settings`), and the fresh Claude process a lost one is replaced by starts as
that agent (`--agent`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import TIMEOUT, spawn_adapter
from tests.support.scripted_log import is_auth_probe

pytestmark = pytest.mark.asyncio

_REVIEWER = "---\nname: reviewer\ndescription: Reviews code for bugs\n---\nYou review code.\n"


def _claude_log(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def _flag(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, token in enumerate(argv[:-1]) if token == flag]


async def test_a_projects_agent_is_offered_chosen_and_kept_by_a_fresh_claude(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "reviewer.md").write_text(_REVIEWER, encoding="utf-8")
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}
    async with spawn_adapter(tmp_path, "crash_mid_turn", env=env) as adapter:
        opened = await asyncio.wait_for(
            adapter.conn._conn.send_request("session/new", {"cwd": str(project), "mcpServers": []}),
            TIMEOUT,
        )
        session = opened["sessionId"]
        option = next(o for o in opened["configOptions"] if o["id"] == "agent")
        assert option["currentValue"] == "default"
        # Claude Code's built-in subagents (Explore, Plan, ...) are not main-thread personas.
        assert [o["value"] for o in option["options"]] == ["default", "reviewer"]
        assert option["options"][1]["description"] == "Reviews code for bugs"
        params = {"sessionId": session, "configId": "agent", "value": "reviewer"}
        answer = await asyncio.wait_for(
            adapter.conn._conn.send_request("session/set_config_option", params), TIMEOUT
        )
        chosen = next(o for o in answer["configOptions"] if o["id"] == "agent")
        assert chosen["currentValue"] == "reviewer"
        await adapter.prompt(session, "first prompt")  # Claude's process dies in this turn
        await adapter.prompt(session, "second prompt")  # a fresh one answers it
    flags = [
        c["request"]["settings"]
        for c in _claude_log(tmp_path, "control")
        if c["request"].get("subtype") == "apply_flag_settings"
    ]
    assert {"agent": "reviewer"} in flags
    # Not the agent's sign-in reads (`claude auth status`, adapter.agent.auth_push).
    argvs = [list(e["argv"]) for e in _claude_log(tmp_path, "argv") if not is_auth_probe(e["argv"])]
    assert len(argvs) == 2, argvs
    assert _flag(argvs[0], "--agent") == [] and _flag(argvs[1], "--agent") == ["reviewer"]
