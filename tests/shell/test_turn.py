"""The turn as the editor shows it, in process (`agent_in_process`): the agent, a real ACP
client, the scripted Claude under the real SDK streaming partial messages.

Streaming (chunks with one messageId that join to the message exactly once), tool-call cards
(titles, kinds, locations, diffs, statuses, results), the plan, subagents, usage and title,
prompt content, replay through the live path, and bad input that must not cost the answer.
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.coding import ORIGINAL_APP, OVERLOADED, TINY_PNG
from adapter.view.stream_assembly import BROKEN_MARK
from tests.support.air_merge import merged_meta
from tests.support.harness import OPT_IN, TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

ANSWER = (
    "I switched `greet` to an f-string, which reads better and avoids the concatenation; "
    "the two tests still pass."
)


def _cards(adapter: Adapter) -> dict[str, list[dict[str, Any]]]:
    """Every tool call's updates, by id, in order. The first is the card as opened: a card
    opened while Claude still wrote the call's input (streamed), refined as its fields came
    and filled in by the update that brings the whole input counts as one, as a client merges
    them, `_meta` key by key as an AIR client does (`tests.support.air_merge`;
    tests/shell/test_session_state.py has the streamed frames one by one)."""
    cards: dict[str, list[dict[str, Any]]] = {}
    for update in adapter.updates():
        if update["sessionUpdate"] not in ("tool_call", "tool_call_update"):
            continue
        seen = cards.setdefault(update["toolCallId"], [])
        # A refinement of the card's opening: the input (whole, or as it streams to a client
        # that is not AIR), or, to an AIR client, the streamed fields' title, kind, locations.
        refines = update["sessionUpdate"] == "tool_call_update" and (
            "rawInput" in update or ("status" not in update and "content" not in update)
        )
        if len(seen) == 1 and refines:
            meta = merged_meta(seen[0].get("_meta"), update.get("_meta"))
            seen[0] = {**seen[0], **update, "sessionUpdate": "tool_call"}
            if meta is not None:
                seen[0]["_meta"] = meta
        else:
            seen.append(update)
    return cards


def _statuses(updates: list[dict[str, Any]]) -> list[str]:
    return [u["status"] for u in updates if "status" in u]


def _by_title(adapter: Adapter) -> dict[str, list[dict[str, Any]]]:
    return {updates[0]["title"]: updates for updates in _cards(adapter).values()}


async def _run(tmp_path: Path, scenario: str, **kwargs: Any) -> tuple[Adapter, Any, str]:
    async with agent_in_process(tmp_path, scenario, **kwargs) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Tidy the greeting\nand run the tests")
    return adapter, answer, session


@pytest.mark.asyncio
async def test_a_coding_turn_streams_and_shows_cards_plan_usage_and_title(tmp_path: Path) -> None:
    adapter, answer, _ = await _run(tmp_path, "coding_turn")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # The answer streamed in several chunks of one message, joining to it exactly once.
    chunks = adapter.updates("agent_message_chunk")
    assert len(chunks) > 3
    assert len({c["messageId"] for c in chunks}) == 1
    assert "".join(c["content"]["text"] for c in chunks) == ANSWER
    assert adapter.agent_texts() == [ANSWER]
    thoughts = adapter.updates("agent_thought_chunk")
    assert len(thoughts) > 1 and len({t["messageId"] for t in thoughts}) == 1
    assert "".join(t["content"]["text"] for t in thoughts) == (
        "The user wants the greeting tidied. Read it first, then edit."
    )
    # TodoWrite is the plan, each call replacing it whole; never a card.
    plans = adapter.updates("plan")
    assert [[e["status"] for e in p["entries"]] for p in plans] == [
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]
    assert plans[0]["entries"][0] == {
        "content": "Reading the greeting code",
        "status": "in_progress",
        "priority": "medium",
    }
    assert plans[-1]["entries"][2] == {
        "content": "Run the tests",
        "status": "completed",
        "priority": "medium",
    }
    # Streamed tool calls open their card as soon as Claude starts writing them.
    opened = [u for u in adapter.updates("tool_call")]
    # This client is AIR: no `rawInput` until the input is whole.
    assert [(u["title"], u.get("rawInput")) for u in opened] == [
        ("Read", None),
        ("Grep", None),
        ("Edit", None),
        ("Bash", None),
    ]
    cards = _by_title(adapter)
    assert list(cards) == [
        "Read src/app.py (lines 1-5)",
        'Search "greet\\(" in src (*.py)',
        "Edit src/app.py",
        "python -m pytest -q",
    ]
    assert all(_statuses(u) == ["pending", "in_progress", "completed"] for u in cards.values())
    app = str(adapter.workdir / "src" / "app.py")
    read = cards["Read src/app.py (lines 1-5)"]
    assert (read[0]["kind"], read[0]["locations"]) == ("read", [{"path": app, "line": 1}])
    edit = cards["Edit src/app.py"]
    assert edit[0]["kind"] == "edit"
    assert edit[0]["content"] == [
        {
            "type": "diff",
            "path": app,
            "oldText": '    return "Hello " + name',
            "newText": '    return f"Hello {name}"',
        }
    ]
    # Done: the whole file's diff, at the edited line.
    assert edit[-1]["content"] == [
        {
            "type": "diff",
            "path": app,
            "oldText": ORIGINAL_APP,
            "newText": ORIGINAL_APP.replace('"Hello " + name', 'f"Hello {name}"'),
        }
    ]
    assert edit[-1]["locations"] == [{"path": app, "line": 1}]
    bash = cards["python -m pytest -q"]
    assert bash[0]["kind"] == "execute"
    assert bash[-1]["content"] == [
        {
            "type": "content",
            "content": {"type": "text", "text": "```console\n..\n2 passed in 0.01s\n```"},
        }
    ]
    # Usage during the turn (tests/shell/test_session_state.py), after it with the cost, on the
    # response, and the session's title from the first prompt.
    *during, usage = adapter.updates("usage_update")
    assert during and all("cost" not in u for u in during)
    assert usage["size"] == 200000 and usage["used"] > 0
    assert usage["cost"]["currency"] == "USD" and usage["cost"]["amount"] > 0
    assert answer.usage is not None and answer.usage.input_tokens == 24
    assert answer.usage.total_tokens == answer.usage.input_tokens + answer.usage.output_tokens
    titles = [u for u in adapter.updates("session_info_update") if "title" in u]
    assert [t["title"] for t in titles] == ["Tidy the greeting"]


@pytest.mark.asyncio
async def test_every_tool_gets_its_card(tmp_path: Path) -> None:
    adapter, answer, _ = await _run(tmp_path, "every_tool")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    cards = list(_cards(adapter).values())
    assert [(c[0]["title"], c[0]["kind"]) for c in cards] == [
        ("Read src/app.py (lines 1-5)", "read"),
        ("Write src/new.py", "edit"),
        ("Edit src/app.py", "edit"),
        ("Edit src/app.py", "edit"),
        ("Edit notebook nb.ipynb", "edit"),
        ("python -m pytest -q", "execute"),
        ("Output of shell shell_1", "execute"),
        ("Stop shell shell_1", "execute"),
        ('Search "TODO" in src', "search"),
        ("Find **/*.py in .", "search"),
        ("List src", "search"),
        ("Fetch https://example.com/docs", "fetch"),
        ('Search the web for "python f-strings"', "fetch"),
        ("Survey the tests", "think"),
        ('Search "def test_" in tests', "search"),
        ("Ready to code?", "switch_mode"),
        ("create_issue (github MCP)", "other"),
        ("FancyNewTool", "other"),
        ("Read missing.py", "read"),
        ("Read logo.png", "read"),
    ]
    # Every card: pending, then in_progress, then completed or failed.
    assert [_statuses(c) for c in cards].count(["pending", "in_progress", "completed"]) == 19
    assert _statuses(cards[18]) == ["pending", "in_progress", "failed"]
    root = adapter.workdir
    write, multi = cards[1], cards[3]
    assert write[0]["content"] == [
        {"type": "diff", "path": str(root / "src/new.py"), "newText": "x = 1\n"}
    ]
    assert write[0]["locations"] == [{"path": str(root / "src/new.py")}]
    assert [(d["oldText"], d["newText"]) for d in multi[0]["content"]] == [
        ("greet", "welcome"),
        ("world", "there"),
    ]
    assert all(c[0]["_meta"]["claudeCode"]["toolName"] for c in cards)
    # The subagent's words are on its Task card, its call is marked as its, not the answer's.
    task, sub = cards[13], cards[14]
    assert {
        "type": "content",
        "content": {"type": "text", "text": "Looking at the tests for greet."},
    } in [block for u in task for block in u.get("content", [])]
    assert sub[0]["_meta"]["claudeCode"]["parentToolUseId"] == task[0]["toolCallId"]
    assert task[-1]["content"][0]["content"]["text"] == "One test covers greet."
    assert adapter.agent_texts() == ["Every tool ran."]
    image = cards[19][-1]["content"]
    assert image == [
        {"type": "content", "content": {"type": "image", "data": TINY_PNG, "mimeType": "image/png"}}
    ]
    assert adapter.updates("plan") == []


@pytest.mark.asyncio
async def test_bash_output_goes_to_zeds_terminal_when_declared(tmp_path: Path) -> None:
    meta = {**OPT_IN, "terminal_output": True}
    adapter, answer, _ = await _run(tmp_path, "coding_turn", client_meta=meta)
    assert isinstance(answer, PromptResponse)
    bash = _by_title(adapter)["python -m pytest -q"]
    call_id = bash[0]["toolCallId"]
    assert bash[0]["content"] == [{"type": "terminal", "terminalId": call_id}]
    assert bash[0]["_meta"]["terminal_info"] == {
        "terminal_id": call_id,
        "cwd": str(adapter.workdir),
    }
    outputs = [
        u["_meta"]["terminal_output"] for u in bash if "terminal_output" in u.get("_meta", {})
    ]
    assert outputs == [{"terminal_id": call_id, "data": "..\n2 passed in 0.01s"}]
    assert bash[-1]["status"] == "completed"
    assert bash[-1]["_meta"]["terminal_exit"] == {
        "terminal_id": call_id,
        "exit_code": 0,
        "signal": None,
    }


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_a_stream_that_breaks_is_closed_and_the_retry_is_its_own_message(
    tmp_path: Path, capable: bool
) -> None:
    adapter, answer, _ = await _run(tmp_path, "broken_stream", capable=capable)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert adapter.agent_texts() == [
        "The first attempt was cut off in the middle" + BROKEN_MARK,
        "The retried answer, complete.",
    ]
    ids = [c["messageId"] for c in adapter.updates("agent_message_chunk")]
    assert len(set(ids)) == 2 and ids == sorted(ids, key=ids.index)
    warnings = [r for _, r in adapter.records()]
    assert [r["severity"] for r in warnings] == (["warning"] if capable else [])


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_a_broken_stream_then_a_failure_keeps_the_title_out_of_the_text(
    tmp_path: Path, capable: bool
) -> None:
    adapter, answer, _ = await _run(tmp_path, "stream_then_overloaded", capable=capable)
    if capable:
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    else:
        assert isinstance(answer, acp.RequestError) and answer.code == -32603
    partial = "The first attempt was cut off in the middle" + BROKEN_MARK
    records = [r for _, r in adapter.records()]
    if capable:
        # docs/decisions.md#capable-clients: Claude's error prose is the record's title, never also
        # agent text.
        assert adapter.agent_texts() == [partial]
        assert records[-1]["title"] == OVERLOADED and records[-1]["severity"] == "error"
    else:
        # The failure's words end their line before the error answer (a client's error block
        # must not be glued to them).
        assert adapter.agent_texts() == [partial, OVERLOADED, "\n"]
        assert records == []


@pytest.mark.asyncio
async def test_bad_stream_events_blocks_and_tool_input_cost_nothing_else(tmp_path: Path) -> None:
    adapter, answer, _ = await _run(tmp_path, "bad_stream")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert adapter.agent_texts() == ["Still here.", "The answer survives bad input."]
    cards = list(_cards(adapter).values())
    # Input of the wrong shape: a plain card with the tool's name, no invented diff.
    assert (cards[0][0]["title"], cards[0][0]["content"]) == ("Edit", [])
    assert (cards[1][0]["title"], cards[1][0]["rawInput"]) == ("Grep", ["not", "a", "dict"])
    # A binary file: the edit keeps its own snippet diff; a missing file fails plainly.
    binary = cards[2]
    assert "content" not in binary[-1] and binary[0]["content"][0]["oldText"] == "a"
    missing = cards[3]
    assert missing[-1]["status"] == "failed"
    # A failed call's text is fenced (docs/decisions.md#failed-call-text-fenced).
    assert missing[-1]["content"][0]["content"]["text"] == "```\nFile does not exist.\n```"
    warned = [
        line for line in adapter.stderr().splitlines() if "WARNING" in line and "skipped" in line
    ]
    assert len(warned) == 1, warned


@pytest.mark.asyncio
async def test_replay_shows_what_live_showed(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "coding_turn") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "Tidy the greeting")
        live = _shown(adapter.updates())
    shared = {"CLAUDE_CONFIG_DIR": str(adapter.config_dir)}
    async with agent_in_process(tmp_path / "again", "coding_turn", env=shared) as again:
        await asyncio.wait_for(
            again.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        replayed = _shown(again.updates())
        titles = [u["title"] for u in again.updates("session_info_update") if "title" in u]
    assert replayed == live
    assert titles == ["Tidy the greeting"]
    assert any(u[0] == "diff" for u in live) and any(u[0] == "plan" for u in live)


def _shown(updates: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a client keeps of a turn: the message texts by id, each card's title, kind,
    locations, diffs and final status, every plan."""
    shown: list[tuple[Any, ...]] = []
    for u in updates:
        kind = u["sessionUpdate"]
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            if shown and shown[-1][:2] == (kind, u.get("messageId")):
                shown[-1] = (*shown[-1][:2], shown[-1][2] + u["content"]["text"])
            else:
                shown.append((kind, u.get("messageId"), u["content"]["text"]))
        elif kind in ("tool_call", "tool_call_update") and u.get("rawInput") and "kind" in u:
            # The card as opened (live, a streamed call's card is filled in by an update; the
            # refinements while its input streamed are not what stays).
            shown.append(
                ("card", u["toolCallId"], u["title"], u["kind"], json.dumps(u.get("locations")))
            )
        elif kind == "tool_call_update" and u.get("status") in ("completed", "failed"):
            shown.append((kind, u["toolCallId"], u["status"]))
            for block in u.get("content", []):
                if block["type"] == "diff":
                    shown.append(("diff", block["path"], block.get("oldText"), block["newText"]))
        elif kind == "plan":
            shown.append((kind, json.dumps(u["entries"])))
    return shown


