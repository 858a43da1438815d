"""The frames of one turn's conversation as the scripted Claude writes them: assistant messages
(streamed first when partial messages are on), tool uses and results, and the result frame,
each also kept in the transcript where the real CLI keeps it.

Theory of operation: `TurnWriter` holds the session, the inbox (a stream notices an interrupt)
and the turn's tally (`TurnTally`: what the result frame reports); `player.py` decides which
frames a step writes and calls these.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from adapter.scripted_claude import frames, streaming
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.steps import SYNTHETIC_MODEL, Result
from adapter.scripted_claude.wire import Inbox, UserTurn

__all__ = ["TurnTally", "TurnWriter"]

# The real CLI's terminal reasons after which a turn's messages end `cancelled`, not
# `completed`: an aborted turn, or one that died on a hard failure (2.1.332's `hNo`).
_CANCELLING_ENDS = frozenset(
    {
        "aborted_streaming",
        "aborted_tools",
        "blocking_limit",
        "rapid_refill_breaker",
        "prompt_too_long",
        "image_error",
        "model_error",
        "api_error",
        "malformed_tool_use_exhausted",
        "budget_exhausted",
        "structured_output_retry_exhausted",
        "tool_deferred_unavailable",
        "turn_setup_failed",
    }
)


@dataclass(kw_only=True)
class TurnTally:
    """What the turn's result frame reports, tallied as the turn plays."""

    user: UserTurn
    started: float = field(default_factory=time.monotonic)
    last_text: str = ""
    num_turns: int = 1
    output_tokens: int = 0
    used_model: bool = False
    denials: list[dict[str, Any]] = field(default_factory=list)
    # The user messages of the cycle so far (its prompt, then those taken up mid-turn), and
    # whether any was taken up: its result names them all (`user_message_uuids`).
    cycle: list[str] = field(default_factory=list)
    took_up: bool = False
    # What the real CLI still owes a terminal `command_lifecycle` state: the turn's own prompt
    # (after the turn's result) and those taken in mid-turn (before it).
    prompt: str | None = None
    folded: list[str] = field(default_factory=list)

    def named(self, frame: dict[str, Any]) -> dict[str, Any]:
        """A result `frame` of a cycle that took user messages up, naming them, as the real
        CLI's result names every prompt its cycle took up; the next cycle starts afresh."""
        if self.took_up:
            frame = {**frame, "user_message_uuid": self.cycle[0], "user_message_uuids": self.cycle}
        self.cycle, self.took_up = [], False
        return frame


class TurnWriter:
    """Writes the frames of one turn of `state`'s session."""

    def __init__(self, state: SessionState, inbox: Inbox, turn: TurnTally) -> None:
        self.s = state
        self.inbox = inbox
        self.t = turn

    # -- frame helpers -----------------------------------------------------------------------

    def lifecycle(self, command_uuid: str, state: str) -> None:
        """Claude Code's word on what became of the user message `command_uuid`."""
        self.s.emit(frames.lifecycle_frame(self.s.session_id, command_uuid, state))

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
        pieces: tuple[str, ...] | None = None,
    ) -> bool:
        """Write one assistant message (streamed first when partial messages are on); False
        if the turn was interrupted while it streamed."""
        synthetic = model == SYNTHETIC_MODEL
        ident = frames.message_id()
        # A subagent's messages stream too, as Claude Code's do (under its Agent call).
        stream = self.s.partial_messages and not synthetic
        streamer = self._streamer(parent)
        model_name = model or self.s.model
        if stream and not streamer.open(ident, model_name, content, deltas, pace, pieces):
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

    def _streamer(self, parent: str | None = None) -> streaming.Streamer:
        return streaming.Streamer(
            emit=self.s.emit,
            session_id=self.s.session_id,
            user_message_uuid=self.t.user.uuid,
            inbox=self.inbox,
            parent=parent,
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
        pieces: tuple[str, ...] | None = None,
        unfinished: bool = False,
    ) -> str:
        ident = ident or frames.tool_use_id()
        block = {"type": "tool_use", "id": ident, "name": name, "input": tool_input}
        if unfinished:
            if self.s.partial_messages and parent is None:
                self._streamer().unfinished_call(self.s.model, block, pieces or ())
            return ident
        self._assistant([block], model=None, stop_reason="tool_use", parent=parent, pieces=pieces)
        return ident

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
        for model, row in frame["modelUsage"].items():
            # The real CLI's `modelUsage` is the process's running total, not this turn's.
            total = s.model_usage.setdefault(model, {})
            for key in ("inputTokens", "outputTokens"):
                total[key] = total.get(key, 0) + row[key]
                row[key] = total[key]
        if s.fast_off_reason is not None and not s.fast_lost:
            # `$CLAUDE_ACP_SCRIPTED_FAST_OFF`: the account lost fast mode during this turn.
            s.fast, s.fast_lost = False, True
        if s.fast_lost and not s.fast:
            frame["fast_mode_disabled_reason"] = s.fast_off_reason  # said while it stays off
        frame["fast_mode_state"] = "on" if s.fast else "off"
        # The turn's own prompt ends after its result; one taken in mid-turn before it, unless
        # the turn was aborted or died on a hard failure: then each is `cancelled`, after it.
        cancelled = step.terminal_reason in _CANCELLING_ENDS
        if not cancelled:
            for uuid in t.folded:
                self.lifecycle(uuid, "completed")
            t.folded = []
        s.emit(t.named(frame))
        s.last_result_is_error = step.is_error
        owed = ([] if t.prompt is None else [t.prompt]) + t.folded
        for uuid in owed:
            self.lifecycle(uuid, "cancelled" if cancelled else "completed")
        t.prompt, t.folded = None, []
