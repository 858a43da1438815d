"""The scripted Claude's process: command line, session choice, stdin reader, turn loop.

Theory of operation: `main` picks the scenario from `$CLAUDE_ACP_SCENARIO` (a shipped name, or
a parametric one such as `random:<seed>`, see `randomized.py`; exit 2 if unknown), plays its
`before_handshake` steps, resolves the session (`--session-id`, `--resume`, `--continue`,
`--fork-session`) and starts a daemon thread that reads stdin. That thread answers control
requests itself (`initialize`, `set_model`, ...), files user turns, `can_use_tool`
answers and interrupts into the `Inbox`, and marks EOF. The main thread plays the queued turns in
order; after EOF it finishes them and exits, with 1 if the last result was an error (the real
CLI's exit status, which the SDK turns into `ResultError`) and 0 otherwise.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from adapter.scripted_claude import frames, local_controls
from adapter.scripted_claude.handshake import (
    LOG_ENV_NAMES,
    PERMISSION_MODES,
    record,
    resolve_model,
)
from adapter.scripted_claude.permission_rules import Rules
from adapter.scripted_claude.plan_scenarios import is_fresh_context, script_for
from adapter.scripted_claude.player import play_turn
from adapter.scripted_claude.scenarios import SCENARIO_ENV, SCENARIOS
from adapter.scripted_claude.session import SessionState, play_bare, terminate
from adapter.scripted_claude.steps import Scenario
from adapter.scripted_claude.transcript import (
    Transcript,
    config_dir,
    project_dir,
    transcript_path,
)
from adapter.scripted_claude.wire import FrameWriter, Inbox, UserTurn

__all__ = ["CliArgs", "main", "parse_argv"]

_FALLBACK_SCENARIO = "success"

# Flags that take no value. Everything else that the SDK's `_build_command` emits takes one.
_BOOL_FLAGS = frozenset(
    {
        "--verbose",
        "--continue",
        "--fork-session",
        "--include-partial-messages",
        "--include-hook-events",
        "--strict-mcp-config",
        "--session-mirror",
        "--replay-user-messages",
        "--print",
        "-p",
        "--debug",
    }
)
# Flags whose value is optional in the real CLI: a following "--flag" is not their value.
_OPTIONAL_VALUE_FLAGS = frozenset({"--resume", "-r"})
_VALUE_FLAGS = frozenset(
    {
        "--output-format",
        "--input-format",
        "--system-prompt",
        "--system-prompt-file",
        "--append-system-prompt",
        "--tools",
        "--allowedTools",
        "--disallowedTools",
        "--max-turns",
        "--max-budget-usd",
        "--task-budget",
        "--model",
        "--fallback-model",
        "--betas",
        "--permission-prompt-tool",
        "--permission-mode",
        "--session-id",
        "--settings",
        "--add-dir",
        "--mcp-config",
        "--plugin-dir",
        "--setting-sources",
        "--resume-session-at",
        "--resume-drops-turn",
        "--thinking",
        "--max-thinking-tokens",
        "--thinking-display",
        "--effort",
        "--json-schema",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CliArgs:
    """The flags the fake acts on; `flags` keeps every flag seen (value None for booleans)."""

    flags: Mapping[str, str | None] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        return self.flags.get(name)

    def has(self, name: str) -> bool:
        return name in self.flags


def parse_argv(argv: Sequence[str]) -> CliArgs:
    """Parse both `--flag=value` and `--flag value`; unknown flags take the next token as their
    value unless it looks like a flag. Stray positionals are ignored."""
    flags: dict[str, str | None] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-"):
            continue
        if token.startswith("--") and "=" in token:
            name, value = token.split("=", 1)
            flags[name] = value
        elif token in _BOOL_FLAGS:
            flags[token] = None
        elif token in _VALUE_FLAGS:
            flags[token] = argv[i] if i < len(argv) else ""
            i += 1
        elif i < len(argv) and not argv[i].startswith("--"):
            flags[token] = argv[i]
            i += 1
        else:
            flags[token] = None
    if "-r" in flags:
        flags.setdefault("--resume", flags["-r"])
    return CliArgs(flags=flags)


def _fail_resume(writer: FrameWriter, session_id: str) -> NoReturn:
    # The real CLI reports an unknown --resume id as an error result during start-up and exits
    # 1; the SDK then fails `connect()` with a ResultError carrying this text.
    text = f"No conversation found with session ID: {session_id}"
    writer.write(
        frames.result_frame(
            session_id=session_id,
            user_message_uuid=None,
            subtype="error_during_execution",
            is_error=True,
            result=None,
            errors=(text,),
            api_error_status=None,
            terminal_reason=None,
            stop_reason=None,
            duration_ms=0,
            num_turns=0,
            model=None,
            output_tokens=0,
            permission_denials=(),
        )
    )
    sys.stderr.write(text + "\n")
    terminate(None, 1)


def _open_transcript(
    args: CliArgs, env: Mapping[str, str], cwd: str, writer: FrameWriter
) -> Transcript:
    resume = args.value("--resume")
    if args.has("--continue") and not resume:
        candidates = sorted(
            project_dir(env, cwd).glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        resume = candidates[0].stem if candidates else None
    new_id = args.value("--session-id") or frames.new_uuid()
    if not resume:
        return Transcript(transcript_path(env, cwd, new_id), session_id=new_id, cwd=cwd)
    source = transcript_path(env, cwd, resume)
    if not source.exists():
        _fail_resume(writer, resume)
    if not args.has("--fork-session"):
        return Transcript(source, session_id=resume, cwd=cwd)
    forked = Transcript(transcript_path(env, cwd, new_id), session_id=new_id, cwd=cwd)
    forked.fork_from(source)
    return forked


def _state_frames(env: Mapping[str, str]) -> bool | None:
    # Plain frames when the host opted in to seeing them; `sdk_host_only` frames when only the
    # SDK asked (it sets CLAUDE_CODE_SDK_READS_SESSION_STATE itself); none otherwise.
    def on(name: str) -> bool:
        return env.get(name, "").strip().lower() in {"1", "true", "yes", "on"}

    if on("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS"):
        return False
    if on("CLAUDE_CODE_SDK_READS_SESSION_STATE"):
        return True
    return None


class _Reader:
    """The stdin thread: answers control requests, files everything else into the inbox."""

    def __init__(
        self,
        state: SessionState,
        inbox: Inbox,
        scenario: Scenario,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.state = state
        self.inbox = inbox
        self.scenario = scenario
        self.env: Mapping[str, str] = env or {}

    def run(self) -> None:
        stdin = sys.stdin.buffer
        try:
            for raw in iter(stdin.readline, b""):
                line = raw.decode("utf-8", errors="replace").strip()
                if line:
                    self._dispatch(line)
        finally:
            self.inbox.close()

    def _dispatch(self, line: str) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            sys.stderr.write(f"scripted_claude: ignoring a non-JSON input line: {line[:80]}\n")
            return
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "user":
            uuid = message.get("uuid")
            body = message.get("message")
            content = body.get("content", "") if isinstance(body, dict) else ""
            record(self.env, "user", uuid=uuid, content=content)
            turn = UserTurn(
                uuid=uuid if isinstance(uuid, str) else None, content=content, raw=message
            )
            self.inbox.push_turn(turn)
        elif kind == "control_response":
            response = message.get("response") or {}
            record(self.env, "response", response=response)
            self.inbox.push_response(str(response.get("request_id")), response)
        elif kind == "control_request":
            self._control(str(message.get("request_id")), message.get("request") or {})

    def _control(self, request_id: str, request: dict[str, object]) -> None:
        s = self.state
        subtype = request.get("subtype")
        answer: frames.Frame = {}
        record(self.env, "control", request=request)
        if subtype == "initialize":
            answer = frames.initialize_response(
                scenario=self.scenario.name, pid=os.getpid(), model=s.model
            )
        elif subtype == "interrupt":
            if self.inbox.push_interrupt(request_id):
                return  # the player answers once the turn's result is out
        elif subtype == "set_permission_mode":
            mode = request.get("mode")
            if mode not in PERMISSION_MODES:
                # The real CLI refuses a mode it does not know, and keeps its own.
                s.emit(frames.control_error(request_id, f"Invalid permission mode: {mode}"))
                return
            s.permission_mode = str(mode)
        elif subtype == "set_model":
            s.model = resolve_model(request.get("model"))
        elif subtype == "apply_flag_settings":
            settings = request.get("settings")
            if isinstance(settings, dict) and "effortLevel" in settings:
                effort = settings["effortLevel"]
                s.effort = effort if isinstance(effort, str) else None
        elif subtype in ("mcp_status", "get_usage", "mcp_reconnect", "mcp_toggle"):
            answer, error = local_controls.answer(s.mcp_servers, request)
            if error is not None:
                s.emit(frames.control_error(request_id, error))
                return
        elif subtype == "get_context_usage":
            answer = {"categories": [], "totalTokens": 0, "maxTokens": 200000, "percentage": 0}
        s.emit(frames.control_response(request_id, answer))


# Set to "fail" to make `auth logout` fail as the real CLI does when it cannot sign out.
LOGOUT_ENV = "CLAUDE_ACP_SCRIPTED_LOGOUT"


def _logout(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """The real CLI's `claude auth logout`: recorded, and answered with its exit status."""
    record(env, "argv", argv=list(argv))
    if env.get(LOGOUT_ENV) == "fail":
        sys.stderr.write("Failed to log out: /home/someone/.claude/.credentials.json is locked\n")
        return 1
    sys.stdout.write("Successfully logged out from your Anthropic account.\n")
    return 0


