"""Plays one turn script: each step becomes frames on stdout, transcript entries, or an act on
the fake's own process (exit, SIGKILL, closing stdout).

Theory of operation: `play_turn` opens a turn the way the real CLI does (`session_state_changed
running` when session-state frames are wanted, then `system/init`), plays the steps in order,
and closes it (`idle`). At each tool boundary of the main thread (a tool's result written) it
takes up a user message that came meanwhile, as the real CLI does with one that has no
`priority`: echoed (`--replay-user-messages`), and the rest of the script is Claude's work
for it too. It says what became of each user message that has a uuid as the bundled CLI does
(`command_lifecycle`): `queued` as it comes (or, between turns, as its turn begins), `started`
before anything its turn does (after its echo when taken up mid-turn), and its end at the
turn's result (`messages.TurnWriter._result`). Before every step, and inside every wait, it
checks the inbox for an
interrupt; an interrupted turn ends at once with an `error_during_execution` result, and only
then are the interrupt requests answered. Process-ending steps never return.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapter.scripted_claude import frames, limits
from adapter.scripted_claude.file_edits import apply_edit
from adapter.scripted_claude.hook_player import fire_hook
from adapter.scripted_claude.hook_steps import FireHook
from adapter.scripted_claude.mcp_elicit import completion_frame, elicit
from adapter.scripted_claude.messages import TurnTally, TurnWriter
from adapter.scripted_claude.permission_ask import ask
from adapter.scripted_claude.question_ask import ASK_TOOL, ask_question
from adapter.scripted_claude.session import PROCESS_STEPS, SessionState, die, play_process_step
from adapter.scripted_claude.steps import (
    SYNTHETIC_MODEL,
    AssistantError,
    BrokenStream,
    DieAtPrompt,
    LimitMessage,
    McpElicitation,
    Permission,
    Question,
    RateLimitEvent,
    RawFrame,
    Refusal,
    Rename,
    Reply,
    Result,
    Step,
    Synthetic,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    TurnScript,
    UsageLimitGate,
)
from adapter.scripted_claude.system_frames import system_frame
from adapter.scripted_claude.wire import Inbox, UserTurn

__all__ = ["INTERRUPTED_TEXT", "play_turn"]

INTERRUPTED_TEXT = "Request interrupted by user"
# What Claude Code 2.1 writes as the error of a cycle a denial with `interrupt` stopped.
DENIAL_DIAGNOSTIC = "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"


def _prompt_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


class _Player(TurnWriter):
    """Plays the steps of one turn (the frames themselves: `messages.py`)."""

    stopped_by_denial = False  # a denial with `interrupt` ended the turn
    taken_up = 0  # user messages taken up mid-turn (each one is a turn of the scenario)

    def take_up_queued(self, step: Step) -> None:
        """After a tool boundary of the main thread, take up the user message that waits, as
        the real CLI attaches a queued prompt there: in the transcript, echoed, and what the
        turn says next answers it."""
        if not _is_tool_boundary(step):
            return
        user = self.inbox.take_queued()
        if user is None:
            return
        uuid = user.uuid or frames.new_uuid()
        self.s.transcript.append_prompt(uuid, user.content, self.s.permission_mode)
        self.s.prompt_uuid = uuid
        _echo(self.s, user, uuid)
        if user.uuid is not None:
            # Taken into the running turn: started after its echo; its end comes before the
            # turn's result (`TurnTally.folded`).
            if self.inbox.queued_unsaid(user.uuid):
                self.lifecycle(user.uuid, "queued")
            self.lifecycle(user.uuid, "started")
            self.t.folded.append(user.uuid)
        self.t.user = user
        self.t.cycle.append(uuid)
        self.t.took_up = True
        self.taken_up += 1

    # -- steps -------------------------------------------------------------------------------

    def play(self, step: Step) -> bool:
        """Play one step; False if the turn was interrupted during it."""
        if isinstance(step, RateLimitEvent):
            self.s.emit(limits.rate_limit_frame(step, self.s))  # windows keep their resets
            return True
        if isinstance(step, LimitMessage | UsageLimitGate):
            return all(self.play(sub) for sub in limits.expand(step, self.s))
        frame = system_frame(step, self.s.session_id)
        if frame is not None and frame.get("type") == "result":
            frame = self.t.named(frame)  # a result Claude Code wrote of its own cycle
        if frame is not None:
            self.s.emit(frame)
            for entry in step.kept if isinstance(step, RawFrame) else ():
                self.s.transcript.append_entry(entry)
            if frame.get("subtype") == "task_started":
                # A subagent's messages go to a transcript of its own, as Claude Code's do.
                self.s.transcript.start_agent(frame)
            return True
        if isinstance(step, FireHook):
            return fire_hook(step, self.s, self.inbox)
        if isinstance(step, PROCESS_STEPS):
            return play_process_step(step, self.s, self.inbox)
        return self._say(step)

    def _say(self, step: Step) -> bool:
        """A step that is (part of) the turn's conversation."""
        s = self.s
        match step:
            case Text(text=text, model=model, repeat=repeat):
                return self._text(
                    text * repeat, model, parent=step.parent, deltas=step.deltas, pace=step.pace
                )
            case Rename():
                said = _prompt_text(self.t.user.content)
                words = said.split(None, 1)
                if len(words) == 2 and words[0] in ("/rename", "/name") and words[1].strip():
                    s.transcript.append_title(words[1].strip()[:200])
            case Reply(model=model):
                self._text(f"Scripted reply to: {_prompt_text(self.t.user.content)}", model)
            case Thinking(thinking=thinking, signature=signature):
                block = {"type": "thinking", "thinking": thinking, "signature": signature}
                return self._assistant([block], model=None, stop_reason=None, pace=step.pace)
            case ToolUse(name=name, is_error=is_error):
                pieces = _at(step.pieces, s.cwd) if step.pieces is not None else None
                ident = self._tool_use(
                    name, _at(step.input, s.cwd), step.id, step.parent, pieces, step.unfinished
                )
                if name == "EnterPlanMode" and not is_error:
                    s.permission_mode = "plan"  # Claude switches its own mode
                if step.result is not None and not step.unfinished:
                    result, extra = _at(step.result, s.cwd), _at(step.tool_use_result, s.cwd)
                    if isinstance(result, str):
                        result *= step.repeat
                    self._tool_result(ident, result, is_error, extra, step.parent)
            case ToolResult(id=ident, result=result, is_error=is_error):
                self._tool_result(ident, _at(result, s.cwd), is_error)
            case BrokenStream(text=text, deltas=deltas):
                if s.partial_messages:
                    self._streamer().broken(s.model, text, deltas)
            case Permission():
                return self._permission(step)
            case Question():
                return self._question(step)
            case McpElicitation():
                return self._mcp_elicitation(step)
            case AssistantError() | Synthetic() | Refusal():
                self._canned(step)
            case Result():
                self._result(step)
        return True

    def _canned(self, step: AssistantError | Synthetic | Refusal) -> None:
        """A message Claude Code writes itself (an API error, a notice) or a refusal."""
        match step:
            case AssistantError(error=error, text=text, api_error_status=status):
                content = [{"type": "text", "text": text}]
                self._assistant(
                    content,
                    model=SYNTHETIC_MODEL,
                    stop_reason="stop_sequence",
                    error=error,
                    api_error_status=status,
                )
            case Synthetic(text=text):
                content = [{"type": "text", "text": text}]
                self._assistant(content, model=SYNTHETIC_MODEL, stop_reason="stop_sequence")
            case Refusal(explanation=explanation, category=category, model=model):
                details = {"type": "refusal", "category": category, "explanation": explanation}
                self._assistant(
                    [{"type": "text", "text": explanation}],
                    model=model,
                    stop_reason="refusal",
                    stop_details=details,
                )

    def _question(self, step: Question) -> bool:
        if ASK_TOOL in self.s.disallowed_tools:
            self._text(step.fallback)  # no tool to ask with: Claude asks in its reply
            return True
        tool_input = dict(step.input)
        ident = self._tool_use(ASK_TOOL, tool_input)
        outcome = ask_question(self.s, self.inbox, tool_input, ident)
        if outcome is None:
            return False
        result, is_error, said = outcome
        self._tool_result(ident, result, is_error=is_error)
        self._text(said)
        return True

    def _mcp_elicitation(self, step: McpElicitation) -> bool:
        ident = self._tool_use(f"mcp__{step.server}__{step.tool}", {})
        heard = elicit(self.s, self.inbox, step)
        if heard is None:
            return False
        confirmed = heard["action"] == "accept" or step.confirms_anyway
        completion = completion_frame(self.s, step) if confirmed else None
        if completion is not None:
            self.s.emit(completion)  # the user finished on the page before the tool returns
        said = f"The {step.server} server heard: {heard['action']}"
        if heard.get("content") is not None:
            said += f" {json.dumps(heard['content'], sort_keys=True)}"
        self._tool_result(ident, said, is_error=heard["action"] != "accept")
        self._text(said + ".")
        return True

    def _permission(self, step: Permission) -> bool:
        tool_input = dict(_at(step.input, self.s.cwd))
        ident = self._tool_use(step.tool_name, tool_input, parent=step.parent)
        allowed, message, interrupt = ask(
            self.s, self.inbox, step.tool_name, tool_input, ident, step.suggestions, step.hints
        )
        if allowed is None:
            return False
        if allowed:
            output = step.result or f"({step.tool_name} completed with no output)"
            done = apply_edit(step.tool_name, tool_input) if step.applies else None
            if done is not None and self.s.checkpointing and self.s.prompt_uuid is not None:
                changed = self.s.checkpoints.setdefault(self.s.prompt_uuid, [])
                changed.append(str(done["filePath"]))
            self._tool_result(ident, output, False, done, step.parent)
            self._text(f"{step.tool_name} was allowed.", parent=step.parent)
            return True
        self.t.denials.append(
            {"tool_name": step.tool_name, "tool_use_id": ident, "tool_input": tool_input}
        )
        self._tool_result(ident, message, is_error=True)
        if interrupt:
            self.stopped_by_denial = True
            return False
        denied = f"{step.tool_name} was denied"
        self._text(f"{denied}: {message}" if message else f"{denied}.")
        return True

    def interrupted(self) -> None:
        """End the turn the way an interrupt does: marker in the transcript, error result. A
        denial with `interrupt` ends it as Claude Code 2.1 does: an error result whose only
        error is its internal diagnostic (the last message the user's, stopped at a tool)."""
        if self.stopped_by_denial:
            self._result(
                Result(
                    subtype="error_during_execution",
                    is_error=True,
                    errors=(DENIAL_DIAGNOSTIC,),
                    terminal_reason="completed",
                    stop_reason="tool_use",
                )
            )
            return
        self.s.transcript.append_interrupt_marker(frames.new_uuid())
        self._result(
            Result(
                subtype="error_during_execution",
                is_error=True,
                errors=(INTERRUPTED_TEXT,),
                terminal_reason="aborted_streaming",
                stop_reason=None,
            )
        )


