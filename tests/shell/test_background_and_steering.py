"""Work Claude does in the background, and steering, in process (`agent_in_process`): the agent,
a real ACP client and the scripted Claude under the real SDK, playing tests/support/scripted/'s
`SCENARIOS`:

- a turn whose subagent went to the background (`system/task_started` of an Agent call) keeps
  its `session/prompt` open past its own result, so the follow-up Claude writes when the
  subagent ends (`task_notification`, then an autonomous result), and a question it asks, land
  inside the turn; the prompt is answered once, after them;
- cancelled or closed while the subagent hangs: end to end
  (tests/e2e/test_background_and_steering.py), where the Claude process's end is seen;
- `_session/steering` during a turn is sent to Claude at once with priority `now` and joins the
  running turn, which is answered once, when Claude is idle after the steered message; with no
  turn running it is `promptRequired` for a client that asked, else a turn of its own;
- bad input: a notification for a task nobody started, task frames without ids, a steer with
  bad params or for an unknown session: a clear outcome, and nothing else lost.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import AllowedOutcome, PromptResponse, RequestPermissionResponse

from tests.support.harness import (
    OPT_IN,
    TIMEOUT,
    RecordingClient,
    until,
)
from tests.support.said import is_response, position, said_before, send_steer, until_said
from tests.support.scripted import SCENARIOS
from tests.support.shell_harness import agent_in_process

PERMISSION = "session/request_permission"


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_turn_waits_for_its_background_subagent(tmp_path: Path, capable: bool) -> None:
    async with agent_in_process(
        tmp_path, "background", scenarios=SCENARIOS, capable=capable
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        after = await adapter.prompt(session, "next")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    # The follow-up answers the turn but is Claude's own work: its tokens (3 input) are no
    # turn's, only the turn's own result's (the scripted request's 24), as the reference's.
    assert answer.usage is not None and answer.usage.input_tokens == 24
    # The follow-up and the subagent's question came inside the turn, before its answer.
    answered = position(adapter, is_response)
    assert "The audit found two issues." in said_before(adapter, answered)
    asked = position(adapter, lambda m: m.get("method") == "session/request_permission")
    assert asked < answered
    assert adapter.records() == []


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_subagent_that_ends_before_the_result_still_has_its_follow_up_in_the_turn(
    tmp_path: Path, capable: bool
) -> None:
    # docs/decisions.md#turns-that-wait: the follow-up Claude Code runs right after the turn's
    # result, for a background subagent that had already ended, is inside the turn; with no
    # follow-up, the idle after the result answers it.
    async with agent_in_process(
        tmp_path, "background_early", scenarios=SCENARIOS, capable=capable
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        answered = position(adapter, is_response)
    async with agent_in_process(
        tmp_path, "background_early_quiet", scenarios=SCENARIOS, capable=capable
    ) as quiet:
        alone = await quiet.new_session()
        unanswered = await quiet.prompt(alone, "audit")
        after = await quiet.prompt(alone, "next")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert "The audit found two issues." in said_before(adapter, answered)
    assert set(adapter.answers().values()) == {1} and adapter.records() == []
    assert isinstance(unanswered, PromptResponse) and unanswered.stop_reason == "end_turn"
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(quiet.answers().values()) == {1} and quiet.records() == []


@pytest.mark.asyncio
async def test_an_air_client_with_background_subagents_is_answered_at_the_result(
    tmp_path: Path,
) -> None:
    # JetBrains AIR's opt-out, as the reference: the turn ends at its result; the subagent's
    # follow-up and its question come after the answer, and reach the client all the same.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with agent_in_process(
        tmp_path, "background", scenarios=SCENARIOS, client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        answered = position(adapter, is_response)
        await until_said(adapter, "The audit found two issues.")
        after = await adapter.prompt(session, "next")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    assert "The audit runs in the background." in said_before(adapter, answered)
    assert "The audit found two issues." not in said_before(adapter, answered)
    asked = position(adapter, lambda m: m.get("method") == "session/request_permission")
    assert asked > answered
    assert [r.title for r in adapter.client.permission_requests] == ["git diff"]
    assert adapter.records() == []


@pytest.mark.asyncio
async def test_work_claude_does_between_turns_ends_its_cards_at_its_result(tmp_path: Path) -> None:
    # Work no prompt waits for has a visible home: its words and its card reach the client,
    # and the card reaches a final status at that work's own result, with no next prompt.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with agent_in_process(
        tmp_path, "background_open_card", scenarios=SCENARIOS, client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        answered = position(adapter, is_response)
        await until(
            lambda: any(_final(m, "rd1") for m in adapter.incoming()), "the card's final status"
        )
        await until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    opened = position(adapter, lambda m: _update(m).get("toolCallId") == "rd1")
    assert answered < opened < position(adapter, lambda m: _final(m, "rd1"))
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_work_with_no_origin_between_turns_ends_its_cards_at_its_result(
    tmp_path: Path, capable: bool
) -> None:
    # A `/loop` fire or a scheduled task: work between turns whose result carries no origin.
    # Its card ends at that result, not at the next turn's end
    # (docs/decisions.md#own-work-ends-its-cards).
    async with agent_in_process(
        tmp_path, "loop_fire_open_card", scenarios=SCENARIOS, capable=capable
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "loop")
        answered = position(adapter, is_response)
        await until(
            lambda: any(_final(m, "lp1") for m in adapter.incoming()), "the card's final status"
        )
        await until_said(adapter, "The build is green.")
    # No next prompt was sent: nothing but that result ended the card.
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    opened = position(adapter, lambda m: _update(m).get("toolCallId") == "lp1")
    closed = [_update(m) for m in adapter.incoming() if _final(m, "lp1")]
    assert answered < opened < position(adapter, lambda m: _final(m, "lp1"))
    assert [u["status"] for u in closed] == ["failed"]  # it never got a result
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio
async def test_a_subagents_call_open_at_the_answer_is_not_failed(tmp_path: Path) -> None:
    # AIR's `backgroundSubagents`: the turn is answered while its subagent's call runs; that
    # card stays open past the answer and completes with its result, never failed.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with agent_in_process(
        tmp_path, "background_call_open", scenarios=SCENARIOS, client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        await until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    answered = position(adapter, is_response)
    statuses = [
        (i, _update(m).get("status"))
        for i, m in enumerate(adapter.incoming())
        if _update(m).get("toolCallId") == "sr1" and _update(m).get("status")
    ]
    assert "failed" not in [status for _, status in statuses]
    assert statuses[-1][1] == "completed" and statuses[-1][0] > answered


@pytest.mark.asyncio
async def test_a_subagent_moved_to_the_background_keeps_its_call_open_past_the_answer(
    tmp_path: Path,
) -> None:
    # A steer (or the user) moved the foreground subagent to the background: the bundled CLI
    # says so in a `task_updated`, and its open call lives on past the turn's answer as one
    # started in the background does, completed by its own result, never failed.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with agent_in_process(
        tmp_path, "background_moved_call_open", scenarios=SCENARIOS, client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        await until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    answered = position(adapter, is_response)
    statuses = [
        (i, _update(m).get("status"))
        for i, m in enumerate(adapter.incoming())
        if _update(m).get("toolCallId") == "sr1" and _update(m).get("status")
    ]
    assert "failed" not in [status for _, status in statuses]
    assert statuses[-1][1] == "completed" and statuses[-1][0] > answered


def _update(message: dict[str, Any]) -> dict[str, Any]:
    update = message.get("params", {}).get("update", {})
    return update if isinstance(update, dict) else {}


def _final(message: dict[str, Any], tool_call_id: str) -> bool:
    update = _update(message)
    return update.get("toolCallId") == tool_call_id and update.get("status") in (
        "completed",
        "failed",
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("opted_out", [True, False], ids=["background_subagents", "held"])
async def test_a_plan_exit_between_turns_offers_no_fresh_context(
    tmp_path: Path, opted_out: bool
) -> None:
    # Clearing the context goes on with the turn in a fresh one: asked after the answer (the
    # AIR opt-out), there is no turn to go on with, so the choice is not offered.
    names = ["backgroundSubagents"] if opted_out else []
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": names}}}
    async with agent_in_process(
        tmp_path,
        "background_plan",
        scenarios=SCENARIOS,
        client_meta=meta,
        client=RecordingClient(permission="exit-plan-default"),
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        await until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [asked] = [m["params"] for m in adapter.incoming() if m.get("method") == PERMISSION]
    offered = [o["optionId"] for o in asked["options"]]
    assert "exit-plan-default" in offered
    clearing = [o for o in offered if o.startswith("exit-plan-clear-")]
    assert len(clearing) == (0 if opted_out else 1)


@pytest.mark.asyncio
async def test_a_background_commands_terminal_ends_when_the_command_ends(tmp_path: Path) -> None:
    meta = {**OPT_IN, "terminal_output": True}
    async with agent_in_process(
        tmp_path, "background_bash", scenarios=SCENARIOS, client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "start the server")
        first = len(adapter.incoming())
        await adapter.prompt(session, "is it done?")
    exits = [
        i
        for i, m in enumerate(adapter.incoming())
        if "terminal_exit" in m.get("params", {}).get("update", {}).get("_meta", {})
    ]
    # Not when Claude Code said it went to the background: when its task ended.
    [at] = exits
    assert at >= first  # among the second turn's frames, where the task ended
    update = adapter.incoming()[at]["params"]["update"]
    assert update["toolCallId"] == "bg1"
    assert update["_meta"]["terminal_exit"] == {
        "terminal_id": "bg1",
        "exit_code": 0,
        "signal": None,
    }


@pytest.mark.asyncio
async def test_a_subagent_whose_end_was_never_said_holds_nothing(tmp_path: Path) -> None:
    # `background_tasks_changed` lists no task: the subagent ended though no notification said
    # so, and the turn is answered at the idle after it, not held for ever.
    async with agent_in_process(tmp_path, "background_level", scenarios=SCENARIOS) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio
async def test_odd_task_frames_change_nothing(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "odd_tasks", scenarios=SCENARIOS) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hi")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert len(adapter.agent_texts()) == 1 and adapter.records() == []


@dataclass(slots=True)
class _AnswersWhenTold(RecordingClient):
    """A user who answers the permission question only once `release` is set."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.asked.set()
        await self.release.wait()
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow")
        )


