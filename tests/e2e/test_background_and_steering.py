"""Work Claude does in the background, and steering, end to end through real stdio with a real
ACP client and the scripted Claude:

- a turn whose subagent went to the background (`system/task_started` of an Agent call) keeps
  its `session/prompt` open past its own result, so the follow-up Claude writes when the
  subagent ends (`task_notification`, then an autonomous result), and a question it asks, land
  inside the turn; the prompt is answered once, after them;
- cancelled while the subagent runs, the prompt is answered `cancelled`, once; closed, it is
  answered once and no question stays open;
- `_session/steering` during a turn is sent to Claude at once with priority `now` and the turn
  is answered once, when Claude is idle after the steered message; with no turn running it is
  `promptRequired` for a client that asked, else a turn of its own;
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
    Adapter,
    AdapterPool,
    RecordingClient,
    script_launcher,
    until,
)
from tests.support.raw_agent import processes_mentioning

PERMISSION = "session/request_permission"

_SCRIPTS = """
import os, sys
from adapter.scripted_claude import runtime
from adapter.scripted_claude.scenarios import SCENARIOS
from adapter.scripted_claude.steps import *

def system(subtype, **fields):
    return RawFrame(frame={"type": "system", "subtype": subtype, "session_id": "x",
                           "uuid": "u-" + subtype + str(len(fields)), **fields})

agent = ToolUse(name="Agent", id="ag1", result="Async agent launched successfully.",
                input={"description": "Audit the code", "prompt": "Audit",
                       "run_in_background": True})
started = system("task_started", task_id="a1", tool_use_id="ag1", description="Audit the code",
                 subagent_type="general-purpose", task_type="local_agent")
# The bundled CLI's start of a subagent that runs in the background.
started_bg = system("task_started", task_id="a1", tool_use_id="ag1", description="Audit the code",
                    subagent_type="general-purpose", task_type="local_agent",
                    is_backgrounded=True)
ended = system("task_updated", task_id="a1", patch={"status": "completed"})
finished = system("task_notification", task_id="a1", tool_use_id="ag1", status="completed",
                  output_file="/tmp/a1.out", summary="Audit done")
followed_up = RawFrame(frame={
    "type": "result", "subtype": "success", "is_error": False, "session_id": "x",
    "duration_ms": 5, "duration_api_ms": 5, "num_turns": 1, "result": "", "stop_reason": "end_turn",
    "total_cost_usd": 0.0, "origin": {"kind": "task-notification"},
    "usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 0,
              "cache_creation_input_tokens": 0}, "modelUsage": {}})
