"""`adapter.claude.translate.read_frame`: the one step each frame of Claude's takes on its way in.
It says which core events the frame makes, what the view does with it and what Claude Code
changed by itself for the controls to follow (`OwnChanges`), and keeps nothing between frames
(docs/decisions.md#refusal-explanation: a note said ahead of a refusal is the core's to keep).
The session performs the reading (`ClaudeSide.on_message`); the last tests here drive that path
on the fakes of `tests/support/shell_harness.py`."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from acp.schema import PromptResponse
from claude_agent_sdk import AssistantMessage, StreamEvent, UserMessage
from claude_agent_sdk._internal.message_parser import parse_message

from adapter.claude.translate import (
    NO_CHANGES,
    FastMode,
    OwnChanges,
    Reading,
    Shown,
    read_frame,
)
from adapter.claude.unparsed import UnparsedFrame
from fsm import (
    AnswerStreamStarted,
    AssistantMessageReceived,
    ContextMeasured,
    ModelFellBack,
    PromptEchoed,
    PromptEnded,
    PromptFate,
    PromptQueued,
    PromptStarted,
    RateLimitReported,
    RefusalExplained,
    ResultReceived,
)
from tests.support.shell_harness import (
    EPOCH,
    answer_of,
    echo,
    prompt_in_background,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio

NOW, WALL = 5.0, 1_700_000_000.0
WHY = "This request looks like malware development."


def read(raw: dict[str, Any]) -> tuple[Any, Reading]:
    """`raw` parsed as the SDK parses it, and read."""
    message = parse_message(raw)
    return message, read_frame(message, raw, EPOCH, now=NOW, wall=WALL)


def _assistant(content: list[dict[str, Any]], **message: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "parent_tool_use_id": None,
        "session_id": "s",
        "message": {"model": "claude-sonnet-4-5", "content": content, **message},
    }


def _result(stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "session_id": "s",
        "duration_ms": 1,
        "duration_api_ms": 1,
        "num_turns": 1,
        "result": "",
        "stop_reason": stop_reason,
    }


NO_FALLBACK = {
    "type": "system",
    "subtype": "model_refusal_no_fallback",
    "session_id": "s",
    "api_refusal_explanation": WHY,
}
REFUSING = _assistant([], stop_reason="refusal", stop_details={"type": "refusal"})


def _delta(event: dict[str, Any], parent: str | None = None) -> StreamEvent:
    return StreamEvent(uuid="u", session_id="s", event=event, parent_tool_use_id=parent)


def test_a_streamed_delta_is_the_views_alone_and_makes_no_reading_of_its_own() -> None:
    delta = _delta({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "a"}})
    first = read_frame(delta, {}, EPOCH, now=NOW, wall=WALL)
    assert (first.shown, first.events) == (Shown.STREAM, ())
    # The bulk of a turn: every such delta shares one reading.
    assert read_frame(delta, {}, EPOCH, now=NOW, wall=WALL) is first


def test_a_new_top_level_answer_tells_the_core_its_model() -> None:
    start = {"type": "message_start", "message": {"model": "claude-opus-4-1"}}
    reading = read_frame(_delta(start), {}, EPOCH, now=NOW, wall=WALL)
    assert reading == Reading(
        Shown.STREAM, (AnswerStreamStarted(epoch=EPOCH, model="claude-opus-4-1"),)
    )
    # A subagent's new message is not the session's answer.
    subagents = read_frame(_delta(start, parent="toolu_1"), {}, EPOCH, now=NOW, wall=WALL)
    assert subagents.events == ()


def test_a_frame_the_sdk_does_not_parse_is_the_views() -> None:
    frame = {"type": "tool_progress", "tool_use_id": "t"}
    reading = read_frame(UnparsedFrame(frame), frame, EPOCH, now=NOW, wall=WALL)
    assert reading == Reading(Shown.UNPARSED)


def test_a_frame_whose_fields_make_no_sense_is_malformed() -> None:
    _, reading = read({"type": "system", "subtype": "api_retry", "session_id": "s"})
    assert reading == Reading(Shown.MALFORMED)


def test_an_assistant_message_keeps_the_server_blocks_the_sdk_dropped() -> None:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "Searching."},
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
        {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
    ]
    parsed, reading = read(_assistant(content))
    assert reading.shown is Shown.ASSISTANT
    shown = reading.shown_message(parsed)
    assert isinstance(shown, AssistantMessage)
    kept: Any = shown.content
    assert kept == content
    assert shown is not parsed and len(parsed.content) < len(content)  # the parsed one is kept
    # The core's event is the parsed text's.
    [event] = reading.events
    assert isinstance(event, AssistantMessageReceived) and event.text == "Searching."


def test_an_assistant_message_without_server_blocks_is_shown_as_parsed() -> None:
    parsed, reading = read(_assistant([{"type": "text", "text": "Hi."}]))
    assert reading.message is None and reading.shown_message(parsed) is parsed


def test_a_refusal_message_brings_the_explanation_the_sdk_dropped() -> None:
    explained = _assistant([], stop_reason="refusal", stop_details={"explanation": WHY})
    [event] = read(explained)[1].events
    assert isinstance(event, AssistantMessageReceived) and event.refusal_explanation == WHY


def test_the_reading_keeps_nothing_between_frames() -> None:
    # The no-fallback frame is an event for the core, which keeps it ...
    _, ahead = read(NO_FALLBACK)
    assert ahead == Reading(Shown.SYSTEM, (RefusalExplained(epoch=EPOCH, explanation=WHY),))
    # ... so the refusal message and the result read alike whatever came before them.
    for later in (REFUSING, _result("refusal")):
        alone = read(later)[1]
        read(NO_FALLBACK)
        after = read(later)[1]
        assert after == alone
    [event] = read(REFUSING)[1].events
    assert isinstance(event, AssistantMessageReceived) and event.refusal_explanation is None


def test_a_result_and_a_compaction_measure_the_context_first() -> None:
    _, result = read(_result())
    assert result.shown is Shown.RESULT and result.measured
    assert [type(e) for e in result.events] == [ResultReceived]
    boundary = {"type": "system", "subtype": "compact_boundary", "session_id": "s"}
    assert read(boundary)[1] == Reading(Shown.SYSTEM, measured=True)
    init = {"type": "system", "subtype": "init", "session_id": "s"}
    assert read(init)[1] == Reading(Shown.SYSTEM, changes=OwnChanges(init=True))


def test_a_rate_limit_is_stamped_with_both_clocks() -> None:
    frame = {
        "type": "rate_limit_event",
        "uuid": "u",
        "session_id": "s",
        "rate_limit_info": {"status": "allowed_warning", "rateLimitType": "five_hour"},
    }
    reading = read(frame)[1]
    [event] = reading.events
    assert reading.shown is Shown.RATE_LIMIT
    assert isinstance(event, RateLimitReported) and (event.now, event.wall) == (NOW, WALL)


def test_a_user_frame_is_an_echo_or_tool_results() -> None:
    echo = {
        "type": "user",
        "isReplay": True,
        "uuid": "turn-7",
        "session_id": "s",
        "message": {"role": "user", "content": "hi"},
    }
    assert read(echo)[1] == Reading(
        Shown.ECHO, (PromptEchoed(epoch=EPOCH, turn_id="turn-7"),), taken_up="turn-7"
    )
    results = {
        "type": "user",
        "session_id": "s",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
        },
    }
    parsed, reading = read(results)
    assert isinstance(parsed, UserMessage) and reading == Reading(Shown.TOOL_RESULTS)


# --- what Claude Code changed by itself, for the controls ----------------------------------


def _system(subtype: str, **fields: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": subtype, "session_id": "s", **fields}


def test_an_init_names_the_mode_the_terminal_commands_and_fast_mode() -> None:
    init = _system(
        "init",
        permissionMode="acceptEdits",
        terminal_slash_commands=["/login", "doctor", 7],
        fast_mode_state="off",
        fast_mode_disabled_reason="free",
    )
    assert read(init)[1].changes == OwnChanges(
        mode="acceptEdits",
        init=True,
        terminal_only=frozenset({"login", "doctor"}),
        fast=FastMode(on=False, reason="free"),
    )
    # A status frame names the mode alone: its other fields are not followed.
    status = _system(
        "status", permissionMode="plan", terminal_slash_commands=["/x"], fast_mode_state="on"
    )
    assert read(status)[1].changes == OwnChanges(mode="plan")


def test_what_makes_no_sense_changes_nothing() -> None:
    odd = _system("init", permissionMode=["plan"], terminal_slash_commands="login")
    assert read(odd)[1].changes == OwnChanges(init=True)
    assert read(_system("status", fast_mode_state="cooldown"))[1].changes == NO_CHANGES
    assert read(_system("elicitation_complete", elicitation_id=""))[1].changes == OwnChanges()
    parsed = read(_system("status"))[0]
    parsed.data = None  # the SDK passes its fields through unchecked
    assert read_frame(parsed, None, EPOCH, now=NOW, wall=WALL).changes == NO_CHANGES


def test_entering_plan_mode_is_the_plan_mode() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "EnterPlanMode", "input": {}}
    entering = read(_assistant([{"type": "text", "text": "Planning."}, call]))[1]
    assert entering.shown is Shown.ASSISTANT and entering.changes == OwnChanges(mode="plan")
    other = {**call, "name": "Read"}
    assert read(_assistant([other]))[1].changes == NO_CHANGES


def test_a_command_list_is_passed_on_as_claude_code_wrote_it() -> None:
    entries = [{"name": "review", "description": "Review"}, "odd"]
    listed = read(_system("commands_changed", commands=entries))[1]
    assert listed.changes == OwnChanges(commands_changed=True, commands=tuple(entries))
    # A list that is not one still means the commands changed (the skill files are read again).
    unlisted = read(_system("commands_changed", commands={"review": {}}))[1]
    assert unlisted.changes == OwnChanges(commands_changed=True)


def test_a_url_request_done_is_named_by_its_id() -> None:
    done = read(_system("elicitation_complete", elicitation_id="el-1", mcp_server_name="m"))[1]
    assert done.changes == OwnChanges(elicitation_completed="el-1")


@pytest.mark.parametrize(
    ("direction", "scope", "followed"),
    [
        (None, None, True),
        ("forward", "session", True),
        ("revert", None, False),
        (None, "local", False),
    ],
)
def test_a_fallback_for_good_moves_the_sessions_model(
    direction: str | None, scope: str | None, followed: bool
) -> None:
    said = {"direction": direction, "scope": scope}
    frame = _system(
        "model_refusal_fallback",
        original_model="claude-opus-4-1",
        fallback_model="claude-sonnet-4-5",
        **{k: v for k, v in said.items() if v is not None},
    )
    reading = read(frame)[1]
    assert reading.changes == OwnChanges(model="claude-sonnet-4-5" if followed else None)
    # The core hears of every fallback (its notice), followed or not.
    assert [type(e) for e in reading.events] == [ModelFellBack]


def test_a_malformed_frame_still_says_what_claude_changed() -> None:
    # No original model: nothing for the core, but the session's model moved all the same.
    frame = _system("model_refusal_fallback", fallback_model="claude-sonnet-4-5")
    assert read(frame)[1] == Reading(Shown.MALFORMED, changes=OwnChanges(model="claude-sonnet-4-5"))


def test_fast_mode_is_read_from_a_user_turns_result_as_claude_code_wrote_it() -> None:
    def fast(reading: Reading) -> tuple[object, object]:
        (event,) = reading.events
        # The result's fast mode is the core's to pass on (`ShowResult`), no change of its own.
        assert isinstance(event, ResultReceived) and reading.changes == NO_CHANGES
        return event.fast_on, event.fast_reason

    said = {"fast_mode_state": "off", "fast_mode_disabled_reason": "network_error"}
    assert fast(read({**_result(), **said})[1]) == (False, "network_error")
    assert fast(read({**_result(), "fast_mode_state": "on"})[1]) == (True, None)
    # Whose the result is, the user's turn or Claude's own work, is the core's word
    # (`ShowResult`), not its origin's: read alike; `cooldown` is no change.
    autonomous = {**_result(), **said, "origin": {"kind": "task-notification"}}
    assert fast(read(autonomous)[1]) == (False, "network_error")
    assert fast(read({**_result(), "fast_mode_state": "cooldown"})[1]) == (None, None)


def test_a_delta_and_an_unparsed_frame_change_nothing() -> None:
    delta = _delta({"type": "message_start", "message": {"model": "m"}})
    frame = {"type": "tool_progress", "fast_mode_state": "on"}
    assert read_frame(delta, frame, EPOCH, now=NOW, wall=WALL).changes == NO_CHANGES
    unparsed = read_frame(UnparsedFrame(frame), frame, EPOCH, now=NOW, wall=WALL)
    assert unparsed.changes == NO_CHANGES


# --- the reading performed: `ClaudeSide.on_message` ----------------------------------------


def _texts(sent: list[Any]) -> list[str]:
    return [
        u.content.text for u in sent if getattr(u, "session_update", "") == "agent_message_chunk"
    ]


async def _say(session: Any, raw: dict[str, Any]) -> None:
    await session.claude.on_message(parse_message(raw), raw, EPOCH)


@pytest.mark.parametrize("refusing_message", [True, False], ids=["message", "result-alone"])
async def test_the_explanation_said_ahead_reaches_the_client_before_refusal(
    refusing_message: bool,
) -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        await _say(session, NO_FALLBACK)
        if refusing_message:
            await _say(session, REFUSING)
        await _say(session, _result("refusal"))
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "refusal"
        assert _texts(link.sent) == [WHY]


async def test_an_explanation_no_refusal_used_is_not_said_in_the_next_turn() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        await _say(session, NO_FALLBACK)
        await _say(session, _assistant([{"type": "text", "text": "Here."}]))
        await _say(session, _result())
        assert (await answer_of(box)).stop_reason == "end_turn"
        box = await prompt_in_background(session, runtime, tg)
        await _say(session, _result("refusal"))
        assert (await answer_of(box)).stop_reason == "refusal"
        assert WHY not in _texts(link.sent)


async def test_the_context_is_measured_before_the_result_is_decided() -> None:
    async with session_with_fakes() as (session, _, runtime, _), anyio.create_task_group() as tg:
        fed: list[Any] = []
        feed = session.claude._feed

        async def recording(event: Any, message: Any = None) -> None:
            fed.append(event)
            await feed(event, message)

        box = await prompt_in_background(session, runtime, tg)
        session.claude._feed = recording
        await _say(session, _result())
        await answer_of(box)
        assert [type(e) for e in fed] == [ContextMeasured, ResultReceived]


async def test_the_controls_follow_what_the_reading_says_before_the_core_decides() -> None:
    async with session_with_fakes() as (session, link, _, _):
        await _say(session, _system("status", permissionMode="plan"))
        [mode, options] = link.sent
        assert mode.session_update == "current_mode_update" and mode.current_mode_id == "plan"
        assert options.session_update == "config_option_update"
        # The mode it is in already changes nothing.
        await _say(session, _system("status", permissionMode="plan"))
        assert len(link.sent) == 2


def _lifecycle(state: object, command_uuid: object = "p-1") -> dict[str, Any]:
    return {"type": "command_lifecycle", "state": state, "command_uuid": command_uuid}


def test_claude_code_starting_a_user_message_is_its_take_up() -> None:
    # docs/decisions.md#turn-begins-at-echo: `command_lifecycle` `started`, before anything Claude
    # Code does for the message, and `queued` before it; a state it does not name, and a frame
    # without a uuid, say nothing.
    frame = _lifecycle("started")
    reading = read_frame(UnparsedFrame(frame), frame, EPOCH, now=NOW, wall=WALL)
    assert reading == Reading(Shown.UNPARSED, (PromptStarted(epoch=EPOCH, turn_id="p-1"),))
    frame = _lifecycle("queued")
    reading = read_frame(UnparsedFrame(frame), frame, EPOCH, now=NOW, wall=WALL)
    assert reading == Reading(Shown.UNPARSED, (PromptQueued(epoch=EPOCH, turn_id="p-1"),))
    unnamed = (
        _lifecycle("paused"),
        _lifecycle(["completed"]),
        _lifecycle("queued", None),
        _lifecycle("started", None),
        _lifecycle("completed", ""),
        _lifecycle("cancelled", 7),
    )
    for other in unnamed:
        unsaid = read_frame(UnparsedFrame(other), other, EPOCH, now=NOW, wall=WALL)
        assert unsaid == Reading(Shown.UNPARSED)


@pytest.mark.parametrize("fate", list(PromptFate))
def test_claude_code_ending_a_user_message_is_its_fate(fate: PromptFate) -> None:
    # docs/decisions.md#prompt-ended-unstarted: each of the four terminal states the bundled
    # CLI's schema names.
    frame = _lifecycle(fate.value)
    reading = read_frame(UnparsedFrame(frame), frame, EPOCH, now=NOW, wall=WALL)
    ended = PromptEnded(epoch=EPOCH, turn_id="p-1", fate=fate)
    assert reading == Reading(Shown.UNPARSED, (ended,))


async def test_a_local_commands_output_before_its_echo_is_its_answer() -> None:
    # The bundled CLI writes `/context`'s output before its echo; it said it started the
    # command first, so the turn runs from there and the output is the prompt's.
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg, echoed=False)
        stamp = runtime.prompts[-1]["uuid"]
        assert session.core.turn_state.value == "prompt-sent"
        started = _lifecycle("started", stamp)
        await session.claude.on_message(UnparsedFrame(started), started, EPOCH)
        assert session.core.turn_state.value == "running"
        await _say(session, _assistant([{"type": "text", "text": "## Context Usage"}]))
        assert session.core.turn.answered_text == "## Context Usage"
        await echo(session, runtime, runtime.prompts[-1])
        await _say(session, _result())
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        assert sum("## Context Usage" in str(update) for update in link.sent) == 1