@pytest.mark.asyncio
async def test_a_steer_while_a_question_is_open_waits_for_it(tmp_path: Path) -> None:
    # Priority `later` while the user is asked (docs/decisions.md#turns-that-wait): the
    # question stays open and is answered, and the steered message runs after it, inside the
    # turn, which is answered once.
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    client = _AnswersWhenTold()
    async with agent_in_process(
        tmp_path, "asks_then_steered", env=env, scenarios=SCENARIOS, client=client
    ) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "build it"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        steer = {"sessionId": session, "prompt": [{"type": "text", "text": "then lint"}]}
        outcome = await send_steer(adapter, **steer)
        await _until_logged(log, "then lint")
        client.release.set()
        answer = await prompt
    assert outcome == {"outcome": "injected"}
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    said = said_before(adapter, position(adapter, is_response))
    assert "Made." in said and "Steered: after the build." in said
    assert not [m for m in adapter.incoming() if m.get("method") == "$/cancel_request"]
    users = [json.loads(line) for line in log.read_text().splitlines()]
    steered = [u for u in users if u["kind"] == "user" and u.get("priority")]
    assert [(u["content"][0]["text"], u["priority"]) for u in steered] == [("then lint", "later")]


@pytest.mark.asyncio
async def test_a_prompt_during_a_turn_goes_to_claude_at_once(tmp_path: Path) -> None:
    # Prompt queueing, as the reference: the second prompt is pushed to Claude while the first
    # runs; Claude takes it up when it is ready (its echo), and each is answered once, the
    # first before the second's words.
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with agent_in_process(tmp_path, "steered", env=env, scenarios=SCENARIOS) as adapter:
        session = await adapter.new_session()
        first = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await until_said(adapter, "Working on it.")
        second = asyncio.ensure_future(adapter.prompt(session, "use tabs"))
        await _until_logged(log, "use tabs")  # Claude has it while the first turn runs
        assert not first.done()
        answers = await asyncio.gather(first, second)
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["end_turn"] * 2
    assert set(adapter.answers().values()) == {1}
    responses = [i for i, m in enumerate(adapter.incoming()) if is_response(m)]
    assert "Done with the first." in said_before(adapter, responses[0])
    assert "Steered: using tabs." not in said_before(adapter, responses[0])
    assert "Steered: using tabs." in said_before(adapter, responses[1])


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_prompt_claude_takes_up_mid_turn_answers_the_turn_before_it_there(
    tmp_path: Path, capable: bool
) -> None:
    # The hand-off (docs/decisions.md#turns-that-wait): Claude Code takes the pushed prompt up
    # at a tool boundary of the running turn and echoes it; the first prompt is answered
    # `end_turn` right there, and the rest of Claude's work (the open tool's result, its words)
    # is the second prompt's turn, answered at the one result.
    async with agent_in_process(
        tmp_path, "taken_up_mid_turn", scenarios=SCENARIOS, capable=capable
    ) as adapter:
        session = await adapter.new_session()
        first = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await until_said(adapter, "Working on it.")
        second = asyncio.ensure_future(adapter.prompt(session, "use tabs"))
        answers = await asyncio.gather(first, second)
        third = await adapter.prompt(session, "thanks")
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["end_turn"] * 2
    assert isinstance(third, PromptResponse) and third.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1} and adapter.records() == []
    responses = [i for i, m in enumerate(adapter.incoming()) if is_response(m)]
    assert len(responses) == 3
    assert "Working on it." in said_before(adapter, responses[0])
    assert "Steered: using tabs." not in said_before(adapter, responses[0])
    assert "Steered: using tabs." in said_before(adapter, responses[1])
    # Claude Code writes the tool's result before it takes the prompt up: the card ends in the
    # first turn, which is then answered.
    ended = position(adapter, lambda m: _ends(m, "tb1"))
    assert ended < responses[0]
    # Taken up, the message was a turn of Claude's: the next prompt gets the next one.
    said_last = said_before(adapter, responses[2])[len(said_before(adapter, responses[1])) :]
    assert "Never played" not in said_last and "Scripted reply to: thanks" in said_last


