"""The scripted Claude's process: command line, session choice, stdin reader, turn loop.

Theory of operation: `main` picks the scenario from `$CLAUDE_ACP_SCENARIO` (a shipped name, or
one from the modules `$CLAUDE_ACP_SCENARIO_MODULES` lists, such as a test suite's parametric
`random:<seed>`; exit 2 if unknown), plays its `before_handshake` steps, resolves the session
(`--session-id`, `--resume`, `--continue`, `--fork-session`) and starts a daemon thread that
reads stdin. That thread answers control requests itself (`initialize`, `set_model`, ...),
files user turns, `can_use_tool` answers and interrupts into the `Inbox`, and marks EOF. The main
thread plays the queued turns in order; after EOF it finishes them and exits, with 1 if the last
result was an error (the real CLI's exit status, which the SDK turns into `ResultError`) and 0
otherwise.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO, NoReturn

from adapter.scripted_claude import frames, local_controls
from adapter.scripted_claude.cli_args import CliArgs, parse_argv
from adapter.scripted_claude.frame_ids import CLI_VERSION
from adapter.scripted_claude.handshake import (
    LOG_ENV_NAMES,
    record,
    resolve_model,
)
from adapter.scripted_claude.model_features import FAST_OFF_ENV, ULTRACODE_ENV, fast_state
from adapter.scripted_claude.permission_rules import Rules
from adapter.scripted_claude.plan_scenarios import is_fresh_context, script_for
from adapter.scripted_claude.player import play_turn
from adapter.scripted_claude.scenarios import (
    SCENARIO_ENV,
    SCENARIO_MODULES_ENV,
    SCENARIOS,
    added_scenario,
    scenario_modules,
)
from adapter.scripted_claude.session import SessionState, play_bare, terminate
from adapter.scripted_claude.stdin_reader import StdinReader
from adapter.scripted_claude.steps import Scenario
from adapter.scripted_claude.transcript import (
    Transcript,
    config_dir,
    project_dir,
    transcript_path,
)
from adapter.scripted_claude.wire import FrameWriter, Inbox

__all__ = ["LOGOUT_ENV", "main"]

# What the scripted Claude predicts after a turn when asked to (`--prompt-suggestions`).
SUGGESTION_ENV = "CLAUDE_ACP_SCRIPTED_SUGGESTION"

_FALLBACK_SCENARIO = "success"


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


# Set to "fail" to make `auth logout` fail as the real CLI does when it cannot sign out, or to
# "forget" to make it sign out for real: every later start finds no credentials (`SIGNED_OUT`).
LOGOUT_ENV = "CLAUDE_ACP_SCRIPTED_LOGOUT"
# Under `forget`: the file `auth logout` leaves in the config folder, and the scenario each
# later start then plays (the real CLI's "Please run /login" answer to every prompt).
SIGNED_OUT_MARK = "scripted-signed-out"
SIGNED_OUT = "synthetic_login"


def _logout(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """The real CLI's `claude auth logout`: recorded, and answered with its exit status."""
    record(env, "argv", argv=list(argv))
    if env.get(LOGOUT_ENV) == "fail":
        sys.stderr.write("Failed to log out: /home/someone/.claude/.credentials.json is locked\n")
        return 1
    if env.get(LOGOUT_ENV) == "forget":
        folder = config_dir(env)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / SIGNED_OUT_MARK).write_text("signed out\n", encoding="utf-8")
    sys.stdout.write("Successfully logged out from your Anthropic account.\n")
    return 0


# Set to "signed-out" to make `auth status` say what the real CLI says with no credentials.
AUTH_STATUS_ENV = "CLAUDE_ACP_SCRIPTED_AUTH"


