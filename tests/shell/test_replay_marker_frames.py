"""A loaded session shows what the user said, not Claude Code's plumbing: a transcript holding
every marker kind Claude Code writes and each hidden local command (the reference's
REPLAY_HIDDEN_COMMANDS) with its output replays clean, through the agent in process, for a
capable, a legacy and an `agent_error` client (`fsm.claude.transcript_entries.spoken_content`
decides)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio

AGENT_ERROR: dict[str, Any] = {"agentError": {"version": 1}}

CLIENTS: dict[str, dict[str, Any]] = {
    "capable": {"capable": True},
    "legacy": {"capable": False},
    "agent_error": {"client_meta": AGENT_ERROR},
}

MARKERS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<system-reminder>",
    "<task-notification>",
    "</",
)


def _user(uuid: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": uuid,
        "isSidechain": False,
        "message": {"role": "user", "content": content},
        **extra,
    }


def _plumbing() -> list[dict[str, Any]]:
    """What Claude Code stores around a `/model opus`, a reminder, a task's stop and a custom
    command, with two sentences the user did say among them."""
    return [
        _user(
            "m1",
            "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
            "<command-args>opus</command-args>",
        ),
        _user(
            "m2", "<local-command-stdout>Set model to opus (claude-opus-4)</local-command-stdout>"
        ),
        _user("m3", "<local-command-stderr>Failed to reach the MCP server</local-command-stderr>"),
        _user("m4", "<command-name>/context</command-name>"),
        _user(
            "m5",
            [
                {"type": "text", "text": "<system-reminder>The date is today.</system-reminder>"},
                {
                    "type": "text",
                    "text": "please tidy<system-reminder>x</system-reminder> the notes",
                },
            ],
        ),
        _user(
            "m6",
            "<task-notification><task-id>b1</task-id><status>completed</status>"
            "</task-notification>",
        ),
        _user("m7", "Background task b1 stopped", origin={"kind": "task-notification"}),
        _user(
            "m8",
            "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
            "<command-args>the diff</command-args>",
        ),
        _user(
            "m9", "<system-reminder>never <command-name>/status</command-name></system-reminder>"
        ),
        *_hidden_commands(),
    ]


# The reference adapter's REPLAY_HIDDEN_COMMANDS (docs/reference-adapter.md#replay-hidden-commands),
# written out here so that a command dropped from ours fails this test.
HIDDEN = (
    "/context",
    "/heapdump",
    "/extra-usage",
    "/compact",
    "/model",
    "/mcp",
    "/status",
    "/usage",
)


def _hidden_commands() -> list[dict[str, Any]]:
    """Each hidden command as Claude Code stores it (its invocation, then its output)."""
    entries = []
    for n, name in enumerate(HIDDEN):
        entries.append(
            _user(
                f"h{n}",
                f"<command-name>{name}</command-name>\n<command-message>{name[1:]}"
                f"</command-message>\n<command-args>all</command-args>",
            )
        )
        entries.append(
            _user(f"o{n}", f"<local-command-stdout>output of {name}</local-command-stdout>")
        )
    return entries


def _user_texts(updates: list[dict[str, Any]]) -> list[str]:
    return [
        str(u["content"].get("text"))
        for u in updates
        if u.get("sessionUpdate") == "user_message_chunk" and u["content"].get("type") == "text"
    ]


@pytest.mark.parametrize("client", sorted(CLIENTS))
async def test_a_loaded_session_shows_no_plumbing(tmp_path: Path, client: str) -> None:
    options = CLIENTS[client]
    async with agent_in_process(tmp_path, "success", **options) as live:
        session = await live.new_session()
        answer = await live.prompt(session, "first question")
        assert isinstance(answer, PromptResponse), answer
    (path,) = (tmp_path / "claude-config" / "projects").glob(f"*/{session}.jsonl")
    with path.open("a", encoding="utf-8") as transcript:
        for line in _plumbing():
            transcript.write(json.dumps(line) + "\n")
    async with agent_in_process(tmp_path, "success", **options) as loaded:
        await asyncio.wait_for(
            loaded.conn.load_session(cwd=str(loaded.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        updates = loaded.updates()
    said = _user_texts(updates)
    assert said == ["first question", "please tidy the notes", "/review the diff"], said
    shown = json.dumps(updates)
    for marker in MARKERS[:-1]:
        assert marker not in shown, (marker, shown)
    for output in ("Set model to opus", "Failed to reach", "The date is today", "stopped"):
        assert output not in shown, (output, shown)
    for name in HIDDEN:
        assert name not in shown and f"output of {name}" not in shown, (name, shown)
    titles = [u["title"] for u in updates if u.get("sessionUpdate") == "session_info_update"]
    assert titles and "first question" in titles[-1], titles


async def test_a_live_session_is_named_by_its_first_prompt_that_says_something(
    tmp_path: Path,
) -> None:
    """Live, the rule is the one replay applies: a hidden local command typed first (`/model
    opus`) names nothing, the next prompt does, and its markers are not part of the name
    (`fsm.claude.transcript_entries.typed_prompt_said`)."""
    async with agent_in_process(tmp_path, "success") as live:
        session = await live.new_session()
        for text in ("/model opus", "tidy <system-reminder>r</system-reminder>the notes"):
            answer = await live.prompt(session, text)
            assert isinstance(answer, PromptResponse), answer
        # (An AIR client's session_info_updates also carry what has no title: a predicted
        # prompt, a goal.)
        titles = [
            u["title"]
            for u in live.updates()
            if u.get("sessionUpdate") == "session_info_update" and "title" in u
        ]
        listed = await live.listed_sessions()
    assert titles == ["tidy the notes"], titles
    # session/list names it alike (docs/decisions.md#listed-titles).
    assert listed[session] == "tidy the notes", listed


@pytest.mark.parametrize("client", sorted(CLIENTS))
async def test_markers_that_never_close_or_nest_replay_safely(tmp_path: Path, client: str) -> None:
    """Bad markers in a stored prompt: an opener that never closes is the user's text, shown as
    written; markers nested in one another go with the outer one; a lone closer is text. The
    prompts around them replay whole and the session takes the next prompt."""
    options = CLIENTS[client]
    async with agent_in_process(tmp_path, "success", **options) as live:
        session = await live.new_session()
        answer = await live.prompt(session, "first question")
        assert isinstance(answer, PromptResponse), answer
    (path,) = (tmp_path / "claude-config" / "projects").glob(f"*/{session}.jsonl")
    odd = [
        _user("b1", "keep <system-reminder>this never closes"),
        _user(
            "b2",
            "a<system-reminder>x<command-name>/model</command-name><system-reminder>y"
            "</system-reminder>z</system-reminder>b",
        ),
        _user("b3", "<command-args>1<command-args>2</command-args></command-args>"),
        _user("b4", "stray </local-command-stdout> closer"),
        _user("b5", "last words"),
    ]
    with path.open("a", encoding="utf-8") as transcript:
        for line in odd:
            transcript.write(json.dumps(line) + "\n")
    async with agent_in_process(tmp_path, "success", **options) as loaded:
        await asyncio.wait_for(
            loaded.conn.load_session(cwd=str(loaded.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        said = _user_texts(loaded.updates())
        after = await loaded.prompt(session, "and now?")
    assert said == [
        "first question",
        "keep <system-reminder>this never closes",
        "ab",
        "stray </local-command-stdout> closer",
        "last words",
    ], said
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn", after