def main(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Run the fake CLI; returns the exit status (some paths leave through `os._exit`)."""
    if list(argv[:2]) == ["auth", "logout"]:
        return _logout(argv, env)
    name = env.get(SCENARIO_ENV) or _FALLBACK_SCENARIO
    args = parse_argv(argv)
    scenario = SCENARIOS.get(name)
    if scenario is None:
        # Parametric names (`random:<seed>`) are drawn per session (imported only for them).
        from adapter.scripted_claude.randomized import scenario_named

        resume = args.value("--resume")
        scenario = scenario_named(
            name, session_id=resume or args.value("--session-id"), resumed=bool(resume)
        )
    if scenario is None:
        known = ", ".join(sorted(SCENARIOS))
        sys.stderr.write(
            f"scripted_claude: unknown scenario {name!r} in ${SCENARIO_ENV}. Known: {known}\n"
        )
        return 2
    record(env, "argv", argv=list(argv))
    # The environment variables a test names (never the whole environment: it holds secrets).
    if env.get(LOG_ENV_NAMES):
        names = env[LOG_ENV_NAMES].split(",")
        record(env, "env", values={name: env.get(name) for name in names})
    writer = FrameWriter()
    fresh = is_fresh_context(args.value("--session-id"), env)
    for step in (*scenario.before_handshake, *(scenario.fresh_start if fresh else ())):
        play_bare(step, writer)
    cwd = os.getcwd()
    transcript = _open_transcript(args, env, cwd, writer)
    # The real CLI's order: --model, ANTHROPIC_MODEL, the resumed transcript's, its default.
    model = resolve_model(
        args.value("--model") or env.get("ANTHROPIC_MODEL") or transcript.last_model or "default"
    )
    sources = tuple(s for s in (args.value("--setting-sources") or "").split(",") if s)
    rules = Rules(config=config_dir(env), cwd=cwd, sources=sources)
    rules.load()
    state = SessionState(
        session_id=transcript.session_id,
        cwd=cwd,
        writer=writer,
        transcript=transcript,
        model=model,
        permission_mode=args.value("--permission-mode") or rules.default_mode() or "default",
        permission_prompt_tool=args.value("--permission-prompt-tool"),
        state_frames_host_only=_state_frames(env),
        replay_user_messages=args.has("--replay-user-messages"),
        partial_messages=args.has("--include-partial-messages"),
        rules=rules,
        effort=args.value("--effort"),
        mcp_servers=local_controls.servers_from(args.value("--mcp-config")),
        disallowed_tools=frozenset(
            t for t in (args.value("--disallowedTools") or "").split(",") if t
        ),
    )
    inbox = Inbox()
    reader = _Reader(state, inbox, scenario, env)
    threading.Thread(target=reader.run, name="scripted-claude-stdin", daemon=True).start()
    turn_index = transcript.prompt_count
    while (turn := inbox.next_turn()) is not None:
        play_turn(state, inbox, turn, script_for(scenario, turn_index, turn.content))
        turn_index += 1
    transcript.close()
    record(env, "exit", session_id=transcript.session_id)
    return 1 if state.last_result_is_error else 0
