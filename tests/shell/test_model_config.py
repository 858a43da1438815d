"""The host's `CLAUDE_MODEL_CONFIG` in process (`agent_in_process`), through the
agent and the real SDK: its
allowlist and overrides reach Claude Code as settings, as the reference adapter passes them
(`parseModelConfig`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


def _claude_log(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def _flag(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, token in enumerate(argv[:-1]) if token == flag]


async def test_the_hosts_model_config_reaches_claude_code(tmp_path: Path) -> None:
    # `CLAUDE_MODEL_CONFIG` (the reference's `parseModelConfig`): its allowlist and overrides
    # go to Claude Code as settings, under the client's own.
    config = {"availableModels": ["opus"], "modelOverrides": {"opus": "claude-opus-4-1"}}
    env = {
        "CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"),
        "CLAUDE_MODEL_CONFIG": json.dumps(config),
    }
    async with agent_in_process(tmp_path, "success", env=env) as adapter:
        await adapter.new_session()
    (argv,) = [list(e["argv"]) for e in _claude_log(tmp_path, "argv")]
    (given,) = _flag(argv, "--settings")
    assert json.loads(given) == config