@pytest.mark.asyncio
async def test_a_prompt_taken_up_in_claudes_own_work_is_answered_by_its_result(
    tmp_path: Path,
) -> None:
    # The reference's `answersPendingPrompt`: a result of Claude's own work (a task
    # notification's) that names the prompt its cycle took up answers that prompt; it is not
    # lost to the next idle as "a turn that ended without a result".
    async with agent_in_process(tmp_path, "folded_into_own_work", scenarios=SCENARIOS) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "build it")
        await until_said(adapter, "Following up on the audit.")
        second = await adapter.prompt(session, "and the tests?")
        third = await adapter.prompt(session, "thanks")
    answers = [first, second, third]
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["end_turn"] * 3
    assert set(adapter.answers().values()) == {1} and adapter.records() == []
    responses = [i for i, m in enumerate(adapter.incoming()) if is_response(m)]
    assert "here is your answer" in said_before(adapter, responses[1])
    # The tokens of that cycle are the prompt's turn's, not Claude's own work's.
    assert isinstance(second, PromptResponse) and second.usage is not None
    assert (second.usage.input_tokens, second.usage.output_tokens) == (3, 4)
    said_last = said_before(adapter, responses[2])[len(said_before(adapter, responses[1])) :]
    assert "Scripted reply to: thanks" in said_last