def _auth_status(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """The real CLI's `claude auth status [--json]`: its JSON answer, exit status 1 when signed
    out. Signed in unless `AUTH_STATUS_ENV` says otherwise or `auth logout` forgot the login."""
    record(env, "argv", argv=list(argv))
    folder = config_dir(env)
    signed_in = env.get(AUTH_STATUS_ENV) != "signed-out" and not (folder / SIGNED_OUT_MARK).exists()
    status: dict[str, object] = {
        "loggedIn": signed_in,
        "authMethod": "none",
        "apiProvider": "firstParty",
        "configDirectory": str(folder),
    }
    if signed_in and env.get("ANTHROPIC_API_KEY"):
        status.update(authMethod="api_key", apiKeySource="ANTHROPIC_API_KEY")
    elif signed_in:
        status.update(authMethod="claude.ai", subscriptionType="max")
    sys.stdout.write(json.dumps(status, indent=2) + "\n")
    sys.stdout.flush()  # the process leaves through `os._exit`, which flushes nothing
    return 0 if signed_in else 1


def _login(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """The real CLI's `claude auth login [flags]` once the person finished it in the terminal:
    recorded, and signed in again (what `auth logout` under `forget` cleared is back)."""
    record(env, "argv", argv=list(argv))
    (config_dir(env) / SIGNED_OUT_MARK).unlink(missing_ok=True)
    sys.stdout.write("Login successful.\n")
    sys.stdout.flush()
    return 0


def _signed_out() -> Scenario:
    """The login answer for every prompt, however many turns a resumed session had before."""
    login = SCENARIOS[SIGNED_OUT]
    return replace(login, turns=login.turns[:1] * _SIGNED_OUT_TURNS)


_SIGNED_OUT_TURNS = 256


def main(
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    stdin: BinaryIO | None = None,
    stdout_fd: int = 1,
    cwd: str | None = None,
) -> int:
    """Run the fake CLI; returns the exit status (some paths leave through `os._exit`).

    `stdin`, `stdout_fd` and `cwd` default to the process's own; a test suite that plays a
    session in its own process (no step that ends or signals the process) gives a pipe's ends
    and the session's folder instead."""
    if list(argv[:2]) == ["auth", "logout"]:
        return _logout(argv, env)
    if list(argv[:2]) == ["auth", "login"]:
        return _login(argv, env)
    if list(argv[:2]) == ["auth", "status"]:
        return _auth_status(argv, env)
    if list(argv) == ["--version"]:
        sys.stdout.write(f"{CLI_VERSION} (Claude Code)\n")
        return 0
    name = env.get(SCENARIO_ENV) or _FALLBACK_SCENARIO
    args = parse_argv(argv)
    scenario = SCENARIOS.get(name)
    if scenario is None:
        # A test suite's own, or a parametric name such as `random:<seed>`, drawn per session.
        resume = args.value("--resume")
        scenario = added_scenario(
            name,
            scenario_modules(env.get(SCENARIO_MODULES_ENV)),
            session_id=resume or args.value("--session-id"),
            resumed=bool(resume),
        )
    if (config_dir(env) / SIGNED_OUT_MARK).exists():
        scenario = _signed_out()  # `auth logout` under `forget` cleared the credentials
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
    writer = FrameWriter(stdout_fd)
    fresh = is_fresh_context(args.value("--session-id"), env)
    for step in (*scenario.before_handshake, *(scenario.fresh_start if fresh else ())):
        play_bare(step, writer)
    cwd = cwd or os.getcwd()
    transcript = _open_transcript(args, env, cwd, writer)
    # The real CLI's order: --model, ANTHROPIC_MODEL, the resumed transcript's, its default.
    alias = args.value("--model") or env.get("ANTHROPIC_MODEL") or transcript.last_model
    model = resolve_model(alias or "default")
    sources = tuple(s for s in (args.value("--setting-sources") or "").split(",") if s)
    rules = Rules(config=config_dir(env), cwd=cwd, sources=sources)
    rules.load()
    state = SessionState(
        session_id=transcript.session_id,
        cwd=cwd,
        writer=writer,
        transcript=transcript,
        model=model,
        model_alias=alias,
        permission_mode=args.value("--permission-mode") or rules.default_mode() or "default",
        permission_prompt_tool=args.value("--permission-prompt-tool"),
        state_frames_host_only=_state_frames(env),
        replay_user_messages=args.has("--replay-user-messages"),
        partial_messages=args.has("--include-partial-messages"),
        rules=rules,
        effort=args.value("--effort"),
        agent=args.value("--agent"),
        fast=fast_state(env) != "off",
        ultracode=env.get(ULTRACODE_ENV) == "on" or rules.ultracode(),
        fast_off_reason=env.get(FAST_OFF_ENV) or None,
        checkpointing=env.get("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING") == "true",
        suggestion=(env.get(SUGGESTION_ENV) if args.has("--prompt-suggestions") else None),
        mcp_servers=local_controls.servers_from(args.value("--mcp-config")),
        disallowed_tools=frozenset(
            t for t in (args.value("--disallowedTools") or "").split(",") if t
        ),
        env=env,
    )
    registered = _register_live(env, transcript.session_id, cwd)
    inbox = Inbox()
    reader = StdinReader(state, inbox, scenario, env, stdin=stdin)
    threading.Thread(target=reader.run, name="scripted-claude-stdin", daemon=True).start()
    turn_index = transcript.prompt_count
    while (turn := inbox.next_turn()) is not None:
        # A message taken up mid-turn is a turn of the scenario whose script is not played.
        turn_index += play_turn(state, inbox, turn, script_for(scenario, turn_index, turn.content))
    transcript.close()
    if registered is not None:
        with contextlib.suppress(OSError):
            registered.unlink()
    record(env, "exit", session_id=transcript.session_id)
    return 1 if state.last_result_is_error else 0


def _register_live(env: Mapping[str, str], session_id: str, cwd: str) -> Path | None:
    """Claude Code's registry of live processes: `<config>/sessions/<pid>.json`, removed at an
    orderly exit (a process that dies leaves it behind, as the real one does)."""
    now = int(time.time() * 1000)
    entry = {
        "pid": os.getpid(),
        "sessionId": session_id,
        "cwd": cwd,
        "startedAt": now,
        "kind": "interactive",
        "entrypoint": env.get("CLAUDE_CODE_ENTRYPOINT") or "sdk-py",
        "status": "busy",
        "updatedAt": now,
        "statusUpdatedAt": now,
    }
    path = config_dir(env) / "sessions" / f"{os.getpid()}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(entry), encoding="utf-8")
    except OSError:
        return None
    return path