mine = [
    Scenario(name="background", description="", turns=((
        agent, started, Text(text="The audit runs in the background."), Result(),
        Sleep(seconds=0.3), finished,
        Permission(tool_name="Bash", input={"command": "git diff"}, result="diff"),
        Text(text="The audit found two issues."), followed_up),)),
    # The bundled CLI with a quick subagent: it ends before the turn's own result, and the
    # follow-up it woke Claude for comes right after that result.
    Scenario(name="background_early", description="", turns=((
        agent, started_bg, Text(text="The audit runs in the background."), ended, finished,
        Result(), Text(text="The audit found two issues."), followed_up),)),
    Scenario(name="background_early_quiet", description="", turns=((
        agent, started_bg, Text(text="The audit runs in the background."), ended, finished,
        Result()),)),
    Scenario(name="background_plan", description="", turns=((
        agent, started, Text(text="The audit runs in the background."), Result(),
        Sleep(seconds=0.3), finished,
        Permission(tool_name="ExitPlanMode", input={"plan": "1. Fix the parser"}, result="ok"),
        Text(text="The audit found two issues."), followed_up),)),
    # The subagent asks the user while the turn is held; the user never answers.
    Scenario(name="background_asks", description="", turns=((
        agent, started, Text(text="The audit runs in the background."), Result(),
        Permission(tool_name="Bash", input={"command": "git push"}, result="pushed"),
        Text(text="Pushed."), finished, followed_up),)),
    # After the turn was answered (AIR's opt-out), Claude's own follow-up opens a card its
    # result leaves open.
    Scenario(name="background_open_card", description="", turns=((
        agent, started, Text(text="The audit runs in the background."), Result(), finished,
        ToolUse(name="Read", id="rd1", input={"file_path": "/tmp/audit.txt"}, result=None),
        Text(text="The audit found two issues."), followed_up),)),
    # The subagent's own call is open when the turn's answer comes (AIR's opt-out); its
    # result comes after.
    Scenario(name="background_call_open", description="", turns=((
        agent, started_bg,
        ToolUse(name="Read", id="sr1", input={"file_path": "/tmp/parser.py"}, parent="ag1",
                result=None),
        Text(text="The audit runs in the background."), Result(),
        ToolResult(id="sr1", result="def parse(): ..."), ended, finished,
        Text(text="The audit found two issues."), followed_up),)),
    Scenario(name="background_hang", description="", turns=((
        agent, started, Text(text="The audit runs in the background."), Result(), Hang()),)),
    Scenario(name="background_level", description="", turns=((
        agent, started, Text(text="The audit runs in the background."), Result(),
        system("background_tasks_changed", tasks=[])),)),
    Scenario(name="odd_tasks", description="", turns=((
        system("task_notification", task_id="nobody", status="completed",
               output_file="/tmp/x", summary="?"),
        RawFrame(frame={"type": "system", "subtype": "task_started", "session_id": "x",
                        "uuid": "u-bad", "description": "no id"}),
        RawFrame(frame={"type": "system", "subtype": "task_updated", "session_id": "x",
                        "uuid": "u-bad2", "patch": {"status": "completed"}}),
        Reply(), Result()),)),
    Scenario(name="background_bash", description="", turns=(
        (ToolUse(name="Bash", id="bg1", input={"command": "npm run dev",
                                                "run_in_background": True},
                 result="Command running in background with ID: b1",
                 tool_use_result={"backgroundTaskId": "b1"}),
         Reply(), Result()),
        (system("task_notification", task_id="b1", status="completed",
                output_file="/tmp/b1.out", summary="dev server exited"), Reply(), Result()),
    )),
    # Claude Code takes a prompt pushed mid-turn up at the next tool boundary: here the tool
    # runs until the prompt is there, then its result, the echo, and the rest of the work.
    Scenario(name="taken_up_mid_turn", description="", turns=(
        (Text(text="Working on it."),
         ToolUse(name="Bash", id="tb1", input={"command": "make"}, result=None),
         Sleep(seconds=60.0, until_queued=True), ToolResult(id="tb1", result="built"),
         Text(text="Steered: using tabs."), Result()),
        (Text(text="Never played: taken up mid-turn."), Result()),
    )),
    # Claude follows up on its own between turns and takes the user's next prompt up in that
    # cycle, whose result (a task notification's) names it.
    Scenario(name="folded_into_own_work", description="", turns=(
        (Text(text="Done."), Result(), Text(text="Following up on the audit."),
         ToolUse(name="Bash", id="fb1", input={"command": "make check"}, result=None),
         Sleep(seconds=60.0, until_queued=True), ToolResult(id="fb1", result="ok"),
         Text(text="The check passes, and here is your answer."), followed_up),
        (Text(text="Never played: taken up in Claude's own work."), Result()),
    )),
    # Claude asks the user; a steer comes while the question is open.
    Scenario(name="asks_then_steered", description="", turns=(
        (Permission(tool_name="Bash", input={"command": "make"}, result="built"),
         Text(text="Made."), Result()),
        (Text(text="Steered: after the build."), Result()),
    )),
    Scenario(name="steered", description="", turns=(
        (Text(text="Working on it."), Sleep(seconds=3.0), Text(text="Done with the first."),
         Result()),
        (Text(text="Steered: using tabs."), Result()),
    )),
]
runtime.SCENARIOS = {**SCENARIOS, **{s.name: s for s in mine}}
code = runtime.main(sys.argv[1:], os.environ)
sys.stderr.flush()
os._exit(code)
"""


def _launcher(directory: Path) -> Path:
    return script_launcher(directory, "background", _SCRIPTS)


def _env(adapters: AdapterPool) -> dict[str, str]:
    return {"CLAUDE_CODE_EXECUTABLE": str(adapters.launcher("background", _launcher))}


def _position(adapter: Adapter, predicate: Any) -> int:
    return next(i for i, m in enumerate(adapter.incoming()) if predicate(m))


def _said_before(adapter: Adapter, end: int) -> str:
    """The agent's words in the frames before `end` (streamed deltas joined)."""
    words = []
    for message in adapter.incoming()[:end]:
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "agent_message_chunk":
            words.append(str(update.get("content", {}).get("text", "")))
    return "".join(words)


