"""session/load, in process (`agent_in_process`): history replayed in order, usage limits
restored as typed records."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.transcript import sanitize_path
from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

SPEND_LIMIT = (
    "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin for a "
    "higher limit"
)
OUT_OF_CREDITS = "You're out of usage credits \u00b7 add more to keep going"


def _user(text: str, uid: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": uid or str(uuid.uuid4()),
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        **extra,
    }


def _tool_result(tool_use_id: str) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": "ok"}],
        },
    }


def _assistant(
    text: str, model: str = "claude-sonnet-4-5", uid: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": uid or str(uuid.uuid4()),
        "message": {
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
        },
        **extra,
    }


def _tool_use(tool_id: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}
            ],
        },
    }


def _synthetic(text: str, uid: str | None = None) -> dict[str, Any]:
    return _assistant(
        text, model="<synthetic>", uid=uid, error="rate_limit", isApiErrorMessage=True
    )


def _write(adapter: Adapter, session_id: str, lines: list[Any]) -> Path:
    folder = adapter.config_dir / "projects" / sanitize_path(str(adapter.workdir))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
        encoding="utf-8",
    )
    return path


async def _load(adapter: Adapter, session_id: str) -> None:
    await adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session_id, mcp_servers=[])


def _stream(adapter: Adapter) -> list[tuple[str, str]]:
    """The replayed stream: (kind, text-or-record-id) in arrival order."""
    items = []
    for update in adapter.updates():
        kind = update["sessionUpdate"]
        if kind == "session_info_update" and "title" in update:
            continue  # the session's name, not a record
        if kind == "available_commands_update":
            continue  # sent after every setup response, not part of the history
        if kind == "session_info_update" and "promptSuggestions" in update.get("_meta", {}):
            continue  # Claude's predicted next prompt (AIR's), not part of the history
        if kind == "session_info_update":
            items.append((kind, update["_meta"]["jetbrains"]["air"]["sessionFailure"]["id"]))
        elif "content" in update and isinstance(update["content"], dict):
            items.append((kind, update["content"].get("text", "")))
        else:
            items.append((kind, update.get("toolCallId", "")))
    return items


@pytest.mark.asyncio
async def test_live_failure_keeps_its_id_when_loaded_in_a_new_process(tmp_path: Path) -> None:
    # Live: the usage limit arrives on the prompt response under <turnId>:error.
    async with agent_in_process(tmp_path, "usage_limit") as live:
        session = await live.new_session()
        await live.prompt(session, "build the page")
    [(carrier, live_record)] = live.records()
    assert carrier == "prompt_response"
    # A new adapter process loads the session: the same occurrence, the same id.
    async with agent_in_process(tmp_path, "usage_limit") as loaded:
        await _load(loaded, session)
        [(carrier, replayed)] = loaded.records()
        assert carrier == "session_info_update"
        assert replayed == {**live_record, "revision": 1}
        # The next prompt resumes the same Claude session (its transcript grows) and succeeds.
        answer = await loaded.prompt(session, "and now?")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    transcript = next(loaded.config_dir.rglob(f"{session}.jsonl")).read_text(encoding="utf-8")
    assert "and now?" in transcript and "build the page" in transcript
    # The real answer recovered the restored failure (logged, never published).
    assert f"no longer active: ['{replayed['id']}']" in loaded.stderr()
    assert len(loaded.records()) == 1


@pytest.mark.asyncio
async def test_replay_restores_each_usage_limit_in_place_and_only_latest_stays_active(
    tmp_path: Path,
) -> None:
    session = str(uuid.uuid4())
    first_prompt, second_prompt = str(uuid.uuid4()), str(uuid.uuid4())
    early = str(uuid.uuid4())
    async with agent_in_process(tmp_path, "success") as adapter:
        _write(
            adapter,
            session,
            [
                # A usage limit before any prompt: the history-error id.
                _synthetic(OUT_OF_CREDITS, uid=early),
                _user("first", first_prompt),
                _synthetic(SPEND_LIMIT),
                _assistant("A real answer recovers it."),
                _user("second", second_prompt),
                _tool_use("toolu_1"),
                _tool_result("toolu_1"),  # not a prompt: the id stays the second prompt's (D8)
                _synthetic(SPEND_LIMIT),
                _assistant("No response requested.", model="<synthetic>"),  # not a real answer
            ],
        )
        await _load(adapter, session)
        assert _stream(adapter) == [
            ("session_info_update", f"{session}:history-error:{early}"),
            ("user_message_chunk", "first"),
            ("session_info_update", f"{first_prompt}:error"),
            ("agent_message_chunk", "A real answer recovers it."),
            ("user_message_chunk", "second"),
            ("tool_call", "toolu_1"),
            ("tool_call_update", "toolu_1"),
            ("session_info_update", f"{second_prompt}:error"),
            ("agent_message_chunk", "No response requested."),
        ]
        records = [record for _, record in adapter.records()]
        assert records[2] == {
            "id": f"{second_prompt}:error",
            "revision": 1,
            "category": "limit",
            "severity": "error",
            "title": SPEND_LIMIT,
            "actions": [],
        }
        # Only the latest is still active: a successful prompt recovers exactly that one.
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse)
    assert f"no longer active: ['{second_prompt}:error']" in adapter.stderr()


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["legacy", "agent_error_only"])
async def test_legacy_client_gets_the_original_prose_and_no_record(
    tmp_path: Path, mode: str
) -> None:
    # docs/decisions.md#agent-error-only-clients: an agentError-only client replays as a legacy
    # client does (no agent_error).
    session, prompt = str(uuid.uuid4()), str(uuid.uuid4())
    meta = {"agentError": {"version": 1}} if mode == "agent_error_only" else None
    async with agent_in_process(tmp_path, "success", capable=False, client_meta=meta) as adapter:
        _write(adapter, session, [_user("first", prompt), _synthetic(SPEND_LIMIT)])
        await _load(adapter, session)
    assert adapter.records() == [] and adapter.updates("agent_error") == []
    assert _stream(adapter) == [
        ("user_message_chunk", "first"),
        ("agent_message_chunk", SPEND_LIMIT),
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_synthetic_login_message_replays_as_its_text_for_every_client(
    tmp_path: Path, capable: bool
) -> None:
    # docs/decisions.md#replaying-stored-messages (this changed: the login message used to be
    # dropped from replay): every stored message but a usage limit replays as its original text, the
    # login message included.
    session = str(uuid.uuid4())
    login = "Please run /login \u00b7 API key is invalid"
    api_error = "API Error: 500 Internal server error"
    async with agent_in_process(tmp_path, "success", capable=capable) as adapter:
        _write(
            adapter,
            session,
            [
                _user("hi"),
                _assistant(login, model="<synthetic>"),
                _user("again"),
                _assistant(api_error, model="<synthetic>", isApiErrorMessage=True),
            ],
        )
        await _load(adapter, session)
    assert adapter.records() == []
    assert _stream(adapter) == [
        ("user_message_chunk", "hi"),
        ("agent_message_chunk", login),
        ("user_message_chunk", "again"),
        ("agent_message_chunk", api_error),
    ]


@pytest.mark.asyncio
async def test_missing_transcript_is_resource_not_found(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await _load(adapter, str(uuid.uuid4()))
    assert caught.value.code == -32002
    assert str(adapter.workdir) not in str(caught.value)


@pytest.mark.asyncio
async def test_corrupt_lines_are_skipped_counted_and_logged_once(tmp_path: Path) -> None:
    session = str(uuid.uuid4())
    async with agent_in_process(tmp_path, "success") as adapter:
        _write(
            adapter,
            session,
            [
                _user("before"),
                "{not json",
                '{"type": "user", "message": {"role": "user", "content": [{"type": "te',
                {"type": "mystery-entry", "uuid": "x"},
                {"type": "assistant", "message": "not an object"},
                {"type": "summary", "summary": "ignored quietly"},
                _assistant("after"),
            ],
        )
        await _load(adapter, session)
        answer = await adapter.prompt(session, "still works")
    assert isinstance(answer, PromptResponse)
    assert _stream(adapter)[:2] == [
        ("user_message_chunk", "before"),
        ("agent_message_chunk", "after"),
    ]
    warnings = [line for line in adapter.stderr().splitlines() if "unreadable transcript" in line]
    assert len(warnings) == 1 and "skipped 4" in warnings[0]


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_limit_after_a_prompt_without_uuid_gets_its_history_id(
    tmp_path: Path, capable: bool
) -> None:
    # docs/decisions.md#replay-ids: the limit belongs to the uuid-less prompt's turn, which had no
    # live id to keep; it never takes the earlier prompt's id.
    session, earlier, limit = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    uuidless = _user("second")
    del uuidless["uuid"]
    async with agent_in_process(tmp_path, "success", capable=capable) as adapter:
        _write(
            adapter,
            session,
            [
                _user("first", earlier),
                _assistant("Done."),
                uuidless,
                _synthetic(SPEND_LIMIT, uid=limit),
            ],
        )
        await _load(adapter, session)
    head = [("user_message_chunk", "first"), ("agent_message_chunk", "Done.")]
    if capable:
        assert _stream(adapter) == [
            *head,
            ("user_message_chunk", "second"),
            ("session_info_update", f"{session}:history-error:{limit}"),
        ]
        [(_, record)] = adapter.records()
        assert record["title"] == SPEND_LIMIT
    else:
        # A legacy client gets the original transcript and no record.
        assert adapter.records() == []
        assert _stream(adapter) == [
            *head,
            ("user_message_chunk", "second"),
            ("agent_message_chunk", SPEND_LIMIT),
        ]


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_known_non_message_lines_are_skipped_silently(tmp_path: Path, capable: bool) -> None:
    # Current Claude Code writes these beside the messages; one holds the system prompt.
    session = str(uuid.uuid4())
    system_prompt = "You are Claude Code, a private system prompt"
    async with agent_in_process(tmp_path, "success", capable=capable) as adapter:
        _write(
            adapter,
            session,
            [
                {"type": "atis-latch", "atis": "x", "sessionId": session},
                _user("before"),
                {"type": "api-request-shape", "shapeHash": "abc", "sessionId": session},
                {"type": "api-request-blob", "hash": "abc", "system": system_prompt},
                {"type": "ai-title", "aiTitle": "A title", "sessionId": session},
                "{not json",
                _assistant("after"),
            ],
        )
        await _load(adapter, session)
    assert _stream(adapter) == [
        ("user_message_chunk", "before"),
        ("agent_message_chunk", "after"),
    ]
    assert not any(system_prompt in json.dumps(frame.message) for frame in adapter.frames)
    # Only the corrupt line counts as unreadable; the known ones are counted apart.
    warnings = [line for line in adapter.stderr().splitlines() if "unreadable transcript" in line]
    assert len(warnings) == 1 and "skipped 1 " in warnings[0]
    assert "4 non-message transcript line(s)" in adapter.stderr()