def _is_tool_boundary(step: Step) -> bool:
    """The step ended with a tool's result in the main thread (not a subagent's)."""
    if isinstance(step, ToolUse):
        return step.result is not None and not step.unfinished and step.parent is None
    return isinstance(step, ToolResult | Permission | Question | McpElicitation)


def _echo(state: SessionState, user: UserTurn, uuid: str) -> None:
    """Claude Code's echo of a user message it took up (`--replay-user-messages`)."""
    if state.replay_user_messages:
        echo = dict(user.raw)
        echo.update(session_id=state.session_id, uuid=uuid, isReplay=True)
        state.emit(echo)


def _at(value: Any, cwd: str) -> Any:
    """`value` (JSON-like) with every `{cwd}` in its strings replaced by the session folder."""
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, Mapping):
        return {key: _at(item, cwd) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_at(item, cwd) for item in value]
    return value


def play_turn(state: SessionState, inbox: Inbox, user: UserTurn, script: TurnScript) -> int:
    """Play `script` for `user`, answering interrupts that arrived meanwhile once it ended;
    return how many user messages it took up (`user` and those taken up mid-turn)."""
    prompt_uuid = user.uuid or frames.new_uuid()
    state.transcript.append_prompt(prompt_uuid, user.content, state.permission_mode)
    state.prompt_uuid = prompt_uuid
    if script and isinstance(script[0], DieAtPrompt):
        die(state, script[0].code)
    state.emit_state("running")
    player = _Player(state, inbox, TurnTally(user=user, cycle=[prompt_uuid]))
    if user.uuid is not None:
        # As the real CLI: a message that came between turns is queued as its turn begins, and
        # started before anything the turn does (its echo, `system/init`).
        if inbox.queued_unsaid(user.uuid):
            player.lifecycle(user.uuid, "queued")
        player.lifecycle(user.uuid, "started")
        player.t.prompt = user.uuid
    _echo(state, user, prompt_uuid)
    state.emit(
        frames.init_frame(
            session_id=state.session_id,
            cwd=state.cwd,
            model=state.model,
            permission_mode=state.permission_mode,
            fast_mode_state="on" if state.fast else "off",
        )
    )
    for step in script:
        if inbox.interrupted or not player.play(step):
            player.interrupted()
            break
        player.take_up_queued(step)
    ended = bool(script) and isinstance(script[-1], Result) and not inbox.interrupted
    predicts = state.suggestion is not None and not state.last_result_is_error
    if ended and predicts and state.transcript.prompt_count > 1:
        # Claude Code predicts the next prompt after the result (never on the first turn).
        suggestion = {"type": "prompt_suggestion", "suggestion": state.suggestion}
        state.emit({**suggestion, "uuid": frames.new_uuid(), "session_id": state.session_id})
    for request_id in inbox.finish_turn():
        state.emit(frames.control_response(request_id, {}))
    if not inbox.steer_waiting():
        state.emit_state("idle")
    return 1 + player.taken_up
