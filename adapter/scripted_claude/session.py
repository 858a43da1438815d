"""Session-wide state of the scripted Claude, and the steps that need no turn.

Theory of operation: `SessionState` is what outlives a turn (ids, model, permission settings,
the writer and the transcript); the stdin thread mutates it for `set_model` and
`set_permission_mode`, the player reads it. `terminate` and `kill_self` end the process from
any step; `play_bare` plays the steps a scenario runs before the handshake, and
`play_process_step` the steps of a turn that act on the process or wait (`PROCESS_STEPS`).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from adapter.scripted_claude import frames
from adapter.scripted_claude.permission_rules import Rules
from adapter.scripted_claude.process_steps import STARTUP_FAILURE_RESULTS_ENV
from adapter.scripted_claude.steps import (
    DEFAULT_MODEL,
    CloseStdout,
    DieAtPrompt,
    Exit,
    Garbage,
    Hang,
    IgnoreSigterm,
    KillSelf,
    Sleep,
    StartupFailure,
    Stderr,
    Step,
)
from adapter.scripted_claude.transcript import Transcript
from adapter.scripted_claude.wire import FrameWriter, Inbox

__all__ = [
    "PROCESS_STEPS",
    "SessionState",
    "die",
    "kill_self",
    "play_bare",
    "play_process_step",
    "terminate",
]


@dataclass(kw_only=True)
class SessionState:
    """What outlives a turn. Mutated by the player and by control requests (`set_model`,
    `set_permission_mode`), which is why it is not frozen."""

    session_id: str
    cwd: str
    writer: FrameWriter
    transcript: Transcript
    model: str = DEFAULT_MODEL
    model_alias: str | None = None  # the name the model was chosen by (`sonnet[1m]`)
    permission_mode: str = "default"
    permission_prompt_tool: str | None = None
    # None: no session_state_changed frames; else whether they are `sdk_host_only`.
    state_frames_host_only: bool | None = None
    replay_user_messages: bool = False
    # --include-partial-messages: stream_event frames around each model message.
    partial_messages: bool = False
    last_result_is_error: bool = False
    # Allow rules from settings files and earlier answers (None: ask about everything).
    rules: Rules | None = None
    effort: str | None = None
    agent: str | None = None  # the main thread's agent (`--agent`, `apply_flag_settings`)
    fast: bool = False  # fast mode (`model_features`)
    ultracode: bool = False  # Ultracode (`model_features`)
    # Why fast mode turns off at the next turn's result (`model_features.FAST_OFF_ENV`).
    fast_off_reason: str | None = None
    fast_lost: bool = False  # it did (until a switch turns it on again)
    # Each limit window's reset time (epoch seconds), fixed when first reported.
    limit_resets: dict[str, int] = field(default_factory=dict)
    # --disallowedTools: the tools Claude does not have (AskUserQuestion for a formless client).
    disallowed_tools: frozenset[str] = frozenset()
    # --mcp-config's servers, name → status (`local_controls`).
    mcp_servers: dict[str, str] = field(default_factory=dict)
    # The SDK's hook callbacks from `initialize`, by event (`hook_steps`).
    hooks: dict[str, list[str]] = field(default_factory=dict)
    # The process's environment: where a test asked for the log (`handshake.record`).
    env: Mapping[str, str] = field(default_factory=dict)
    # `modelUsage` as the real CLI reports it: a running total per model for the process.
    model_usage: dict[str, dict[str, int]] = field(default_factory=dict)
    # File checkpoints (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`): the files each prompt's
    # allowed edits changed, by the prompt's uuid, as `rewind_files` previews them.
    checkpointing: bool = False
    # With --prompt-suggestions and `$CLAUDE_ACP_SCRIPTED_SUGGESTION` (its text): a
    # `prompt_suggestion` after each turn's result but the session's first and a failed one, as
    # Claude Code writes one. Without the variable none, so that no other scenario's frames
    # change.
    suggestion: str | None = None
    prompt_uuid: str | None = None
    checkpoints: dict[str, list[str]] = field(default_factory=dict)

    def emit(self, frame: frames.Frame) -> None:
        self.writer.write(frame)

    def emit_state(self, state: str) -> None:
        if self.state_frames_host_only is not None:
            host_only = self.state_frames_host_only
            frame = frames.session_state_frame(
                session_id=self.session_id, state=state, host_only=host_only
            )
            self.emit(frame)


def terminate(state: SessionState | None, code: int) -> NoReturn:
    """Flush what is ours and leave at once; `os._exit` because the reader thread may be
    blocked in stdin, which would wedge a normal interpreter shutdown."""
    if state is not None:
        state.transcript.close()
    sys.stderr.flush()
    os._exit(code)


def kill_self(state: SessionState | None) -> NoReturn:
    if state is not None:
        state.transcript.close()
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)
    while True:  # pragma: no cover - SIGKILL cannot be caught
        time.sleep(1)


def play_bare(step: Step, writer: FrameWriter) -> None:
    """Play a step that needs no session (the `before_handshake` steps)."""
    match step:
        case Stderr(line=line):
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        case Garbage(line=line):
            writer.write_line(line)
        case Sleep(seconds=seconds):
            time.sleep(seconds)
        case StartupFailure(reason=reason, message=message):
            if os.environ.get(STARTUP_FAILURE_RESULTS_ENV) == "1":
                writer.write_line(json.dumps(frames.startup_failure_frame(reason, message)))
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
        case Exit(code=code):
            terminate(None, code)
        case KillSelf():
            kill_self(None)
        case _:
            sys.stderr.write(f"scripted_claude: {step!r} needs a turn; ignored\n")


# Steps that act on the fake's own process or on the turn's time, not on the conversation.
PROCESS_STEPS = (
    Sleep,
    Hang,
    IgnoreSigterm,
    Exit,
    KillSelf,
    CloseStdout,
    Stderr,
    Garbage,
    DieAtPrompt,
)


def play_process_step(step: Step, s: SessionState, inbox: Inbox) -> bool:
    """Play a process step; False if the turn was interrupted while it waited."""
    match step:
        case Sleep(seconds=seconds, until_queued=until_queued):
            return not inbox.wait(seconds, inbox.has_queued if until_queued else lambda: False)
        case Hang():
            return not inbox.wait(None, lambda: inbox.eof)
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
        case DieAtPrompt(code=code):
            die(s, code)
    return True


def die(state: SessionState, code: int | None) -> NoReturn:
    """Die at a prompt: SIGKILL when `code` is None, else exit with it."""
    if code is None:
        kill_self(state)
    terminate(state, code)