def _is_response(message: dict[str, Any]) -> bool:
    return (
        "result" in message
        and isinstance(message["result"], dict)
        and ("stopReason" in message["result"])
    )


async def _steer(adapter: Adapter, **params: Any) -> Any:
    return await asyncio.wait_for(
        adapter.conn._conn.send_request("_session/steering", params), TIMEOUT
    )


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_turn_waits_for_its_background_subagent(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    async with adapters.session_adapter(
        tmp_path, "background", env=_env(adapters), capable=capable
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        after = await adapter.prompt(session, "next")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    # The follow-up and the subagent's question came inside the turn, before its answer.
    answered = _position(adapter, _is_response)
    assert "The audit found two issues." in _said_before(adapter, answered)
    asked = _position(adapter, lambda m: m.get("method") == "session/request_permission")
    assert asked < answered
    assert adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_subagent_that_ends_before_the_result_still_has_its_follow_up_in_the_turn(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    # docs/decisions.md#turns-that-wait: the follow-up Claude Code runs right after the turn's
    # result, for a background subagent that had already ended, is inside the turn; with no
    # follow-up, the idle after the result answers it.
    async with adapters.session_adapter(
        tmp_path, "background_early", env=_env(adapters), capable=capable
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        answered = _position(adapter, _is_response)
    async with adapters.session_adapter(
        tmp_path, "background_early_quiet", env=_env(adapters), capable=capable
    ) as quiet:
        alone = await quiet.new_session()
        unanswered = await quiet.prompt(alone, "audit")
        after = await quiet.prompt(alone, "next")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert "The audit found two issues." in _said_before(adapter, answered)
    assert set(adapter.answers().values()) == {1} and adapter.records() == []
    assert isinstance(unanswered, PromptResponse) and unanswered.stop_reason == "end_turn"
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(quiet.answers().values()) == {1} and quiet.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_an_air_client_with_background_subagents_is_answered_at_the_result(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # JetBrains AIR's opt-out, as the reference: the turn ends at its result; the subagent's
    # follow-up and its question come after the answer, and reach the client all the same.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with adapters.session_adapter(
        tmp_path, "background", env=_env(adapters), client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        answered = _position(adapter, _is_response)
        await _until_said(adapter, "The audit found two issues.")
        after = await adapter.prompt(session, "next")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    assert "The audit runs in the background." in _said_before(adapter, answered)
    assert "The audit found two issues." not in _said_before(adapter, answered)
    asked = _position(adapter, lambda m: m.get("method") == "session/request_permission")
    assert asked > answered
    assert [r.title for r in adapter.client.permission_requests] == ["git diff"]
    assert adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_work_claude_does_between_turns_ends_its_cards_at_its_result(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # Work no prompt waits for has a visible home: its words and its card reach the client,
    # and the card reaches a final status at that work's own result, with no next prompt.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with adapters.session_adapter(
        tmp_path, "background_open_card", env=_env(adapters), client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        answered = _position(adapter, _is_response)
        await until(
            lambda: any(_final(m, "rd1") for m in adapter.incoming()), "the card's final status"
        )
        await _until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    opened = _position(adapter, lambda m: _update(m).get("toolCallId") == "rd1")
    assert answered < opened < _position(adapter, lambda m: _final(m, "rd1"))
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_a_subagents_call_open_at_the_answer_is_not_failed(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # AIR's `backgroundSubagents`: the turn is answered while its subagent's call runs; that
    # card stays open past the answer and completes with its result, never failed.
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["backgroundSubagents"]}}}
    async with adapters.session_adapter(
        tmp_path, "background_call_open", env=_env(adapters), client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        await _until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    answered = _position(adapter, _is_response)
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


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("opted_out", [True, False], ids=["background_subagents", "held"])
async def test_a_plan_exit_between_turns_offers_no_fresh_context(
    adapters: AdapterPool, tmp_path: Path, opted_out: bool
) -> None:
    # Clearing the context goes on with the turn in a fresh one: asked after the answer (the
    # AIR opt-out), there is no turn to go on with, so the choice is not offered.
    names = ["backgroundSubagents"] if opted_out else []
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": names}}}
    async with adapters.session_adapter(
        tmp_path,
        "background_plan",
        env=_env(adapters),
        client_meta=meta,
        client=RecordingClient(permission="exit-plan-default"),
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
        await _until_said(adapter, "The audit found two issues.")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [asked] = [m["params"] for m in adapter.incoming() if m.get("method") == PERMISSION]
    offered = [o["optionId"] for o in asked["options"]]
    assert "exit-plan-default" in offered
    clearing = [o for o in offered if o.startswith("exit-plan-clear-")]
    assert len(clearing) == (0 if opted_out else 1)


@pytest.mark.asyncio(loop_scope="module")
async def test_cancelled_while_the_subagent_runs(adapters: AdapterPool, tmp_path: Path) -> None:
    async with adapters.session_adapter(tmp_path, "background_hang", env=_env(adapters)) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "audit"))
        await _until_said(adapter, "The audit runs in the background.")
        await asyncio.sleep(0.3)
        assert not prompt.done()  # held open for the subagent
        await adapter.conn.cancel(session_id=session)
        answer = await prompt
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_closed_while_the_subagent_runs(adapters: AdapterPool, tmp_path: Path) -> None:
    async with adapters.session_adapter(tmp_path, "background_hang", env=_env(adapters)) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "audit"))
        await _until_said(adapter, "The audit runs in the background.")
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        answer = await prompt
    # Answered once, however the close and the subagent's end meet: cancelled or an error.
    closed = isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert closed or isinstance(answer, acp.RequestError)
    assert set(adapter.answers().values()) == {1}
    assert not [m for m in adapter.incoming() if m.get("method") == "session/request_permission"]
    # No Claude process of the session is left.
    await until(lambda: not processes_mentioning(session), "the closed session's Claude to end")


@dataclass(slots=True)
class _NeverAnswers(RecordingClient):
    """A user who leaves the permission question open."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.asked.set()
        await asyncio.Event().wait()  # until the agent withdraws it and the SDK cancels this
        raise AssertionError("unreachable")


@pytest.mark.asyncio(loop_scope="module")
async def test_closed_while_the_held_turns_subagent_asks(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # The question the subagent asks inside the held turn is withdrawn when the session
    # closes: no question is left open, the prompt is answered once, no Claude is left.
    client = _NeverAnswers()
    async with adapters.session_adapter(
        tmp_path, "background_asks", env=_env(adapters), client=client
    ) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "audit"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        answer = await prompt
        await until(lambda: not processes_mentioning(session), "the closed session's Claude to end")
    closed = isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert closed or isinstance(answer, acp.RequestError)
    assert set(adapter.answers().values()) == {1}
    [asked] = [m for m in adapter.incoming() if m.get("method") == PERMISSION]
    withdrawn = [m for m in adapter.incoming() if m.get("method") == "$/cancel_request"]
    assert [m["params"]["requestId"] for m in withdrawn] == [asked["id"]]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_background_commands_terminal_ends_when_the_command_ends(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    meta = {**OPT_IN, "terminal_output": True}
    async with adapters.session_adapter(
        tmp_path, "background_bash", env=_env(adapters), client_meta=meta
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


@pytest.mark.asyncio(loop_scope="module")
async def test_a_subagent_whose_end_was_never_said_holds_nothing(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # `background_tasks_changed` lists no task: the subagent ended though no notification said
    # so, and the turn is answered at the idle after it, not held for ever.
    async with adapters.session_adapter(
        tmp_path, "background_level", env=_env(adapters)
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "audit")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_odd_task_frames_change_nothing(adapters: AdapterPool, tmp_path: Path) -> None:
    async with adapters.session_adapter(tmp_path, "odd_tasks", env=_env(adapters)) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hi")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert len(adapter.agent_texts()) == 1 and adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_a_steer_joins_the_running_turn(adapters: AdapterPool, tmp_path: Path) -> None:
    log = tmp_path / "claude.log"
    env = {**_env(adapters), "CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with adapters.session_adapter(tmp_path, "steered", env=env) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await _until_said(adapter, "Working on it.")
        steer = {"sessionId": session, "prompt": [{"type": "text", "text": "use tabs"}]}
        outcome = await _steer(adapter, **steer)
        answer = await prompt
        idle = await _steer(
            adapter, **steer, _meta={"steering": {"idleBehavior": "promptRequired"}}
        )
        # Without the opt-in, a steer with no turn running is a turn of its own: its words
        # stream, and nothing is answered twice.
        started = await _steer(adapter, **steer)
        await _until_said(adapter, "Scripted reply to: use tabs")
        after = await adapter.prompt(session, "and now?")
    assert started == {"outcome": "startedNewTurn"}
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert outcome == {"outcome": "injected"}
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    # Answered once, after the steered message's answer.
    assert "Steered: using tabs." in _said_before(adapter, _position(adapter, _is_response))
    assert idle == {"outcome": "promptRequired", "reason": "noRunningTurn"}
    users = [json.loads(line) for line in log.read_text().splitlines()]
    steered = [u for u in users if u["kind"] == "user" and u.get("priority")]
    assert [(u["content"][0]["text"], u["priority"]) for u in steered] == [("use tabs", "now")]


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


@pytest.mark.asyncio(loop_scope="module")
async def test_a_steer_while_a_question_is_open_waits_for_it(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # Priority `later` while the user is asked (docs/decisions.md#turns-that-wait): the
    # question stays open and is answered, and the steered message runs after it, inside the
    # turn, which is answered once.
    log = tmp_path / "claude.log"
    env = {**_env(adapters), "CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    client = _AnswersWhenTold()
    async with adapters.session_adapter(
        tmp_path, "asks_then_steered", env=env, client=client
    ) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "build it"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        steer = {"sessionId": session, "prompt": [{"type": "text", "text": "then lint"}]}
        outcome = await _steer(adapter, **steer)
        await _until_logged(log, "then lint")
        client.release.set()
        answer = await prompt
    assert outcome == {"outcome": "injected"}
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    said = _said_before(adapter, _position(adapter, _is_response))
    assert "Made." in said and "Steered: after the build." in said
    assert not [m for m in adapter.incoming() if m.get("method") == "$/cancel_request"]
    users = [json.loads(line) for line in log.read_text().splitlines()]
    steered = [u for u in users if u["kind"] == "user" and u.get("priority")]
    assert [(u["content"][0]["text"], u["priority"]) for u in steered] == [("then lint", "later")]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_prompt_during_a_turn_goes_to_claude_at_once(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # Prompt queueing, as the reference: the second prompt is pushed to Claude while the first
    # runs; Claude takes it up when it is ready (its echo), and each is answered once, the
    # first before the second's words.
    log = tmp_path / "claude.log"
    env = {**_env(adapters), "CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with adapters.session_adapter(tmp_path, "steered", env=env) as adapter:
        session = await adapter.new_session()
        first = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await _until_said(adapter, "Working on it.")
        second = asyncio.ensure_future(adapter.prompt(session, "use tabs"))
        await _until_logged(log, "use tabs")  # Claude has it while the first turn runs
        assert not first.done()
        answers = await asyncio.gather(first, second)
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["end_turn"] * 2
    assert set(adapter.answers().values()) == {1}
    responses = [i for i, m in enumerate(adapter.incoming()) if _is_response(m)]
    assert "Done with the first." in _said_before(adapter, responses[0])
    assert "Steered: using tabs." not in _said_before(adapter, responses[0])
    assert "Steered: using tabs." in _said_before(adapter, responses[1])


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_prompt_claude_takes_up_mid_turn_answers_the_turn_before_it_there(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    # The hand-off (docs/decisions.md#turns-that-wait): Claude Code takes the pushed prompt up
    # at a tool boundary of the running turn and echoes it; the first prompt is answered
    # `end_turn` right there, and the rest of Claude's work (the open tool's result, its words)
    # is the second prompt's turn, answered at the one result.
    async with adapters.session_adapter(
        tmp_path, "taken_up_mid_turn", env=_env(adapters), capable=capable
    ) as adapter:
        session = await adapter.new_session()
        first = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await _until_said(adapter, "Working on it.")
        second = asyncio.ensure_future(adapter.prompt(session, "use tabs"))
        answers = await asyncio.gather(first, second)
        third = await adapter.prompt(session, "thanks")
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["end_turn"] * 2
    assert isinstance(third, PromptResponse) and third.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1} and adapter.records() == []
    responses = [i for i, m in enumerate(adapter.incoming()) if _is_response(m)]
    assert len(responses) == 3
    assert "Working on it." in _said_before(adapter, responses[0])
    assert "Steered: using tabs." not in _said_before(adapter, responses[0])
    assert "Steered: using tabs." in _said_before(adapter, responses[1])
    # Claude Code writes the tool's result before it takes the prompt up: the card ends in the
    # first turn, which is then answered.
    ended = _position(adapter, lambda m: _ends(m, "tb1"))
    assert ended < responses[0]
    # Taken up, the message was a turn of Claude's: the next prompt gets the next one.
    said_last = _said_before(adapter, responses[2])[len(_said_before(adapter, responses[1])) :]
    assert "Never played" not in said_last and "Scripted reply to: thanks" in said_last


@pytest.mark.asyncio(loop_scope="module")
async def test_a_prompt_taken_up_in_claudes_own_work_is_answered_by_its_result(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # The reference's `answersPendingPrompt`: a result of Claude's own work (a task
    # notification's) that names the prompt its cycle took up answers that prompt; it is not
    # lost to the next idle as "a turn that ended without a result".
    async with adapters.session_adapter(
        tmp_path, "folded_into_own_work", env=_env(adapters)
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "build it")
        await _until_said(adapter, "Following up on the audit.")
        second = await adapter.prompt(session, "and the tests?")
        third = await adapter.prompt(session, "thanks")
    answers = [first, second, third]
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["end_turn"] * 3
    assert set(adapter.answers().values()) == {1} and adapter.records() == []
    responses = [i for i, m in enumerate(adapter.incoming()) if _is_response(m)]
    assert "here is your answer" in _said_before(adapter, responses[1])
    # The tokens of that cycle are the prompt's turn's, not Claude's own work's.
    assert isinstance(second, PromptResponse) and second.usage is not None
    assert (second.usage.input_tokens, second.usage.output_tokens) == (3, 4)
    said_last = _said_before(adapter, responses[2])[len(_said_before(adapter, responses[1])) :]
    assert "Scripted reply to: thanks" in said_last


def _ends(message: dict[str, Any], tool_call_id: str) -> bool:
    update = message.get("params", {}).get("update", {})
    return bool(update.get("toolCallId") == tool_call_id and update.get("status") == "completed")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_cancel_answers_and_withdraws_a_prompt_claude_had_not_taken_up(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    log = tmp_path / "claude.log"
    env = {**_env(adapters), "CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with adapters.session_adapter(tmp_path, "steered", env=env) as adapter:
        session = await adapter.new_session()
        first = asyncio.ensure_future(adapter.prompt(session, "format the file"))
        await _until_said(adapter, "Working on it.")
        second = asyncio.ensure_future(adapter.prompt(session, "use tabs"))
        await _until_logged(log, "use tabs")
        await adapter.conn.cancel(session_id=session)
        answers = await asyncio.gather(first, second)
        after = await adapter.prompt(session, "hi")
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == ["cancelled"] * 2
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert set(adapter.answers().values()) == {1}
    # The withdrawn prompt never played: the scenario's second turn is what answered "hi".
    responses = [i for i, m in enumerate(adapter.incoming()) if _is_response(m)]
    assert "Steered: using tabs." not in _said_before(adapter, responses[1])
    assert "Steered: using tabs." in _said_before(adapter, responses[2])
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


@pytest.mark.asyncio(loop_scope="module")
async def test_steering_bad_input(adapters: AdapterPool, tmp_path: Path) -> None:
    async with adapters.session_adapter(tmp_path, "odd_tasks", env=_env(adapters)) as adapter:
        session = await adapter.new_session()
        text = [{"type": "text", "text": "x"}]
        for params in (
            {"sessionId": "nobody", "prompt": text},
            {"sessionId": session, "prompt": []},
            # Only blank text is as empty as no blocks: refused as `session/prompt` refuses it.
            {"sessionId": session, "prompt": [{"type": "text", "text": " \n\t"}]},
            {"sessionId": session, "prompt": text, "_meta": {"steering": {"idleBehavior": "x"}}},
        ):
            with pytest.raises(acp.RequestError) as caught:
                await _steer(adapter, **params)
            assert caught.value.code == -32602
        # Nothing was lost: the session still answers.
        answer = await adapter.prompt(session, "hi")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


async def _until_said(adapter: Adapter, text: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        while text not in _said_before(adapter, len(adapter.incoming())):
            await asyncio.sleep(0.02)