# --- prompt content ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_large_image_reaches_claude_whole(tmp_path: Path) -> None:
    data = base64.b64encode(bytes(range(256)) * (4 * 1024 * 1024 // 256)).decode()
    async with agent_in_process(tmp_path) as adapter:
        session = await adapter.new_session()
        answer = await asyncio.wait_for(
            adapter.conn.prompt(
                session_id=session,
                prompt=[
                    acp.text_block("What is on this screenshot?"),
                    acp.image_block(data, "image/png"),
                ],
            ),
            TIMEOUT,
        )
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        [path] = adapter.config_dir.rglob(f"{session}.jsonl")
    prompt = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert prompt["message"]["content"] == [
        {"type": "text", "text": "What is on this screenshot?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
    ]


@pytest.mark.asyncio
async def test_embedded_context_follows_the_prompt_with_its_uri(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path) as adapter:
        session = await adapter.new_session()
        await asyncio.wait_for(
            adapter.conn.prompt(
                session_id=session,
                prompt=[
                    acp.text_block("Explain"),
                    acp.resource_block(acp.embedded_text_resource("file:///w/a.py", "x = 1")),
                    acp.resource_link_block("b.md", "file:///w/b.md"),
                ],
            ),
            TIMEOUT,
        )
        [path] = adapter.config_dir.rglob(f"{session}.jsonl")
    prompt = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert [b["text"] for b in prompt["message"]["content"]] == [
        "Explain",
        "[@a.py](file:///w/a.py)",
        "[@b.md](file:///w/b.md)",
        '<context ref="file:///w/a.py">\nx = 1\n</context>',
    ]


@pytest.mark.asyncio
async def test_audio_is_refused_clearly_and_the_session_goes_on(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path) as adapter:
        session = await adapter.new_session()
        with pytest.raises(acp.RequestError) as refused:
            await asyncio.wait_for(
                adapter.conn.prompt(
                    session_id=session,
                    prompt=[acp.text_block("Listen"), acp.audio_block("AAAA", "audio/wav")],
                ),
                TIMEOUT,
            )
        after = await adapter.prompt(session, "hello")
        sent = adapter.prompt_uuids(session)
    assert refused.value.code == -32602
    assert "audio" in json.dumps(refused.value.data)
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert len(sent) == 1  # the refused prompt never reached Claude
    assert all(count == 1 for count in adapter.answers().values())


@pytest.mark.asyncio
async def test_a_permission_request_shows_the_calls_card_and_allowing_runs_it(
    tmp_path: Path,
) -> None:
    # A plain client: JetBrains AIR gets only its share of the card
    # (tests/shell/test_permission_cards.py).
    adapter, answer, _ = await _run(tmp_path, "permission", capable=False)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [asked] = adapter.client.permission_requests
    assert (asked.title, asked.kind, asked.status) == ("rm -rf build", "execute", "pending")
    [card] = _cards(adapter).values()
    assert card[0]["toolCallId"] == asked.tool_call_id
    # Pending while the user decides, running once allowed, then done.
    assert _statuses(card) == ["pending", "in_progress", "completed"]
