"""Whose settings may loosen permissions, through the real stdio agent and the scripted Claude
(whose argv and control requests are in `claude-log.jsonl`): a repository's committed
`.claude/settings.json` with an escalating `defaultMode` starts in Manual and Claude Code is
started without the escalation; the same key in the user's settings is honoured; a settings
opt-out and the host's opt-out take bypass off the offered modes and refuse a later switch."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.harness import TIMEOUT, spawn_adapter

# Bypass is offered at all only where Claude Code takes it: not as root outside a sandbox.
SANDBOX = {"IS_SANDBOX": "1"}
ESCALATING = ("bypassPermissions", "acceptEdits", "auto")


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
        if entry["kind"] == "argv":
            argv = entry["argv"]
            index = argv.index("--permission-mode") if "--permission-mode" in argv else -1
            found.append(argv[index + 1] if index >= 0 else None)
    return found


def _switches(tmp_path: Path) -> list[str]:
    return [
        e["request"]["mode"]
        for e in _log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == "set_permission_mode"
    ]


def _folder(tmp_path: Path, name: str, settings: dict[str, Any] | None) -> Path:
    folder = tmp_path / name
    (folder / ".claude").mkdir(parents=True)
    if settings is not None:
        (folder / ".claude" / "settings.json").write_text(json.dumps(settings), "utf-8")
    return folder


async def _new(adapter: Any, cwd: Path, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"cwd": str(cwd), "mcpServers": []}
    if meta is not None:
        params["_meta"] = meta
    answer: dict[str, Any] = await asyncio.wait_for(
        adapter.conn._conn.send_request("session/new", params), TIMEOUT
    )
    return answer


def _offered(answer: dict[str, Any]) -> list[str]:
    return [m["id"] for m in answer["modes"]["availableModes"]]


@pytest.mark.asyncio
async def test_a_repositorys_escalating_mode_starts_in_manual(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "success", env=_env(tmp_path)) as adapter:
        answers = []
        for mode in ESCALATING:
            folder = _folder(tmp_path, f"repo-{mode}", {"permissions": {"defaultMode": mode}})
            answers.append(await _new(adapter, folder))
    assert [a["modes"]["currentModeId"] for a in answers] == ["default"] * 3
    assert all("bypassPermissions" in _offered(a) for a in answers)  # still the user's choice
    # Claude Code was told Manual: a host flag would have skipped its own trust policy.
    assert _permission_modes(tmp_path) == ["default"] * 3
    said = adapter.stderr_path.read_text("utf-8", "replace")
    for mode in ESCALATING:
        assert said.count(f"ignoring permissions.defaultMode {mode!r}") == 1


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


@pytest.mark.asyncio
async def test_both_opt_outs_take_bypass_away_and_refuse_a_later_switch(tmp_path: Path) -> None:
    disabled = {"permissions": {"disableBypassPermissionsMode": "disable"}}
    host_opt_out = {"claudeCode": {"options": {"allowDangerouslySkipPermissions": False}}}
    async with spawn_adapter(tmp_path, "success", env=_env(tmp_path)) as adapter:
        by_settings = await _new(adapter, _folder(tmp_path, "managed-repo", disabled))
        by_host = await _new(adapter, _folder(tmp_path, "plain", None), host_opt_out)
        refusals = []
        for answer in (by_settings, by_host):
            session = answer["sessionId"]
            for call in (
                adapter.conn.set_session_mode(session_id=session, mode_id="bypassPermissions"),
                adapter.conn.set_config_option(
                    config_id="mode", session_id=session, value="bypassPermissions"
                ),
            ):
                with pytest.raises(acp.RequestError) as refused:
                    await asyncio.wait_for(call, TIMEOUT)
                refusals.append(refused.value.code)
        # A session without an opt-out still offers it: the assertions above can fail.
        plain = await _new(adapter, _folder(tmp_path, "plain-too", None))
    assert "bypassPermissions" not in _offered(by_settings)
    assert "bypassPermissions" not in _offered(by_host)
    for answer in (by_settings, by_host):
        [mode_option] = [o for o in answer["configOptions"] if o["id"] == "mode"]
        assert "bypassPermissions" not in [o["value"] for o in mode_option["options"]]
    assert refusals == [-32602] * 4
    assert "bypassPermissions" in _offered(plain)
    assert "bypassPermissions" not in _switches(tmp_path)