def _ends(message: dict[str, Any], tool_call_id: str) -> bool:
    update = message.get("params", {}).get("update", {})
    return bool(update.get("toolCallId") == tool_call_id and update.get("status") == "completed")


@pytest.mark.asyncio
async def test_a_cancel_answers_and_withdraws_a_prompt_claude_had_not_taken_up(
    tmp_path: Path,
) -> None:
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with agent_in_process(tmp_path, "steered", env=env, scenarios=SCENARIOS) as adapter:
        session = await adapter.new_session()
        first = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await until_said(adapter, "Working on it.")
        second = asyncio.ensure_future(adapter.prompt(session, "use tabs"))
        await _until_logged(log, "use tabs")
        await adapter.conn.cancel(session_id=session)
        answers = await asyncio.gather(first, second)
        after = await adapter.prompt(session, "hi")
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["cancelled"] * 2
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    # The withdrawn prompt never played: the scenario's second turn is what answered "hi".
    responses = [i for i, m in enumerate(adapter.incoming()) if is_response(m)]
    assert "Steered: using tabs." not in said_before(adapter, responses[1])
    assert "Steered: using tabs." in said_before(adapter, responses[2])
    records = [json.loads(line) for line in log.read_text().splitlines()]
    [pushed] = [r["uuid"] for r in records if r["kind"] == "user" and _text_of(r) == "use tabs"]
    withdrawn = [
        r["request"]
        for r in records
        if r["kind"] == "control" and r["request"].get("subtype") == "cancel_async_message"
    ]
    assert withdrawn == [{"subtype": "cancel_async_message", "message_uuid": pushed}]


