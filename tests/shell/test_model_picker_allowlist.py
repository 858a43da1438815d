"""The model picker under the settings' `availableModels`, through the agent and the real SDK in
process: the picker lists the default and the allowlist's own spellings, with the names
of Claude Code's entries they stand for (versioned: "Haiku 4.5"), and a choice sends Claude Code
that spelling (`set_model`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import TIMEOUT
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


def _claude_log(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


async def test_the_allowlist_is_the_picker_and_its_spelling_goes_to_claude(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    settings = {"availableModels": ["claude-haiku-4-5", "opus", "claude-haiku-4-5"]}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}
    async with agent_in_process(tmp_path, "success", env=env) as adapter:
        send = adapter.conn._conn.send_request
        opened = await asyncio.wait_for(
            send("session/new", {"cwd": str(project), "mcpServers": []}), TIMEOUT
        )
        option = next(o for o in opened["configOptions"] if o["id"] == "model")
        assert [(o["value"], o["name"]) for o in option["options"]] == [
            ("default", "Default (recommended)"),
            ("claude-haiku-4-5", "Haiku 4.5"),
            ("opus", "Opus 4.1"),
        ]
        params = {"sessionId": opened["sessionId"], "configId": "model"}
        answer = await asyncio.wait_for(
            send("session/set_config_option", {**params, "value": "claude-haiku-4-5"}), TIMEOUT
        )
        chosen = next(o for o in answer["configOptions"] if o["id"] == "model")
        assert chosen["currentValue"] == "claude-haiku-4-5"
        with pytest.raises(Exception, match="Invalid params"):
            await asyncio.wait_for(
                send("session/set_config_option", {**params, "value": "haiku"}), TIMEOUT
            )
    models = [
        c["request"].get("model")
        for c in _claude_log(tmp_path, "control")
        if c["request"].get("subtype") == "set_model"
    ]
    assert models == ["claude-haiku-4-5"]
