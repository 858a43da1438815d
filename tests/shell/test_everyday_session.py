"""The everyday session in process (`agent_in_process`): modes, pickers, commands,
list/resume/fork/close, MCP servers, permissions and settings, with a real ACP client, the real
SDK and the scripted Claude in this process. What runs Claude Code's own command line (sign-in)
is end to end: tests/e2e/test_everyday_session.py.

The scripted Claude records its argv and every control request it receives (`$CLAUDE_ACP_
SCRIPTED_LOG`), so a test sees exactly what reached Claude.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import (
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    McpServerStdio,
    PromptResponse,
    SseMcpServer,
)

from adapter.scripted_claude.handshake import COMMANDS, MODELS
from adapter.scripted_claude.session_scenarios import DEPLOY, PLAN
from tests.support.choosing_client import ChoosingClient, kind, option
from tests.support.harness import TIMEOUT, until
from tests.support.scripted_log import claude_log
from tests.support.shell_harness import agent_in_process


def _log_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"), **extra}


def controls(tmp_path: Path, subtype: str) -> list[dict[str, Any]]:
    return [
        e["request"]
        for e in claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == subtype
    ]


def argvs(tmp_path: Path) -> list[list[str]]:
    return [e["argv"] for e in claude_log(tmp_path) if e["kind"] == "argv"]


async def rpc_error(call: Any) -> acp.RequestError:
    with pytest.raises(acp.RequestError) as caught:
        await asyncio.wait_for(call, TIMEOUT)
    return caught.value


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True)
    return dumped


def _option(response: dict[str, Any], config_id: str) -> dict[str, Any]:
    return next(o for o in response["configOptions"] if o["id"] == config_id)


def _values(config_option: dict[str, Any]) -> list[str]:
    return [o["value"] for o in config_option["options"]]


def _as_root_without_sandbox() -> bool:
    # The adapter's environment is the harness's: IS_SANDBOX only when a test passes it.
    return os.geteuid() == 0


# --- 1-3: pickers and commands -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_new_session_offers_modes_model_effort_and_claude_codes_commands(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        response = _dump(
            await asyncio.wait_for(
                adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[]), TIMEOUT
            )
        )
        await until(lambda: bool(adapter.updates("available_commands_update")), "the commands")
    modes = [m["id"] for m in response["modes"]["availableModes"]]
    assert response["modes"]["currentModeId"] == "default"
    expected = ["default", "acceptEdits", "plan"]
    if not _as_root_without_sandbox():
        expected.append("bypassPermissions")
    assert modes == expected
    mode = _option(response, "mode")
    assert (mode["category"], mode["currentValue"], _values(mode)) == ("mode", "default", modes)
    model = _option(response, "model")
    assert model["category"] == "model" and model["currentValue"] == "default"
    assert _values(model) == [m["value"] for m in MODELS]
    assert model["options"][1]["name"] == "Opus 4.1"
    effort = _option(response, "effort")
    assert effort["category"] == "thought_level"
    assert _values(effort) == ["default", "low", "medium", "high"]
    # The command list arrives after the response, from Claude Code's own list.
    [update] = adapter.updates("available_commands_update")
    commands = {c["name"]: c for c in update["availableCommands"]}
    # ... and `/mcp`, which the adapter answers itself.
    # `/mcp` and `/remote-control` are the adapter's own (the reference offers both).
    own = {"mcp", "remote-control"}
    assert set(commands) == {c["name"] for c in COMMANDS} - {"clear", "cost", "login"} | own
    assert commands["review"]["description"] == "Review a pull request"
    assert commands["review"]["input"] == {"hint": "[pr-number]"}
    assert "input" not in commands["init"]
    frames = [f.message for f in adapter.frames if f.direction == "incoming"]
    answer = next(i for i, m in enumerate(frames) if "sessionId" in m.get("result", {}))
    listed = next(
        i
        for i, m in enumerate(frames)
        if m.get("params", {}).get("update", {}).get("sessionUpdate") == "available_commands_update"
    )
    assert answer < listed


@pytest.mark.asyncio
async def test_bypass_is_offered_in_a_sandbox(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", env={"IS_SANDBOX": "1"}) as adapter:
        response = await asyncio.wait_for(
            adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[]), TIMEOUT
        )
    assert response.modes is not None
    assert "bypassPermissions" in [m.id for m in response.modes.available_modes]


@pytest.mark.asyncio
async def test_mode_model_and_effort_switches_reach_the_running_claude(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        await asyncio.wait_for(
            adapter.conn.set_session_mode(session_id=session, mode_id="plan"), TIMEOUT
        )
        picked = await asyncio.wait_for(
            adapter.conn.set_config_option(config_id="model", session_id=session, value="opus"),
            TIMEOUT,
        )
        effort = await asyncio.wait_for(
            adapter.conn.set_config_option(config_id="effort", session_id=session, value="max"),
            TIMEOUT,
        )
        moded = await asyncio.wait_for(
            adapter.conn.set_config_option(
                config_id="mode", session_id=session, value="acceptEdits"
            ),
            TIMEOUT,
        )
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # The first is the start-up's: Claude starts in auto, which this model list lacks.
    modes = [r["mode"] for r in controls(tmp_path, "set_permission_mode")]
    assert modes == ["default", "plan", "acceptEdits"]
    assert [r["model"] for r in controls(tmp_path, "set_model")] == ["opus"]
    flags = [r["settings"] for r in controls(tmp_path, "apply_flag_settings")]
    assert flags == [{"effortLevel": "max"}]
    assert len(argvs(tmp_path)) == 1  # one Claude process: nothing was restarted
    options = {o.id: o for o in picked.config_options}
    assert options["model"].current_value == "opus"
    # Opus takes "max": the effort picker follows the chosen model.
    assert "max" in [o.value for o in options["effort"].options]
    assert {o.id: o.current_value for o in effort.config_options}["effort"] == "max"
    assert {o.id: o.current_value for o in moded.config_options}["mode"] == "acceptEdits"
    assert [u["currentModeId"] for u in adapter.updates("current_mode_update")] == [
        "plan",
        "acceptEdits",
    ]
    last = adapter.updates("config_option_update")[-1]["configOptions"]
    assert {o["id"]: o["currentValue"] for o in last} == {
        "mode": "acceptEdits",
        "model": "opus",
        "effort": "max",
    }
    # The turn ran on the new model (the scripted Claude resolves the alias like the CLI).
    transcript = next(adapter.config_dir.rglob(f"{session}.jsonl")).read_text(encoding="utf-8")
    assert '"model": "claude-opus-4-1"' in transcript


@pytest.mark.asyncio
async def test_bad_choices_are_invalid_params_and_change_nothing(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        conn = adapter.conn
        errors = [
            await rpc_error(conn.set_session_mode(session_id=session, mode_id="yolo")),
            await rpc_error(conn.set_session_mode(session_id=session, mode_id="dontAsk")),
            await rpc_error(
                conn.set_config_option(config_id="model", session_id=session, value="gpt-9")
            ),
            await rpc_error(
                conn.set_config_option(config_id="effort", session_id=session, value="max")
            ),
            await rpc_error(
                conn.set_config_option(config_id="colour", session_id=session, value="red")
            ),
            await rpc_error(
                conn.set_config_option(config_id="model", session_id=session, value=True)
            ),
            await rpc_error(conn.set_session_mode(session_id="nope", mode_id="plan")),
        ]
        answer = await adapter.prompt(session, "still there?")
    assert [e.code for e in errors] == [-32602] * len(errors)
    assert "unknown mode" in json.dumps(errors[0].data)
    assert "unknown config option" in json.dumps(errors[4].data)
    # Only the start-up's (auto, which this model list lacks, is Manual): nothing of theirs.
    assert controls(tmp_path, "set_permission_mode") == [
        {"subtype": "set_permission_mode", "mode": "default"}
    ]
    assert controls(tmp_path, "set_model") == []
    assert adapter.updates("current_mode_update") == []
    assert adapter.updates("config_option_update") == []
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_claude_enters_plan_mode_and_leaving_it_is_a_permission_choice(
    tmp_path: Path,
) -> None:
    client = ChoosingClient(option("exit-plan-accept-edits"))
    # A plain client: JetBrains AIR gets only its share of the card
    # (tests/shell/test_permission_cards.py).
    async with agent_in_process(tmp_path, "plan_mode", client=client, capable=False) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "fix the bug")
        entered = [u["currentModeId"] for u in adapter.updates("current_mode_update")]
        second = await adapter.prompt(session, "go ahead")
        third = await adapter.prompt(session, "and now?")
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    assert isinstance(third, PromptResponse) and third.stop_reason == "end_turn"
    assert entered == ["plan"]  # Claude's own EnterPlanMode reached the client
    [offered] = client.offered
    # The reference adapter's choices (bypass is not offered to root outside a sandbox).
    assert [(o.option_id, o.name, o.kind) for o in offered] == [
        ("exit-plan-default", "Yes, manually approve edits", "allow_once"),
        (
            "exit-plan-clear-accept-edits",
            "Yes, clear context (0% used) and auto-accept edits",
            "allow_always",
        ),
        ("exit-plan-accept-edits", "Yes, auto-accept edits", "allow_always"),
        ("reject", "No, keep planning", "reject_once"),
    ]
    [asked] = client.permission_requests
    assert asked.kind == "switch_mode" and asked.title == "Ready to code?"
    assert asked.content[0].content.text == PLAN  # the plan to approve, as markdown
    assert [u["currentModeId"] for u in adapter.updates("current_mode_update")] == [
        "plan",
        "acceptEdits",
    ]
    assert "ExitPlanMode was allowed." in adapter.agent_texts()


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_keep_planning_stays_in_plan_mode(tmp_path: Path, capable: bool) -> None:
    client = ChoosingClient(option("reject"))
    async with agent_in_process(tmp_path, "plan_mode", client=client, capable=capable) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "fix the bug")
        kept = await adapter.prompt(session, "go ahead")
        after = await adapter.prompt(session, "fine")
    # As the reference answers it: the user's own choice stopped the turn, so it is
    # `cancelled`, with no record and no text made of Claude Code's `[ede_diagnostic]` line.
    assert isinstance(kept, PromptResponse) and kept.stop_reason == "cancelled"
    assert "jetbrains" not in (kept.field_meta or {})
    assert adapter.records() == []
    assert not any("ede_diagnostic" in t for t in adapter.agent_texts())
    assert "ede_diagnostic" not in json.dumps(adapter.incoming())
    assert [u["currentModeId"] for u in adapter.updates("current_mode_update")] == ["plan"]
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_the_command_list_is_refreshed_when_claude_says_it_changed(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "commands_changed") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
        await adapter.prompt(session, "again")  # no change: no new list
    first, second = adapter.updates("available_commands_update")
    names = [c["name"] for c in second["availableCommands"]]
    assert "deploy" not in [c["name"] for c in first["availableCommands"]]
    # Claude Code's new command joins its list, before the adapter's `/remote-control`.
    before = [c["name"] for c in first["availableCommands"]]
    assert before[-1] == names[-1] == "remote-control"
    assert names == [*before[:-1], "deploy", "remote-control"]
    deploy = second["availableCommands"][-2]
    assert deploy == {
        "name": "deploy",
        "description": DEPLOY["description"],
        "input": {"hint": "<env>"},
    }


@pytest.mark.asyncio
async def test_slash_commands_reach_claude_as_commands(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "/review 42")
        await adapter.prompt(session, "/mcp:github:pr_summary 7")
    texts = adapter.agent_texts()
    assert "Scripted reply to: /review 42" in texts
    assert "Scripted reply to: /github:pr_summary (MCP) 7" in texts


# --- 4: list, resume, fork, close ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_list_resume_fork_and_close(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        cwd = str(adapter.workdir)
        session = await adapter.new_session()
        await adapter.prompt(session, "remember the number 7")
        listed = await asyncio.wait_for(adapter.conn.list_sessions(cwd=cwd), TIMEOUT)
        forked = await asyncio.wait_for(
            adapter.conn.fork_session(cwd=cwd, session_id=session, mcp_servers=[]), TIMEOUT
        )
        fork_answer = await adapter.prompt(forked.session_id, "in the fork")
        closed = await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        again = await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        gone = await adapter.prompt(session, "are you there?")
        await until(
            lambda: any(
                e["kind"] == "exit" and e["session_id"] == session for e in claude_log(tmp_path)
            ),
            "the closed session's Claude to exit",
        )
    [item] = [s for s in listed.sessions if s.session_id == session]
    assert item.cwd == cwd and item.title == "remember the number 7"
    assert item.updated_at is not None and item.updated_at.endswith("Z")
    assert listed.next_cursor is None
    assert forked.session_id != session and forked.modes is not None and forked.config_options
    assert isinstance(fork_answer, PromptResponse) and fork_answer.stop_reason == "end_turn"
    assert f"--resume={forked.session_id}" in argvs(tmp_path)[-1]
    fork_text = next(adapter.config_dir.rglob(f"{forked.session_id}.jsonl")).read_text("utf-8")
    assert "remember the number 7" in fork_text and "in the fork" in fork_text
    assert closed is not None and again is not None  # idempotent
    assert isinstance(gone, acp.RequestError)


@pytest.mark.asyncio
async def test_resume_continues_without_replay_in_a_new_adapter(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as first:
        session = await first.new_session()
        await first.prompt(session, "first words")
    # In process every Claude logs to the same file: what the test reads is the second's.
    (tmp_path / "claude-log.jsonl").unlink()
    web = HttpMcpServer(type="http", name="web", url="http://127.0.0.1:9/mcp", headers=[])
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as second:
        resumed = await asyncio.wait_for(
            second.conn.resume_session(
                cwd=str(second.workdir), session_id=session, mcp_servers=[web]
            ),
            TIMEOUT,
        )
        replayed = second.updates("user_message_chunk") + second.updates("agent_message_chunk")
        answer = await second.prompt(session, "second words")
    assert replayed == []
    assert resumed.modes is not None and resumed.config_options
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [argv] = argvs(tmp_path)
    assert f"--resume={session}" in argv
    # The client's MCP servers reach a resumed Claude too.
    assert json.loads(argv[argv.index("--mcp-config") + 1])["mcpServers"]["web"]["type"] == "http"
    assert "Scripted reply to: second words" in second.agent_texts()


@pytest.mark.asyncio
async def test_a_session_never_prompted_can_be_loaded_and_resumed(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as first:
        session = await first.new_session()
    async with agent_in_process(tmp_path, "success") as second:
        cwd = str(second.workdir)
        loaded = await asyncio.wait_for(
            second.conn.load_session(cwd=cwd, session_id=session, mcp_servers=[]), TIMEOUT
        )
        resumed = await asyncio.wait_for(
            second.conn.resume_session(cwd=cwd, session_id=session, mcp_servers=[]), TIMEOUT
        )
        answer = await second.prompt(session, "hello at last")
    assert loaded.modes is not None and resumed.modes is not None
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # Claude's transcript now exists under the very id the client holds.
    assert next(second.config_dir.rglob(f"{session}.jsonl"))


@pytest.mark.asyncio
async def test_unknown_sessions_are_not_found(tmp_path: Path) -> None:
    unknown = str(uuid.uuid4())
    async with agent_in_process(tmp_path, "success") as adapter:
        cwd = str(adapter.workdir)
        conn = adapter.conn
        session = await adapter.new_session()  # a known session on disk, that stays open
        await adapter.prompt(session, "hello")
        errors = [
            await rpc_error(conn.fork_session(cwd=cwd, session_id=unknown, mcp_servers=[])),
            await rpc_error(conn.resume_session(cwd=cwd, session_id=unknown, mcp_servers=[])),
            await rpc_error(conn.load_session(cwd=cwd, session_id=unknown, mcp_servers=[])),
            await rpc_error(conn.close_session(session_id=unknown)),
            await rpc_error(conn.close_session(session_id="*")),  # not a pattern
            await rpc_error(conn.list_sessions(cwd=cwd, cursor="page two")),
        ]
        answer = await adapter.prompt(session, "fine")
    assert [e.code for e in errors] == [-32002, -32002, -32002, -32002, -32002, -32602]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


# --- 5: the client's MCP servers ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_client_mcp_servers_reach_claude(tmp_path: Path) -> None:
    servers: list[Any] = [
        McpServerStdio(
            name="files",
            command="/usr/bin/mcp-files",
            args=["--root", "/srv"],
            env=[EnvVariable(name="TOKEN", value="t")],
        ),
        HttpMcpServer(
            type="http",
            name="web",
            url="http://127.0.0.1:9/mcp",
            headers=[HttpHeader(name="X-Key", value="k")],
        ),
        SseMcpServer(type="sse", name="events", url="http://127.0.0.1:9/sse", headers=[]),
    ]
    async with agent_in_process(tmp_path, "success") as adapter:
        await asyncio.wait_for(
            adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=servers), TIMEOUT
        )
    [argv] = argvs(tmp_path)
    config = json.loads(argv[argv.index("--mcp-config") + 1])
    assert config["mcpServers"] == {
        "files": {
            "type": "stdio",
            "command": "/usr/bin/mcp-files",
            "args": ["--root", "/srv"],
            "env": {"TOKEN": "t"},
        },
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "k"}},
        "events": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {}},
    }


@pytest.mark.asyncio
async def test_a_malformed_mcp_server_is_invalid_params(tmp_path: Path) -> None:
    bad_entries: list[Any] = [
        {"type": "http", "name": "web", "headers": []},
        {"name": "files", "args": [], "env": []},
        {"type": "acp", "name": "inner", "id": "x"},
        {"name": "files", "command": "x", "args": [], "env": [{"name": "A"}]},
    ]
    async with agent_in_process(tmp_path, "success") as adapter:
        errors = []
        for entry in bad_entries:
            params = {"cwd": str(adapter.workdir), "mcpServers": [entry]}
            errors.append(await rpc_error(adapter.conn._conn.send_request("session/new", params)))
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fine")
    assert [e.code for e in errors] == [-32602] * len(bad_entries)
    assert "entry 0: an http server needs a url" in json.dumps(errors[0].data)
    assert len(argvs(tmp_path)) == 1  # no Claude was started for a refused request
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


# --- 6: permissions -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_always_allow_is_kept_by_claude_code_for_the_next_session(tmp_path: Path) -> None:
    client = ChoosingClient(kind("allow_always"))
    async with agent_in_process(tmp_path, "permission_rules", client=client) as adapter:
        first = await adapter.new_session()
        await adapter.prompt(first, "test it")
        second = await adapter.new_session()  # a new Claude process
        await adapter.prompt(second, "test it again")
    [offered] = client.offered  # the second session did not ask
    names = {o.kind: o.name for o in offered}
    assert names["allow_always"] == "Yes, and don't ask again for `npm test` commands"
    local = json.loads((adapter.workdir / ".claude" / "settings.local.json").read_text("utf-8"))
    assert local["permissions"]["allow"] == ["Bash(npm test:*)"]
    assert adapter.agent_texts().count("Bash was allowed.") == 2


@pytest.mark.asyncio
async def test_the_current_mode_is_respected(tmp_path: Path) -> None:
    client = ChoosingClient(kind("allow_once"))
    async with agent_in_process(tmp_path, "edit_permission", client=client) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "edit once")
        await asyncio.wait_for(
            adapter.conn.set_session_mode(session_id=session, mode_id="acceptEdits"), TIMEOUT
        )
        await adapter.prompt(session, "edit twice")
    [offered] = client.offered  # asked in the default mode only
    always = next(o for o in offered if o.kind == "allow_always")
    assert always.name == "Yes, allow all edits during this session"
    assert adapter.agent_texts().count("Edit was allowed.") == 2


@pytest.mark.asyncio
async def test_cancel_withdraws_a_pending_permission_request(tmp_path: Path) -> None:
    client = ChoosingClient(kind("allow_once"), hold=True)
    async with agent_in_process(tmp_path, "permission_rules", client=client) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "test it"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        await adapter.conn.cancel(session_id=session)
        cancelled = await asyncio.wait_for(pending, TIMEOUT)
        after = await adapter.prompt(session, "try again")
    assert isinstance(cancelled, PromptResponse) and cancelled.stop_reason == "cancelled"
    # The client is told the question it holds is withdrawn (ACP `$/cancel_request`).
    asked = [m for m in adapter.incoming() if m.get("method") == "session/request_permission"]
    withdrawn = [m for m in adapter.incoming() if m.get("method") == "$/cancel_request"]
    assert [m["params"] for m in withdrawn] == [{"requestId": asked[0]["id"]}]
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert len(client.offered) == 2
    # The withdrawn question ran nothing: only the second turn's call was allowed.
    assert adapter.agent_texts().count("Bash was allowed.") == 1


# --- 7-8: sign-in and settings ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_claude_code_settings_files_are_honoured(tmp_path: Path) -> None:
    project = tmp_path / "project" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(npm test:*)"]}}), encoding="utf-8"
    )
    (tmp_path / "claude-config").mkdir()
    (tmp_path / "claude-config" / "settings.json").write_text(
        json.dumps({"permissions": {"defaultMode": "acceptEdits"}}), encoding="utf-8"
    )
    client = ChoosingClient(kind("reject_once"))
    async with agent_in_process(
        tmp_path, "permission_rules", client=client, env=_log_env(tmp_path)
    ) as adapter:
        response = await asyncio.wait_for(
            adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[]), TIMEOUT
        )
        await adapter.prompt(response.session_id, "test it")
    assert response.modes is not None and response.modes.current_mode_id == "acceptEdits"
    [argv] = argvs(tmp_path)
    assert "--setting-sources=user,project,local" in argv
    assert client.offered == []  # the project's rule allowed it
    assert "Bash was allowed." in adapter.agent_texts()
