"""What the reference adapter accepts from older clients and Claude Code, in process
(`agent_in_process`, the scripted Claude playing turns written here): the legacy
`_meta.systemPrompt` (a string replaces Claude Code's prompt, `{append}` adds to it,
`excludeDynamicSections` reaches Claude Code's initialize) and `_meta.additionalRoots` (extra
folders), the spec's own fields winning where both are sent; commands Claude Code's `system/init`
marks as bound to its terminal (`terminal_slash_commands`) are not offered; and a `/clear` (Claude
Code's `conversation_reset`) clears the plan and lets the next prompt name the session again."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import RawFrame, Reply, Result, Scenario, ToolUse
from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


def _log_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"), **extra}


def _claude_log(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def _flag_values(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, token in enumerate(argv[:-1]) if token == flag]


async def _open(adapter: Adapter, **params: Any) -> str:
    request = {"cwd": str(adapter.workdir), "mcpServers": [], **params}
    answer = await asyncio.wait_for(
        adapter.conn._conn.send_request("session/new", request), TIMEOUT
    )
    return str(answer["sessionId"])


async def test_a_legacy_appended_prompt_and_roots_reach_claude(tmp_path: Path) -> None:
    roots = [str(tmp_path / "lib"), str(tmp_path / "docs")]
    meta = {"systemPrompt": {"append": "Be brief.", "excludeDynamicSections": True}}
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        await _open(adapter, _meta={**meta, "additionalRoots": roots})
    [argv] = [e["argv"] for e in _claude_log(tmp_path, "argv")]
    assert _flag_values(argv, "--append-system-prompt") == ["Be brief."]
    assert "--system-prompt" not in argv
    assert _flag_values(argv, "--add-dir") == roots
    initialize = [
        c["request"]
        for c in _claude_log(tmp_path, "control")
        if c["request"].get("subtype") == "initialize"
    ]
    assert initialize and initialize[0].get("excludeDynamicSections") is True, initialize


async def test_a_legacy_string_prompt_replaces_claudes(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        await _open(adapter, _meta={"systemPrompt": "You are a reviewer."})
    [argv] = [e["argv"] for e in _claude_log(tmp_path, "argv")]
    assert _flag_values(argv, "--system-prompt") == ["You are a reviewer."]
    assert "--append-system-prompt" not in argv


async def test_the_spec_fields_win_over_the_legacy_ones(tmp_path: Path) -> None:
    spec_dir = str(tmp_path / "spec")
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        await _open(
            adapter,
            systemPrompt={"mode": "append", "content": [{"type": "text", "text": "Spec."}]},
            additionalDirectories=[spec_dir],
            _meta={"systemPrompt": "Legacy.", "additionalRoots": [str(tmp_path / "legacy")]},
        )
    [argv] = [e["argv"] for e in _claude_log(tmp_path, "argv")]
    assert _flag_values(argv, "--append-system-prompt") == ["Spec."]
    assert "--system-prompt" not in argv
    assert _flag_values(argv, "--add-dir") == [spec_dir]


async def test_a_legacy_prompt_of_another_shape_is_ignored_and_bad_roots_refused(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        await _open(adapter, _meta={"systemPrompt": ["not", "a", "prompt"]})
        with pytest.raises(acp.RequestError) as caught:
            await _open(adapter, _meta={"additionalRoots": ["relative/path"]})
    [argv] = [e["argv"] for e in _claude_log(tmp_path, "argv")]
    assert "--system-prompt" not in argv and "--append-system-prompt" not in argv
    assert caught.value.code == -32602
    assert "_meta.additionalRoots" in json.dumps(caught.value.data)


# The scripted Claude's turns these tests play, besides the shipped scenarios.
MINE = [
    Scenario(
        name="terminal_commands",
        description="",
        turns=(
            (
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "init",
                        "session_id": "x",
                        "slash_commands": ["compact", "init", "review"],
                        "terminal_slash_commands": ["init", "/review"],
                    }
                ),
                Reply(),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="clear",
        description="",
        turns=(
            (
                ToolUse(
                    name="TodoWrite",
                    id="t1",
                    input={
                        "todos": [
                            {"content": "Fix it", "status": "pending", "activeForm": "Fixing it"}
                        ]
                    },
                    result="Todos have been modified successfully.",
                ),
                Reply(),
                Result(),
            ),
            (
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "conversation_reset",
                        "session_id": "x",
                        "uuid": "r1",
                        "new_conversation_id": "c2",
                    }
                ),
                Result(result=""),
            ),
        ),
    ),
]


def _offered(adapter: Adapter) -> list[list[str]]:
    return [
        [c["name"] for c in u["availableCommands"]]
        for u in adapter.updates("available_commands_update")
    ]


async def test_terminal_bound_commands_are_not_offered(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "terminal_commands", scenarios=MINE) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        assert isinstance(answer, PromptResponse), answer
    offered = _offered(adapter)
    assert "init" in offered[0] and "review" in offered[0], offered  # before Claude said
    assert "init" not in offered[-1] and "review" not in offered[-1], offered
    assert "compact" in offered[-1] and "mcp" in offered[-1], offered


async def test_a_clear_clears_the_plan_and_the_next_prompt_names_the_session(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "clear", scenarios=MINE) as adapter:
        session = await adapter.new_session()
        for text in ("fix the flaky test", "/clear", "now write the docs"):
            answer = await adapter.prompt(session, text)
            assert isinstance(answer, PromptResponse), answer
    plans = [p["entries"] for p in adapter.updates("plan")]
    assert plans[0] and plans[-1] == [], plans
    titles = [u["title"] for u in adapter.updates("session_info_update") if "title" in u]
    assert titles == ["fix the flaky test", "now write the docs"], titles
