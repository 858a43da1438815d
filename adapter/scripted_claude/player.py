"""Plays one turn script: each step becomes frames on stdout, transcript entries, or an act on
the fake's own process (exit, SIGKILL, closing stdout).

Theory of operation: `play_turn` opens a turn the way the real CLI does (`session_state_changed
running` when session-state frames are wanted, then `system/init`), plays the steps in order,
and closes it (`idle`). Before every step, and inside every wait, it checks the inbox for an
interrupt; an interrupted turn ends at once with an `error_during_execution` result, and only
then are the interrupt requests answered. Process-ending steps never return.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from adapter.scripted_claude import frames, streaming
from adapter.scripted_claude.session import SessionState, kill_self, play_bare, terminate
from adapter.scripted_claude.steps import (
    SYNTHETIC_MODEL,
    ApiRetry,
    AssistantError,
    BrokenStream,
    CloseStdout,
    DieAtPrompt,
    Exit,
    Garbage,
    Hang,
    IgnoreSigterm,
    KillSelf,
    ModelRefusalFallback,
    Permission,
    RateLimitEvent,
    RawFrame,
    Refusal,
    Reply,
    Result,
    Sleep,
    Stderr,
    Step,
    Synthetic,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    TurnScript,
    WorkerShuttingDown,
)
from adapter.scripted_claude.wire import Inbox, UserTurn

__all__ = ["INTERRUPTED_TEXT", "play_turn"]

INTERRUPTED_TEXT = "Request interrupted by user"


@dataclass(kw_only=True)
class _Turn:
    # Per-turn bookkeeping for the result frame.
    user: UserTurn
    started: float = field(default_factory=time.monotonic)
    last_text: str = ""
    num_turns: int = 1
    output_tokens: int = 0
    used_model: bool = False
    denials: list[dict[str, Any]] = field(default_factory=list)


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


class _Player:
    def __init__(self, state: SessionState, inbox: Inbox, turn: _Turn) -> None:
        self.s = state
        self.inbox = inbox
        self.t = turn

    # -- frame helpers -----------------------------------------------------------------------

    def _assistant(
        self,
        content: list[dict[str, Any]],
        *,
        model: str | None,
        stop_reason: str | None,
        error: str | None = None,
        api_error_status: int | None = None,
        stop_details: dict[str, Any] | None = None,
        parent: str | None = None,
        deltas: int | None = None,
        pace: float = 0.0,
    ) -> bool:
        """Write one assistant message (streamed first when partial messages are on); False
        if the turn was interrupted while it streamed."""
        synthetic = model == SYNTHETIC_MODEL
        ident = frames.message_id()
        stream = self.s.partial_messages and not synthetic and parent is None
        streamer = self._streamer()
        if stream and not streamer.open(ident, model or self.s.model, content, deltas, pace):
            return False
        frame = frames.assistant_frame(
            session_id=self.s.session_id,
            user_message_uuid=self.t.user.uuid,
            content=content,
            model=model or self.s.model,
            stop_reason=stop_reason,
            synthetic=synthetic,
            error=error,
            api_error_status=api_error_status,
            stop_details=stop_details,
            api_message_id=ident,
            parent_tool_use_id=parent,
        )
        self.s.emit(frame)
        self.s.transcript.append_frame(frame)
        if not synthetic:
            self.t.used_model = True
            self.t.output_tokens += frame["message"]["usage"]["output_tokens"]
        texts = [str(b["text"]) for b in content if b.get("type") == "text"]
        if texts and parent is None:
            self.t.last_text = texts[-1]
        if stream:
            tokens = frame["message"]["usage"]["output_tokens"]
            streamer.close(stop_reason, tokens)
        return True

    def _streamer(self) -> streaming.Streamer:
        return streaming.Streamer(
            emit=self.s.emit,
            session_id=self.s.session_id,
            user_message_uuid=self.t.user.uuid,
            inbox=self.inbox,
        )

    def _text(
        self,
        text: str,
        model: str | None = None,
        *,
        parent: str | None = None,
        deltas: int | None = None,
        pace: float = 0.0,
    ) -> bool:
        block = {"type": "text", "text": text}
        return self._assistant(
            [block],
            model=model,
            stop_reason="end_turn",
            parent=parent,
            deltas=deltas,
            pace=pace,
        )

    def _tool_result(
        self,
        tool_use: str,
        content: str | tuple[Any, ...],
        is_error: bool,
        tool_use_result: Any = None,
        parent: str | None = None,
    ) -> None:
        frame = frames.tool_result_frame(
            session_id=self.s.session_id,
            user_message_uuid=self.t.user.uuid,
            tool_use=tool_use,
            content=content,
            is_error=is_error,
            tool_use_result=tool_use_result,
            parent_tool_use_id=parent,
        )
        self.s.emit(frame)
        self.s.transcript.append_frame(frame)
        self.t.num_turns += 1

    def _tool_use(
        self,
        name: str,
        tool_input: Any,
        ident: str | None = None,
        parent: str | None = None,
    ) -> str:
        ident = ident or frames.tool_use_id()
        block = {"type": "tool_use", "id": ident, "name": name, "input": tool_input}
        self._assistant([block], model=None, stop_reason="tool_use", parent=parent)
        return ident

    # -- steps -------------------------------------------------------------------------------

    def play(self, step: Step) -> bool:
        """Play one step; False if the turn was interrupted during it."""
        s = self.s
        match step:
            case Text(text=text, model=model, repeat=repeat):
                return self._text(
                    text * repeat, model, parent=step.parent, deltas=step.deltas, pace=step.pace
                )
            case Reply(model=model):
                self._text(f"Scripted reply to: {_prompt_text(self.t.user.content)}", model)
            case Thinking(thinking=thinking, signature=signature):
                block = {"type": "thinking", "thinking": thinking, "signature": signature}
                return self._assistant([block], model=None, stop_reason=None, pace=step.pace)
            case ToolUse(name=name, is_error=is_error):
                cwd = s.cwd
                ident = self._tool_use(name, _at(step.input, cwd), step.id, step.parent)
                if name == "EnterPlanMode" and not is_error:
                    s.permission_mode = "plan"  # Claude switches its own mode
                if step.result is not None:
                    result, extra = _at(step.result, cwd), _at(step.tool_use_result, cwd)
                    self._tool_result(ident, result, is_error, extra, step.parent)
            case ToolResult(id=ident, result=result, is_error=is_error):
                self._tool_result(ident, _at(result, s.cwd), is_error)
            case BrokenStream(text=text, deltas=deltas):
                if s.partial_messages:
                    self._streamer().broken(s.model, text, deltas)
            case Permission():
                return self._permission(step)
            case ApiRetry():
                no_response = None
                if step.no_response is not None:
                    no_response = {
                        "waited_ms": step.no_response.waited_ms,
                        "retry_wait_ms": step.no_response.retry_wait_ms,
                    }
                s.emit(
                    frames.api_retry_frame(
                        session_id=s.session_id,
                        attempt=step.attempt,
                        max_retries=step.max_retries,
                        retry_delay_ms=step.retry_delay_ms,
                        error_status=step.error_status,
                        error=step.error,
                        no_response=no_response,
                    )
                )
            case RateLimitEvent():
                s.emit(
                    frames.rate_limit_frame(
                        session_id=s.session_id,
                        status=step.status,
                        resets_at=int(time.time()) + step.resets_in_seconds,
                        rate_limit_type=step.rate_limit_type,
                    )
                )
            case AssistantError(error=error, text=text, api_error_status=status):
                self._assistant(
                    [{"type": "text", "text": text}],
                    model=SYNTHETIC_MODEL,
                    stop_reason="stop_sequence",
                    error=error,
                    api_error_status=status,
                )
            case Synthetic(text=text):
                self._assistant(
                    [{"type": "text", "text": text}],
                    model=SYNTHETIC_MODEL,
                    stop_reason="stop_sequence",
                )
            case Refusal(explanation=explanation, category=category, model=model):
                self._assistant(
                    [{"type": "text", "text": explanation}],
                    model=model,
                    stop_reason="refusal",
                    stop_details={
                        "type": "refusal",
                        "category": category,
                        "explanation": explanation,
                    },
                )
            case ModelRefusalFallback():
                s.emit(
                    frames.model_refusal_fallback_frame(
                        session_id=s.session_id,
                        original_model=step.original_model,
                        fallback_model=step.fallback_model,
                        api_refusal_category=step.api_refusal_category,
                        api_refusal_explanation=step.api_refusal_explanation,
                        direction=step.direction,
                        scope=step.scope,
                        content=step.content,
                    )
                )
            case WorkerShuttingDown(reason=reason):
                s.emit(frames.worker_shutting_down_frame(session_id=s.session_id, reason=reason))
            case Result():
                self._result(step)
            case Sleep(seconds=seconds):
                return not self.inbox.wait(seconds, lambda: False)
            case Hang():
                return not self.inbox.wait(None, lambda: self.inbox.eof)
            case IgnoreSigterm():
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            case Exit(code=code):
                terminate(s, code)
            case KillSelf():
                kill_self(s)
            case CloseStdout():
                s.writer.close()
            case Stderr() | Garbage():
                play_bare(step, s.writer)
            case RawFrame(frame=frame):
                s.emit(dict(frame))
            case DieAtPrompt(code=code):
                _die(s, code)
        return True

    def _permission(self, step: Permission) -> bool:
        tool_input = dict(step.input)
        ident = self._tool_use(step.tool_name, tool_input)
        allowed, message, interrupt = self._ask(step.tool_name, tool_input, ident, step.suggestions)
        if allowed is None:
            return False
        if allowed:
            output = step.result or f"({step.tool_name} completed with no output)"
            self._tool_result(ident, output, is_error=False)
            self._text(f"{step.tool_name} was allowed.")
            return True
        self.t.denials.append(
            {"tool_name": step.tool_name, "tool_use_id": ident, "tool_input": tool_input}
        )
        self._tool_result(ident, message, is_error=True)
        if interrupt:
            return False
        denied = f"{step.tool_name} was denied"
        self._text(f"{denied}: {message}" if message else f"{denied}.")
        return True

    def _ask(
        self,
        tool_name: str,
        tool_input: dict[str, Any],
        ident: str,
        suggestions: tuple[Any, ...] = (),
    ) -> tuple[bool | None, str, bool]:
        """(allowed, denial message, interrupt); allowed None: interrupted while waiting."""
        s = self.s
        if s.permission_mode == "bypassPermissions":
            return True, "", False
        if s.rules is not None and s.rules.decide(s.permission_mode, tool_name, tool_input):
            return True, "", False
        if s.permission_prompt_tool != "stdio" or self.inbox.eof:
            # Nobody can be asked: the real CLI denies in non-interactive mode.
            why = (
                f"Claude requested permissions to use {tool_name}, but you haven't granted it yet."
            )
            return False, why, False
        request_id = frames.new_uuid()
        request = {
            "subtype": "can_use_tool",
            "tool_name": tool_name,
            "input": tool_input,
            "permission_suggestions": [dict(x) for x in suggestions] or None,
            "tool_use_id": ident,
        }
        s.emit_state("requires_action")
        s.emit(frames.control_request(request_id, request))
        answer = self.inbox.wait_response(request_id)
        if answer is None:
            if self.inbox.interrupted:
                s.emit(frames.control_cancel_request(request_id))
                return None, "", False
            return False, "Stream closed", False
        s.emit_state("running")
        if self.inbox.interrupted:
            return None, "", False
        if answer.get("subtype") == "error":
            return False, str(answer.get("error", "")), False
        body = answer.get("response")
        body = body if isinstance(body, dict) else {}
        if body.get("behavior") == "allow":
            if s.rules is not None:
                mode = s.rules.apply(body.get("updatedPermissions"))
                s.permission_mode = mode or s.permission_mode
            return True, "", False
        return False, str(body.get("message", "")), bool(body.get("interrupt"))

    def _result(self, step: Result) -> None:
        s, t = self.s, self.t
        frame = frames.result_frame(
            session_id=s.session_id,
            user_message_uuid=t.user.uuid,
            subtype=step.subtype,
            is_error=step.is_error,
            result=step.result if step.result is not None else t.last_text,
            errors=step.errors,
            api_error_status=step.api_error_status,
            terminal_reason=step.terminal_reason,
            stop_reason=step.stop_reason,
            duration_ms=int((time.monotonic() - t.started) * 1000),
            num_turns=t.num_turns,
            model=s.model if t.used_model else None,
            output_tokens=t.output_tokens,
            permission_denials=t.denials,
        )
        s.emit(frame)
        s.last_result_is_error = step.is_error

    def interrupted(self) -> None:
        """End the turn the way an interrupt does: marker in the transcript, error result."""
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


def _at(value: Any, cwd: str) -> Any:
    """`value` (JSON-like) with every `{cwd}` in its strings replaced by the session folder."""
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, Mapping):
        return {key: _at(item, cwd) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_at(item, cwd) for item in value]
    return value


def _die(state: SessionState, code: int | None) -> NoReturn:
    if code is None:
        kill_self(state)
    terminate(state, code)


def play_turn(state: SessionState, inbox: Inbox, user: UserTurn, script: TurnScript) -> None:
    """Play `script` for `user`, answering interrupts that arrived meanwhile once it ended."""
    prompt_uuid = user.uuid or frames.new_uuid()
    state.transcript.append_prompt(prompt_uuid, user.content, state.permission_mode)
    if script and isinstance(script[0], DieAtPrompt):
        _die(state, script[0].code)
    state.emit_state("running")
    if state.replay_user_messages:
        echo = dict(user.raw)
        echo.update(session_id=state.session_id, uuid=prompt_uuid, isReplay=True)
        state.emit(echo)
    state.emit(
        frames.init_frame(
            session_id=state.session_id,
            cwd=state.cwd,
            model=state.model,
            permission_mode=state.permission_mode,
        )
    )
    player = _Player(state, inbox, _Turn(user=user))
    for step in script:
        if inbox.interrupted or not player.play(step):
            player.interrupted()
            break
    for request_id in inbox.finish_turn():
        state.emit(frames.control_response(request_id, {}))
    state.emit_state("idle")
