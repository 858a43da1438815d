"""The JetBrains AIR extension set, in process (`agent_in_process`: the agent, a real ACP client
and the scripted Claude under the real SDK), for three clients: AIR declaring the set, AIR
declaring only sessionFailure, and a plain client. Each capability's
exact frames go to the clients it is for and to no other."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.session_scenarios import PLAN
from tests.support.harness import OPT_IN, TIMEOUT, Adapter, RecordingClient, until
from tests.support.shell_harness import agent_in_process

AIR_SET: dict[str, Any] = {
    "jetbrains": {
        "air": {
            "version": 1,
            "capabilities": ["sessionFailure", "planFile", "loadReplayEnd", "diffPatch"],
        }
    }
}
CLIENTS = {"air_set": AIR_SET, "air_sf": OPT_IN, "plain": None}


def requests(adapter: Adapter, method: str) -> list[dict[str, Any]]:
    return [m["params"] for m in adapter.incoming() if m.get("method") == method]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", list(CLIENTS))
async def test_the_permission_heading_goes_to_every_air_client(tmp_path: Path, kind: str) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "air_permission", client_meta=meta, capable=meta is not None
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "run the tests")
        asked = requests(adapter, "session/request_permission")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert [a["toolCall"]["title"] for a in asked] == ["npm test --watch=false", "Write notes.md"]
    headings = [a.get("_meta") for a in asked]
    if meta is None:
        assert headings == [None, None]
        return
    assert headings == [
        {
            "jetbrains": {
                "air": {
                    "version": 1,
                    "permission": {
                        "version": 1,
                        "title": "npm  test\t--watch=false",  # a command, verbatim
                        "description": "Reason: Needed to verify\nthe change.",
                        "defaultToNo": True,
                    },
                }
            }
        },
        {
            "jetbrains": {
                "air": {"version": 1, "permission": {"version": 1, "title": "Write notes.md"}}
            }
        },
    ]
    # defaultToNo: the decline first, as for every client.
    assert asked[0]["options"][0]["kind"] == "reject_once"


def _argvs(tmp_path: Path) -> list[list[str]]:
    path = tmp_path / "claude-log.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [list(e["argv"]) for e in entries if e["kind"] == "argv"]


def _flag(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, token in enumerate(argv[:-1]) if token == flag]


def _instructions(text: object) -> dict[str, Any]:
    return {"jetbrains": {"air": {"customInstructions": text}}}


@pytest.mark.asyncio
async def test_custom_instructions_follow_the_client_prompt(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=AIR_SET) as adapter:
        base = {"cwd": str(adapter.workdir), "mcpServers": []}
        prompt = {"mode": "append", "content": [{"type": "text", "text": "Be brief."}]}
        override = {**prompt, "mode": "override"}
        for extra in (
            {"_meta": _instructions("Use tabs.")},
            {"_meta": _instructions("Use tabs."), "systemPrompt": prompt},
            {"_meta": _instructions("Use tabs."), "systemPrompt": override},
            {"_meta": _instructions(42)},  # not a string: no instructions
        ):
            request = adapter.conn._conn.send_request("session/new", {**base, **extra})
            answer = await asyncio.wait_for(request, TIMEOUT)
            assert (await adapter.prompt(answer["sessionId"], "hi")).stop_reason == "end_turn"  # type: ignore[union-attr]
    only, appended, replaced, ignored = _argvs(tmp_path)
    assert _flag(only, "--append-system-prompt") == ["Use tabs."]
    assert _flag(appended, "--append-system-prompt") == ["Be brief.\n\nUse tabs."]
    assert _flag(replaced, "--system-prompt") == ["Be brief.\n\nUse tabs."]
    assert "--append-system-prompt" not in ignored


LOAD_REPLAY_END = {
    "sessionUpdate": "session_info_update",
    "_meta": {"jetbrains": {"air": {"version": 1, "loadReplayEnd": True}}},
}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", list(CLIENTS))
async def test_load_replay_end_closes_the_replay_of_a_declaring_client(
    tmp_path: Path, kind: str
) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "success", client_meta=meta, capable=meta is not None
    ) as adapter:
        prompted, fresh = await adapter.new_session(), await adapter.new_session()
        assert isinstance(await adapter.prompt(prompted, "hello"), PromptResponse)
        cwd = str(adapter.workdir)
        for session in (prompted, fresh):
            await asyncio.wait_for(
                adapter.conn.load_session(cwd=cwd, session_id=session, mcp_servers=[]), TIMEOUT
            )
        await asyncio.wait_for(
            adapter.conn.resume_session(cwd=cwd, session_id=prompted, mcp_servers=[]), TIMEOUT
        )
        frames = adapter.incoming()
    ends = [
        (i, m["params"]["sessionId"])
        for i, m in enumerate(frames)
        if m.get("method") == "session/update" and m["params"]["update"] == LOAD_REPLAY_END
    ]
    if kind != "air_set":
        assert ends == []
        return
    assert [session for _, session in ends] == [prompted, fresh]  # none for the resume
    for index, session in ends:
        # The last replayed update, right before the load's answer.
        answer = frames[index + 1]
        assert "result" in answer and "configOptions" in answer["result"]
        replayed = [
            m
            for m in frames[:index]
            if m.get("method") == "session/update" and m["params"]["sessionId"] == session
        ]
        assert session == fresh or any(
            m["params"]["update"]["sessionUpdate"] == "user_message_chunk" for m in replayed
        )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("kind", "drafted"),
    [("air_set", True), ("air_set", False), ("air_sf", True), ("plain", True)],
)
async def test_plan_file_shows_the_plans_file_to_a_declaring_client(
    tmp_path: Path, kind: str, drafted: bool
) -> None:
    meta = CLIENTS[kind]
    client = RecordingClient(permission="exit-plan-default")
    async with agent_in_process(
        tmp_path, "air_plan_file", client_meta=meta, capable=meta is not None, client=client
    ) as adapter:
        plan_file = adapter.workdir / "plans" / "plan.md"
        if drafted:
            plan_file.parent.mkdir(parents=True, exist_ok=True)
            plan_file.write_text(PLAN, encoding="utf-8")
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "plan the fix")
        asked = requests(adapter, "session/request_permission")
        updates = adapter.updates()
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert "ExitPlanMode was allowed." in adapter.agent_texts()
    tool_id = next(u["toolCallId"] for u in updates if u.get("name") == "ExitPlanMode")
    # The card as it stood before the question: its opening, filled in once the input was whole.
    opened = [
        u
        for u in updates
        if (u.get("toolCallId") == tool_id and "status" not in u)
        or (u.get("toolCallId") == tool_id and u.get("status") == "pending")
    ]
    card: dict[str, Any] = {}
    for update in opened:
        card.update(update)
    [question] = [a["toolCall"] for a in asked]
    [result] = [
        u for u in updates if u.get("toolCallId") == tool_id and u.get("status") == "completed"
    ]
    clears = [u for u in updates if u.get("toolCallId") == f"{tool_id}:plan-file-clear"]
    if kind == "air_set" and drafted:
        shown = {"planFilePath": str(plan_file)}
        assert card["rawInput"] == shown and card["content"] == []
        assert question["rawInput"] == shown and not question.get("content")
        assert result["rawInput"] == shown
        assert clears == [
            {
                "sessionUpdate": "tool_call",
                "toolCallId": f"{tool_id}:plan-file-clear",
                "title": "Exited Plan Mode",
                "kind": "switch_mode",
                "status": "completed",
                "rawInput": {"planFilePath": ""},
                "content": [],
            }
        ]
        return
    # Everyone else, and a plan file that is not there: the plan's text, as before; an AIR
    # client's question holds only its share of the card, whose content shows the plan.
    assert card["rawInput"]["plan"] == PLAN
    assert card["content"][0]["content"]["text"] == PLAN
    if kind == "plain":
        assert question["content"][0]["content"]["text"] == PLAN
    else:
        assert set(question) == {"toolCallId", "title", "rawInput"}
        assert question["rawInput"]["plan"] == PLAN
    assert "rawInput" not in result or "planFilePath" in result["rawInput"]
    assert clears == []


def _patch_block(path: str, text: str, *, question: bool = False) -> dict[str, Any]:
    """The patch's `diff` block; `oldText: null` as the reference sends it, except in a
    permission question, whose `acp` model leaves a null out."""
    meta = {"version": 1, "diffPatch": {"version": 1, "format": "git_patch", "text": text}}
    block = {"type": "diff", "path": path, "newText": "", "_meta": {"jetbrains": {"air": meta}}}
    return block if question else {**block, "oldText": None}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", list(CLIENTS))
async def test_diff_patch_shows_edits_as_git_patches(tmp_path: Path, kind: str) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "air_diff_patch", client_meta=meta, capable=meta is not None
    ) as adapter:
        app = adapter.workdir / "src" / "app.py"
        app.parent.mkdir(parents=True, exist_ok=True)
        app.write_text("def greet(name):\n    return 'Hello ' + name\n", encoding="utf-8")
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "tidy the greeting")
        asked = [a["toolCall"] for a in requests(adapter, "session/request_permission")]
        updates = adapter.updates()
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    new = adapter.workdir / "src" / "new file.py"
    assert app.read_text(encoding="utf-8") == "def greet(name):\n    return f'Hello {name}!'\n"
    assert new.read_text(encoding="utf-8") == "x = 1\ny = 2"
    edit_id, write_id = (a["toolCallId"] for a in asked)
    done = {
        u["toolCallId"]: u
        for u in updates
        if u.get("status") == "completed" and u["toolCallId"] in (edit_id, write_id)
    }
    p, q = str(app).lstrip("/"), str(new).lstrip("/")
    edit_patch = (
        f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1,2 +1,2 @@\n def greet(name):\n"
        "-    return 'Hello ' + name\n+    return f'Hello {name}!'\n"
    )
    write_patch = (
        f"diff --git a/{q} b/{q}\nnew file mode 100644\n--- /dev/null\n+++ b/{q}\t\n"
        "@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n\\ No newline at end of file\n"
    )
    if kind != "air_set":
        # Not negotiated: no patch anywhere (the initialize answer still advertises it to AIR).
        later = [m for m in adapter.incoming() if "agentCapabilities" not in m.get("result", {})]
        assert "diffPatch" not in json.dumps(later)
        assert done[edit_id]["content"][0]["newText"].endswith("f'Hello {name}!'\n")
        return
    assert asked[0]["content"] == [_patch_block(str(app), edit_patch, question=True)]
    assert asked[1]["content"] == [_patch_block(str(new), write_patch, question=True)]
    assert done[edit_id]["content"] == [_patch_block(str(app), edit_patch)]
    assert done[edit_id]["locations"] == [{"path": str(app), "line": 1}]
    assert done[write_id]["content"] == [_patch_block(str(new), write_patch)]
    assert done[write_id]["locations"] == [{"path": str(new)}]
    # The live Write card shows no diff: the question and the result do.
    write_cards = [
        u
        for u in updates
        if u.get("toolCallId") == write_id
        and u["sessionUpdate"] in ("tool_call", "tool_call_update")
        and "rawInput" in u
    ]
    assert write_cards and write_cards[-1]["content"] == []
    assert not [u for u in write_cards if u.get("content")]


@pytest.mark.asyncio
async def test_session_index_methods_are_not_found_without_the_capability(tmp_path: Path) -> None:
    # The other five names alone enable nothing (tests/e2e/test_air_session_index.py has the
    # client that declares `sessionIndex`).
    index_client = {
        "jetbrains": {
            "air": {
                "version": 1,
                "capabilities": ["sessionFailure", "sessionRename", "sessionArchive"],
            }
        }
    }
    async with agent_in_process(tmp_path, "success", client_meta=index_client) as adapter:
        session = await adapter.new_session()
        assert isinstance(await adapter.prompt(session, "hello"), PromptResponse)
        codes = []
        for method, params in (
            ("_session/rename", {"sessionId": session, "title": ""}),
            ("_session/rename", {"sessionId": session, "title": "x" * 10_240}),
            ("_session/archive", {"sessionId": session}),
            ("_session/unarchive", {"sessionId": "00000000-0000-4000-8000-000000000000"}),
            ("_session/batch_get", {"sessionIds": [session]}),
            ("_session/list/unsubscribe", {"subscriptionId": "never-subscribed"}),
        ):
            with pytest.raises(acp.RequestError) as caught:
                await asyncio.wait_for(adapter.conn._conn.send_request(method, params), TIMEOUT)
            codes.append(caught.value.code)
        listed = await asyncio.wait_for(
            adapter.conn.list_sessions(cwd=str(adapter.workdir)), TIMEOUT
        )
        again = await adapter.prompt(session, "still here?")
    # As the reference answers them without a negotiated `sessionIndex`; nothing changed.
    assert codes == [-32601] * 6
    assert [s.title for s in listed.sessions if s.session_id == session] == ["hello"]
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"


def _texts(update: dict[str, Any]) -> list[Any]:
    return [c for c in update.get("content") or [] if c.get("type") == "content"]


RAW_INPUT: dict[str, Any] = {
    "jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure", "rawInputRendering"]}}
}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["raw_input", "air_sf"])
async def test_raw_input_rendering_leaves_input_copies_out_of_the_cards(
    tmp_path: Path, kind: str
) -> None:
    meta = RAW_INPUT if kind == "raw_input" else OPT_IN
    async with agent_in_process(tmp_path, "air_permission", client_meta=meta) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "run the tests")
        asked = requests(adapter, "session/request_permission")
        cards = adapter.updates("tool_call") + adapter.updates("tool_call_update")
        initialized = adapter.incoming()[0]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    bash, write = (a["toolCall"] for a in asked)
    bash_cards = [u for u in cards if u["toolCallId"] == bash["toolCallId"]]
    shown = [_texts(u) for u in bash_cards if _texts(u)]
    # The description only repeats the input: gone for a client that renders `rawInput`.
    described = [{"type": "content", "content": {"type": "text", "text": "Run the tests"}}]
    output = [{"type": "content", "content": {"type": "text", "text": "```console\nok\n```"}}]
    # The question is AIR's share of the card, which shows the input's copy, or not.
    assert set(bash) == {"toolCallId", "title", "rawInput"}
    if kind == "raw_input":
        assert shown == [output]  # the command's output stays
    else:
        assert shown == [described, output]
    # The input itself is whole for every client.
    assert [u["rawInput"].get("description") for u in bash_cards if u.get("rawInput")][-1] == (
        "Run the tests"
    )
    # A change is no copy of the input: the write's card shows its diff either way.
    shown_write = [u.get("content") for u in cards if u["toolCallId"] == write["toolCallId"]]
    assert next([c["type"] for c in content] for content in shown_write if content) == ["diff"]
    declared = initialized.get("result", {}).get("_meta", {}).get("jetbrains", {}).get("air", {})
    assert "rawInputRendering" not in declared.get("capabilities", [])  # never advertised


RECOMMENDING: dict[str, Any] = {
    "jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure", "recommendedValue"]}}
}


def _claude_controls(tmp_path: Path, subtype: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [
        e["request"]
        for e in entries
        if e["kind"] == "control" and e["request"].get("subtype") == subtype
    ]


def _pickers(options: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {
        o["id"]: (o["currentValue"], [v["value"] for v in o["options"]], o.get("_meta"))
        for o in options
        if o["id"] in ("model", "effort")
    }


def _recommended(value: str) -> dict[str, Any]:
    return {"jetbrains": {"air": {"version": 1, "recommendedValue": value}}}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["recommending", "air_sf"])
async def test_recommended_value_names_claudes_default_in_the_pickers(
    tmp_path: Path, kind: str
) -> None:
    meta = RECOMMENDING if kind == "recommending" else OPT_IN
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}
    env["CLAUDE_ACP_SCRIPTED_MODELS"] = "concrete"
    async with agent_in_process(tmp_path, "success", client_meta=meta, env=env) as adapter:
        params = {"cwd": str(adapter.workdir), "mcpServers": []}
        request = adapter.conn._conn.send_request("session/new", params)
        opened = await asyncio.wait_for(request, TIMEOUT)
        session = opened["sessionId"]
        switched = []
        for model in ("haiku", "opus"):
            request = adapter.conn._conn.send_request(
                "session/set_config_option",
                {"sessionId": session, "configId": "model", "value": model},
            )
            switched.append(await asyncio.wait_for(request, TIMEOUT))
        refused = adapter.conn._conn.send_request(
            "session/set_config_option",
            {"sessionId": session, "configId": "model", "value": "default"},
        )
        if kind == "recommending":
            with pytest.raises(acp.RequestError) as caught:
                await asyncio.wait_for(refused, TIMEOUT)
            assert caught.value.code == -32602
        else:
            await asyncio.wait_for(refused, TIMEOUT)
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    efforts = [r["settings"] for r in _claude_controls(tmp_path, "apply_flag_settings")]
    opened_pickers = _pickers(opened["configOptions"])
    haiku, opus = (_pickers(s["configOptions"]) for s in switched)
    if kind == "air_sf":
        assert opened_pickers == {
            "model": ("default", ["default", "opus", "haiku", "sonnet"], None),
            "effort": ("default", ["default", "low", "medium", "high"], None),
        }
        assert opus["effort"] == ("default", ["default", "low", "medium", "high", "max"], None)
        assert efforts == []  # Claude Code keeps its own effort
        return
    # No "Default" rows: the default's model is named, and Claude runs the effort shown.
    assert opened_pickers == {
        "model": ("sonnet", ["opus", "haiku", "sonnet"], _recommended("sonnet")),
        "effort": ("medium", ["low", "medium", "high"], _recommended("medium")),
    }
    assert haiku == {"model": ("haiku", ["opus", "haiku", "sonnet"], _recommended("sonnet"))}
    assert opus["effort"] == ("medium", ["low", "medium", "high", "max"], _recommended("medium"))
    assert efforts == [{"effortLevel": "medium"}, {"effortLevel": None}, {"effortLevel": "medium"}]


def _write_skills(workdir: Path) -> dict[str, str]:
    files = {
        "deploy": workdir / ".claude/skills/deploy/SKILL.md",
        "probe": workdir / ".agents/skills/probe/SKILL.md",
        "notes": workdir / ".claude/commands/notes.md",
    }
    for name, path in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        front = f"---\nname: {name}\ndescription: The {name} skill\n---\n"
        path.write_text(front if name != "probe" else "No frontmatter.\n", encoding="utf-8")
    return {name: str(path) for name, path in files.items()}


def _skill(kind_only: bool = False, path: str | None = None) -> dict[str, Any]:
    air: dict[str, Any] = {"version": 1, "kind": "skill"}
    if path is not None:
        air["skillPath"] = path
    return {"jetbrains": {"air": air}}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["air_sf", "plain"])
async def test_skill_commands_and_calls_name_their_skill_file(tmp_path: Path, kind: str) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "air_skill", client_meta=meta, capable=meta is not None
    ) as adapter:
        paths = _write_skills(adapter.workdir)
        session = await adapter.new_session()
        await until(lambda: bool(adapter.updates("available_commands_update")), "the commands")
        first = adapter.updates("available_commands_update")[0]["availableCommands"]
        answer = await adapter.prompt(session, "deploy it")
        if meta is not None:
            # Claude Code's own skill list, read after its first `system/init`, adds the kind
            # of its bundled skill.
            await until(lambda: len(adapter.updates("available_commands_update")) > 1, "skills")
        last = adapter.updates("available_commands_update")[-1]["availableCommands"]
        # The streamed card is opened before its input is known; its update names the skill
        # (and, to an AIR client, not the tool again: `fsm.ChangedMetaFilter`).
        skill_calls = {
            u["toolCallId"]
            for u in adapter.updates("tool_call")
            if u["_meta"]["claudeCode"]["toolName"] == "Skill"
        }
        cards = [
            u
            for u in adapter.updates()
            if u["sessionUpdate"] in ("tool_call", "tool_call_update")
            and u["toolCallId"] in skill_calls
            and u.get("rawInput")
        ]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    metas = {c["name"]: c.get("_meta") for c in last}
    assert {"deploy", "probe", "notes", "simplify", "review"} <= set(metas)
    skills = [c.get("_meta", {}).get("jetbrains", {}).get("air", {}).get("skill") for c in cards]
    if meta is None:
        assert {m for m in metas.values()} == {None}
        assert skills == [None, None]
        return
    assert {name: m for name, m in metas.items() if m is not None} == {
        "deploy": _skill(path=paths["deploy"]),  # Claude Code's own list names it
        "probe": _skill(path=paths["probe"]),  # found on disk: Claude Code gave no file
        "simplify": _skill(),  # bundled: a skill without a file
    }
    # Before Claude Code said where its skills are, the files on disk were named already.
    assert {c["name"]: c.get("_meta") for c in first}["deploy"] == _skill(path=paths["deploy"])
    assert {c["name"]: c.get("_meta") for c in first}["simplify"] is None
    assert skills == [{"name": "deploy", "path": paths["deploy"]}, {"name": "simplify"}]


def _fork_meta(**point: Any) -> dict[str, Any]:
    return {"jetbrains": {"air": {"fork": point}}}


@pytest.mark.asyncio
async def test_a_fork_at_a_message_continues_from_that_message(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=AIR_SET) as adapter:
        cwd = str(adapter.workdir)
        session = await adapter.new_session()
        replies: list[tuple[str, str]] = []  # (messageId, text) of each turn's reply
        for words in ("first", "second", "third"):
            seen = len(adapter.updates("agent_message_chunk"))
            await adapter.prompt(session, words)
            chunks = adapter.updates("agent_message_chunk")[seen:]
            replies.append((chunks[0]["messageId"], "".join(c["content"]["text"] for c in chunks)))

        async def fork(meta: dict[str, Any]) -> Any:
            params = {"cwd": cwd, "sessionId": session, "mcpServers": [], "_meta": meta}
            request = adapter.conn._conn.send_request("session/fork", params)
            return await asyncio.wait_for(request, TIMEOUT)

        at_second = await fork(_fork_meta(version=1, messageId=replies[1][0]))
        fingerprint = "sha256:" + hashlib.sha256(replies[0][1].encode()).hexdigest()
        by_content = await fork(
            _fork_meta(
                version=1, messageId="msg_gone", messageFingerprint=fingerprint, messageOccurrence=1
            )
        )
        whole = await fork(_fork_meta(version=2, messageId=replies[0][0]))  # not a point
        with pytest.raises(acp.RequestError) as missing:
            await fork(_fork_meta(version=1, messageId="msg_missing"))
        # A session never prompted has no message to fork at (docs/decisions.md#fork-point).
        fresh = await adapter.new_session()
        unwritten = adapter.conn._conn.send_request(
            "session/fork",
            {
                "cwd": cwd,
                "sessionId": fresh,
                "mcpServers": [],
                "_meta": _fork_meta(version=1, messageId=replies[0][0]),
            },
        )
        with pytest.raises(acp.RequestError) as nothing_written:
            await asyncio.wait_for(unwritten, TIMEOUT)
        answer = await adapter.prompt(at_second["sessionId"], "in the fork")
        seen = len(adapter.updates("user_message_chunk"))
        await asyncio.wait_for(
            adapter.conn.load_session(cwd=cwd, session_id=at_second["sessionId"], mcp_servers=[]),
            TIMEOUT,
        )
        replayed = [u["content"]["text"] for u in adapter.updates("user_message_chunk")[seen:]]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # Claude Code's copy ends with the second reply; the fork's prompt follows it.
    assert replayed == ["first", "second", "in the fork"]

    def prompts(session_id: str) -> list[str]:
        path = next(adapter.config_dir.rglob(f"{session_id}.jsonl"))
        found = []
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            content = (
                entry.get("message", {}).get("content") if entry.get("type") == "user" else None
            )
            if isinstance(content, list) and content and content[0].get("type") == "text":
                found.append(content[0]["text"])
        return found

    assert prompts(by_content["sessionId"]) == ["first"]
    assert prompts(whole["sessionId"]) == ["first", "second", "third"]
    assert missing.value.code == -32602
    assert str(missing.value) == (
        f"Fork point message msg_missing was not found in session {session}"
    )
    assert missing.value.data == {"messageId": "msg_missing"}
    assert nothing_written.value.code == -32602


REPORTING: dict[str, Any] = {
    "jetbrains": {
        "air": {"version": 1, "capabilities": ["sessionFailure", "agentFileChangeReport"]}
    }
}


def _report_request(request_id: object, **extra: Any) -> dict[str, Any]:
    request = {"version": 1, "requestId": request_id, **extra}
    return {"jetbrains": {"air": {"agentFileChangeReportRequest": request}}}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["reporting", "air_sf"])
async def test_a_file_change_report_names_the_turns_files_before_its_answer(
    tmp_path: Path, kind: str
) -> None:
    meta = REPORTING if kind == "reporting" else OPT_IN
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}
    async with agent_in_process(tmp_path, "air_diff_patch", client_meta=meta, env=env) as adapter:
        app = adapter.workdir / "src" / "app.py"
        app.parent.mkdir(parents=True, exist_ok=True)
        app.write_text("def greet(name):\n    return 'Hello ' + name\n", encoding="utf-8")
        session = await adapter.new_session()
        answers = []
        for request in (
            _report_request("turn-1.a:b"),
            _report_request("turn-1.a:b"),  # used before: ignored
            _report_request("bad id"),
            _report_request("r-2", extra=1),
        ):
            params = {
                "sessionId": session,
                "prompt": [{"type": "text", "text": "tidy the greeting"}],
                "_meta": request,
            }
            sent = adapter.conn._conn.send_request("session/prompt", params)
            answers.append(await asyncio.wait_for(sent, TIMEOUT))
        frames = adapter.incoming()
    assert [a["stopReason"] for a in answers] == ["end_turn"] * 4
    reports = [
        (i, f["params"]["update"])
        for i, f in enumerate(frames)
        if f.get("method") == "session/update"
        and "agentFileChangeReport" in json.dumps(f["params"]["update"].get("_meta", {}))
    ]
    previews = [e for e in _claude_controls(tmp_path, "rewind_files") if e.get("dry_run") is True]
    if kind == "air_sf":
        assert reports == [] and previews == []
        return
    [(at, update)] = reports
    root = adapter.workdir.resolve()
    assert update == {
        "sessionUpdate": "session_info_update",
        "_meta": {
            "jetbrains": {
                "air": {
                    "version": 1,
                    "agentFileChangeReport": {
                        "version": 1,
                        "requestId": "turn-1.a:b",
                        "status": "reported",
                        "paths": [str(root / "src/app.py"), str(root / "src/new file.py")],
                        "declaredComplete": False,
                        "truncated": False,
                    },
                }
            }
        },
    }
    # Sent before the first prompt's answer, which waited for it.
    first_answer = next(i for i, f in enumerate(frames) if f.get("result", {}).get("stopReason"))
    assert at < first_answer
    assert len(previews) == 1 and previews[0]["subtype"] == "rewind_files"


def _goal_update(goal: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "session_info_update",
        "_meta": {"jetbrains": {"air": {"version": 1, "goal": goal}}},
    }


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["air_sf", "plain"])
async def test_a_goal_set_through_session_goal_is_shown_to_air(tmp_path: Path, kind: str) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "success", client_meta=meta, capable=meta is not None
    ) as adapter:
        session = await adapter.new_session()

        async def goal(**params: Any) -> Any:
            request = adapter.conn._conn.send_request("_session/goal", params)
            return await asyncio.wait_for(request, TIMEOUT)

        answers = [await goal(sessionId=session, action="set", objective="  Ship the change ")]
        if meta is not None:
            answers.append(await goal(sessionId=session, action="set", objective="unreachable"))
        answers.append(await goal(sessionId=session, action="clear"))
        refusals = []
        for bad in (
            {"sessionId": session, "action": "pause"},
            {"sessionId": session, "action": "set", "objective": 42},
            {"sessionId": session, "action": "set", "objective": "  "},
            {"sessionId": "", "action": "clear"},
        ):
            with pytest.raises(acp.RequestError) as refused:
                await goal(**bad)
            refusals.append((refused.value.code, str(refused.value)))
        shown = [
            u
            for u in adapter.updates("session_info_update")
            if "goal" in u.get("_meta", {}).get("jetbrains", {}).get("air", {})
        ]
    assert all(a == {} for a in answers)
    assert refusals == [
        (-32602, 'goal action must be "set" or "clear"'),
        (-32602, 'goal action "set" requires a non-empty objective'),
        (-32602, 'goal action "set" requires a non-empty objective'),
        (-32602, "goal params require a non-empty sessionId"),
    ]
    if meta is None:
        assert shown == []  # the goal is AIR's alone
        return
    asked = {"objective": "Ship the change", "status": "active", "controlMethod": "_session/goal"}
    running = {
        **asked,
        "iterations": 0,
        "lastReason": None,
        "createdAt": 1710000000123,
    }
    assert shown == [
        _goal_update(asked),  # at once, from the command
        _goal_update(running),  # Claude Code's own word
        _goal_update({**asked, "objective": "unreachable"}),
        _goal_update(running),  # refused: the goal before it comes back
        _goal_update(None),
        _goal_update(None),
    ]


def _suggestions(adapter: Adapter) -> list[Any]:
    return [
        u["_meta"]["promptSuggestions"]["suggestions"]
        for u in adapter.updates("session_info_update")
        if "promptSuggestions" in u.get("_meta", {})
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["air_sf", "plain"])
async def test_claudes_predicted_prompt_is_shown_to_air_and_spent_by_the_next(
    tmp_path: Path, kind: str
) -> None:
    meta = CLIENTS[kind]
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}
    env["CLAUDE_ACP_SCRIPTED_SUGGESTION"] = "  Run the tests \n"
    async with agent_in_process(
        tmp_path, "success", client_meta=meta, capable=meta is not None, env=env
    ) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "first")  # Claude Code predicts none on a first turn
        assert _suggestions(adapter) == []
        await adapter.prompt(session, "second")
        if meta is not None:
            await until(lambda: len(_suggestions(adapter)) == 1, "the predicted prompt")
        await adapter.prompt(session, "third")
        if meta is not None:
            await until(lambda: len(_suggestions(adapter)) == 3, "the next prediction")
        shown = _suggestions(adapter)
    [argv] = _argvs(tmp_path)
    if meta is None:
        assert shown == [] and "--prompt-suggestions" not in argv
        return
    assert "--prompt-suggestions" in argv
    # Shown, spent by the next prompt (cleared), predicted again.
    assert shown == [[{"text": "Run the tests"}], [], [{"text": "Run the tests"}]]
