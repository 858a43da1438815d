"""Whose settings may loosen permissions, through the real stdio agent and the scripted Claude
(whose argv is in `claude-log.jsonl`): the user's own `defaultMode: bypassPermissions` is
honoured, and the Claude Code process the agent starts, in the agent's sandboxed environment, is
told so. A repository's escalating mode and the two opt-outs are shell rules, tested in process
(tests/shell/test_permission_trust.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import TIMEOUT, spawn_adapter
from tests.support.scripted_log import is_auth_probe

# Bypass is offered at all only where Claude Code takes it: not as root outside a sandbox.
SANDBOX = {"IS_SANDBOX": "1"}


def _env(tmp_path: Path) -> dict[str, str]:
    return {**SANDBOX, "CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}


def _log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def _permission_modes(tmp_path: Path) -> list[str | None]:
    """The `--permission-mode` of every Claude Code started, in order."""
    found = []
    for entry in _log(tmp_path):
        if entry["kind"] == "argv" and not is_auth_probe(entry["argv"]):
            argv = entry["argv"]
            index = argv.index("--permission-mode") if "--permission-mode" in argv else -1
            found.append(argv[index + 1] if index >= 0 else None)
    return found


async def _new(adapter: Any, cwd: Path) -> dict[str, Any]:
    params: dict[str, Any] = {"cwd": str(cwd), "mcpServers": []}
    answer: dict[str, Any] = await asyncio.wait_for(
        adapter.conn._conn.send_request("session/new", params), TIMEOUT
    )
    return answer


@pytest.mark.asyncio
async def test_the_users_own_bypass_default_is_honoured(tmp_path: Path) -> None:
    (tmp_path / "claude-config").mkdir()
    (tmp_path / "claude-config" / "settings.json").write_text(
        json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}), "utf-8"
    )
    async with spawn_adapter(tmp_path, "success", env=_env(tmp_path)) as adapter:
        answer = await _new(adapter, adapter.workdir)
    assert answer["modes"]["currentModeId"] == "bypassPermissions"
    assert _permission_modes(tmp_path) == ["bypassPermissions"]