def _text_of(record: dict[str, Any]) -> str:
    content = record.get("content")
    if isinstance(content, list) and content and isinstance(content[0], dict):
        return str(content[0].get("text", ""))
    return str(content)


async def _until_logged(log: Path, text: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        while not (log.exists() and text in log.read_text()):
            await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_steering_bad_input(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "odd_tasks", scenarios=SCENARIOS) as adapter:
        session = await adapter.new_session()
        text = [{"type": "text", "text": "x"}]
        for params in (
            {"sessionId": "nobody", "prompt": text},
            {"sessionId": session, "prompt": []},
            # Only blank text is as empty as no blocks: refused as `session/prompt` refuses it.
            {"sessionId": session, "prompt": [{"type": "text", "text": ""}]},
            {"sessionId": session, "prompt": [{"type": "text", "text": " \n\t"}]},
            {"sessionId": session, "prompt": text, "_meta": {"steering": {"idleBehavior": "x"}}},
        ):
            with pytest.raises(acp.RequestError) as caught:
                await send_steer(adapter, **params)
            assert caught.value.code == -32602
        # Nothing was lost: the session still answers.
        answer = await adapter.prompt(session, "hi")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_a_steer_joins_the_running_turn(tmp_path: Path) -> None:
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with agent_in_process(tmp_path, "steered", scenarios=SCENARIOS, env=env) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await until_said(adapter, "Working on it.")
        steer = {"sessionId": session, "prompt": [{"type": "text", "text": "use tabs"}]}
        outcome = await send_steer(adapter, **steer)
        answer = await prompt
        idle = await send_steer(
            adapter, **steer, _meta={"steering": {"idleBehavior": "promptRequired"}}
        )
        # Without the opt-in, a steer with no turn running is a turn of its own: its words
        # stream, and nothing is answered twice.
        started = await send_steer(adapter, **steer)
        await until_said(adapter, "Scripted reply to: use tabs")
        after = await adapter.prompt(session, "and now?")
    assert started == {"outcome": "startedNewTurn"}
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert outcome == {"outcome": "injected"}
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    # Answered once, after the steered message's answer.
    assert "Steered: using tabs." in said_before(adapter, position(adapter, is_response))
    assert idle == {"outcome": "promptRequired", "reason": "noRunningTurn"}
    users = [json.loads(line) for line in log.read_text().splitlines()]
    steered = [u for u in users if u["kind"] == "user" and u.get("priority")]
    assert [(u["content"][0]["text"], u["priority"]) for u in steered] == [("use tabs", "now")]
