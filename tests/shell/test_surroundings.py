"""Extra folders and a client system prompt reach Claude.

Sent raw (acp's schema drops `systemPrompt`): `additionalDirectories` becomes `--add-dir` once
per folder, an `append` prompt `--append-system-prompt`, an `override` one `--system-prompt`, on
`session/new`, `load`, `resume` and `fork` alike (the client sends them again each time, as with
the reference adapter); bad values get -32602 naming the field and start no Claude.

Played in process (`agent_in_process`: the agent, the real SDK and the scripted Claude in this
process)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process


def argvs(tmp_path: Path) -> list[list[str]]:
    path = tmp_path / "claude-log.jsonl"
    if not path.exists():
        return []
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [list(e["argv"]) for e in entries if e["kind"] == "argv"]


def flag_values(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, token in enumerate(argv[:-1]) if token == flag]


def text_prompt(mode: str, *texts: str) -> dict[str, Any]:
    return {"mode": mode, "content": [{"type": "text", "text": t} for t in texts]}


async def raw(adapter: Adapter, method: str, params: dict[str, Any]) -> Any:
    return await asyncio.wait_for(adapter.conn._conn.send_request(method, params), TIMEOUT)


async def refused(adapter: Adapter, method: str, params: dict[str, Any]) -> acp.RequestError:
    with pytest.raises(acp.RequestError) as caught:
        await raw(adapter, method, params)
    return caught.value


def opening(adapter: Adapter, **extra: Any) -> dict[str, Any]:
    return {"cwd": str(adapter.workdir), "mcpServers": [], **extra}


@pytest.mark.asyncio
async def test_folders_and_an_appended_prompt_reach_claude(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        extra = [str(tmp_path / "lib"), str(tmp_path / "docs")]
        params = opening(
            adapter,
            additionalDirectories=extra,
            systemPrompt=text_prompt("append", "Be brief.", "Use British spelling."),
        )
        answer = await raw(adapter, "session/new", params)
        assert (await adapter.prompt(answer["sessionId"], "hi")).stop_reason == "end_turn"  # type: ignore[union-attr]
    [argv] = argvs(tmp_path)
    assert flag_values(argv, "--add-dir") == extra
    assert flag_values(argv, "--append-system-prompt") == ["Be brief.\n\nUse British spelling."]
    assert "--system-prompt" not in argv


@pytest.mark.asyncio
async def test_an_override_prompt_replaces_claudes_and_none_leaves_the_default(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        await raw(
            adapter,
            "session/new",
            opening(adapter, systemPrompt=text_prompt("override", "Only haiku.")),
        )
        await raw(adapter, "session/new", opening(adapter))
    replaced, plain = argvs(tmp_path)
    assert flag_values(replaced, "--system-prompt") == ["Only haiku."]
    assert "--append-system-prompt" not in replaced
    assert "--add-dir" not in plain and "--append-system-prompt" not in plain
    assert "--system-prompt" not in plain  # Claude Code's own prompt (the preset)


@pytest.mark.asyncio
async def test_load_resume_and_fork_take_what_the_client_sends_again(tmp_path: Path) -> None:
    folder = str(tmp_path / "shared")
    again = {"additionalDirectories": [folder], "systemPrompt": text_prompt("append", "Again.")}
    async with agent_in_process(tmp_path, "success") as adapter:
        session = (await raw(adapter, "session/new", opening(adapter, **again)))["sessionId"]
        assert (await adapter.prompt(session, "hi")).stop_reason == "end_turn"  # type: ignore[union-attr]
        # A resume of the live session with other surroundings restarts its Claude with them.
        other = {"additionalDirectories": [folder, str(tmp_path / "more")]}
        await raw(adapter, "session/resume", opening(adapter, sessionId=session, **other))
        # The same again: the running Claude is kept.
        await raw(adapter, "session/resume", opening(adapter, sessionId=session, **other))
        await raw(adapter, "session/load", opening(adapter, sessionId=session, **again))
        forked = await raw(adapter, "session/fork", opening(adapter, sessionId=session, **again))
        assert forked["sessionId"] != session
    first, resumed, loaded, fork = argvs(tmp_path)
    assert flag_values(resumed, "--add-dir") == [folder, str(tmp_path / "more")]
    assert "--append-system-prompt" not in resumed
    for argv in (first, loaded, fork):
        assert flag_values(argv, "--add-dir") == [folder]
        assert flag_values(argv, "--append-system-prompt") == ["Again."]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("extra", "field", "says"),
    [
        ({"additionalDirectories": "/tmp"}, "additionalDirectories", "must be a list"),
        ({"additionalDirectories": ["relative/dir"]}, "additionalDirectories", "relative/dir"),
        ({"additionalDirectories": [7]}, "additionalDirectories", "must be strings"),
        ({"systemPrompt": "be brief"}, "systemPrompt", "must be an object"),
        (
            {"systemPrompt": text_prompt("prepend", "x")},
            "systemPrompt",
            "unsupported mode: prepend",
        ),
        (
            {
                "systemPrompt": {
                    "mode": "append",
                    "content": [{"type": "image", "data": "", "mimeType": "image/png"}],
                }
            },
            "systemPrompt",
            "received a image block",
        ),
        ({"systemPrompt": {"mode": "append", "content": "x"}}, "systemPrompt", "list of text"),
    ],
)
async def test_bad_values_get_invalid_params_naming_the_field(
    tmp_path: Path, extra: dict[str, Any], field: str, says: str
) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        for method in ("session/new", "session/resume"):
            params = opening(adapter, **extra)
            if method != "session/new":
                params["sessionId"] = "00000000-0000-4000-8000-000000000000"
            error = await refused(adapter, method, params)
            assert error.code == -32602
            assert says in (error.data or {})[field]
    assert argvs(tmp_path) == []  # no Claude was started


@pytest.mark.asyncio
async def test_initialize_advertises_both(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        [answer] = [
            m["result"]
            for m in adapter.incoming()
            if isinstance(m.get("result"), dict) and "agentCapabilities" in m["result"]
        ]
    session = answer["agentCapabilities"]["sessionCapabilities"]
    assert session["additionalDirectories"] == {}
    assert session["systemPrompt"] == {"mode": {"override": {}}}
