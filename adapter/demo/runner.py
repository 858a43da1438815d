"""`claude-acp demo [SCENARIO]`: watch what an ACP client receives, frame by frame.

Runs `python -m adapter --simulate SCENARIO` as a subprocess, drives it with the `acp` SDK's
real client over stdio, and prints every JSON-RPC frame in both directions as a readable
transcript (`frame_words.py` words each frame; `demo_client.py` is the client). Nothing here
talks to Claude's service.

Every scenario ends by itself: a prompt left unanswered is cancelled by the client (after a
few seconds in a scenario whose Claude hangs, showing the stall warning and the cancel).

Exit status: 0 the scenario played out (the failures it shows are the point), 1 the agent
stopped answering or closed the connection, 2 an unknown scenario or bad arguments, 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
from asyncio.subprocess import DEVNULL
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import anyio

from adapter.demo.demo_client import DemoClient, open_session
from adapter.demo.frame_words import describe_frame
from adapter.demo.scenario_groups import declares_air

if TYPE_CHECKING:
    from collections.abc import Callable

    from acp.connection import StreamEvent
    from acp.interfaces import Client

__all__ = ["describe_frame", "main", "play"]

DEFAULT_PROMPTS = ("Summarize what this project does.", "Try again, please.")


# A scenario's own prompts, where the defaults would not show it; `WAIT_FOR_RESET` waits (a
# bounded while) for the record that says a usage limit has reset, as a user would.
WAIT_FOR_RESET = "(wait for the limit to reset)"
RESET_WAIT_SECONDS = 10.0
# `WAIT_FOR_IDLE` leaves the session idle (the delay cut to `IDLE_DELAY_MS`) until the
# adapter's own `/compact` has ended (a bounded while), as a user away from the editor would.
WAIT_FOR_IDLE = "(leave the session idle until it compacts itself)"
IDLE_DELAY_MS = "1000"
# `RELOAD` closes the session and loads it again, as an editor reopened on it does: its history
# is replayed.
RELOAD = "(close the session and open it again)"
# A prompt that starts with `STEER` is no prompt: it is sent with `_session/steering` a moment
# after the prompt before it started, while Claude still works on that one.
STEER = "(steer) "
STEER_AFTER_SECONDS = 1.0
_IDLE_PROMPTS = ("Read the whole codebase.", WAIT_FOR_IDLE, "Now fix the bug.")
SCENARIO_PROMPTS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("idle_compaction", "idle_compaction_slow", "idle_compaction_fails"), _IDLE_PROMPTS
    ),
    "background_subagent": (
        "Audit the parser in the background and tell me what it finds.",
        "Format the file.",
        f"{STEER}Use tabs, not spaces.",
    ),
    "remote_control": (
        "/remote-control",
        "Summarize what this project does.",
        "/remote-control off",
    ),
    "air_subagents": ("Where is the input parsed?",),
    "air_subagent_config": ("Have the parser change reviewed.",),
    "rename_typed": ("Fix the flaky login test, please.", "/rename Login test fixes", "Thanks."),
    "reloaded_history": ("/model opus", "Tidy the notes, please.", RELOAD, "Thanks."),
    "usage_limit_resets": (
        "Summarize what this project does.",
        "Which tests cover it?",
        "Add a test for the parser.",
        "Try again, please.",
        WAIT_FOR_RESET,
        "Try again now.",
    ),
}


# A scenario that hangs is cancelled after this long: enough to see the stall warning first.
HANG_CANCEL_SECONDS = 6.0
HANG_STALL_SECONDS = 2.0
# Any other prompt is cancelled only if something is wrong: a bound, not an expected path.
CANCEL_SECONDS = 60.0
# How long a cancelled prompt may take to answer before the demo gives up on the agent.
ANSWER_AFTER_CANCEL_SECONDS = 30.0
# How long the adapter may take to exit once its input ends, before it is signalled: its orderly
# exit (Claude stopped, SIGKILL after 2 s) can outlast acp's default 2 s on a busy machine, and
# signalling it then races its exit (a ProcessLookupError traceback).
ADAPTER_EXIT_SECONDS = 30.0


def _hangs(scenario: str) -> bool:
    """True when the scenario's Claude goes silent until interrupted (the demo must cancel)."""
    from adapter.scripted_claude import SCENARIOS
    from adapter.scripted_claude.steps import Hang

    turns = SCENARIOS[scenario].turns
    return any(isinstance(step, Hang) for turn in turns for step in turn)


class _UpdatesAcpCannotRead(logging.Filter):
    """Drops `acp`'s complaint about a session update its schema has no model for (JetBrains
    AIR's `subagent_spawned`, `async_task_*`): the demo prints every frame from the wire, so
    nothing is lost, and the complaint is a traceback that is not the agent's fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        from pydantic import ValidationError

        error = record.exc_info[1] if record.exc_info else None
        unread = isinstance(error, ValidationError) and "session/update" in record.getMessage()
        return not unread


class AgentGaveUp(Exception):
    """The agent ended the demo early: an error answer to setup, or no answer at all."""


async def _prompt(
    conn: Any, session_id: str, text: str, *, cancel_after: float, out: IO[str]
) -> None:
    """Send one prompt and wait for its answer, cancelling the turn if none comes in time.

    The prompt is a task of this call's own task group: it never outlives the call (a prompt
    given up on is cancelled before `AgentGaveUp` is raised), and its failure is raised here.
    """
    import acp

    answered = anyio.Event()
    failures: list[Exception] = []

    async def ask() -> None:
        try:
            await conn.prompt(session_id=session_id, prompt=[acp.text_block(text)])
        except acp.RequestError:
            pass  # an error answer was already printed from the wire; the next prompt runs
        except Exception as exc:  # the connection ended: raised by `_prompt` itself, below
            failures.append(exc)
        finally:
            answered.set()

    gave_up = False
    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        with anyio.move_on_after(cancel_after):
            await answered.wait()
        if not answered.is_set():
            print(
                f"(no answer after {cancel_after:g} s: the client cancels the turn)",
                file=out,
                flush=True,
            )
            await conn.cancel(session_id=session_id)
            with anyio.move_on_after(ANSWER_AFTER_CANCEL_SECONDS):
                await answered.wait()
            gave_up = not answered.is_set()
            tg.cancel_scope.cancel()  # the prompt, if it is still waiting
    if gave_up:
        raise AgentGaveUp(
            f"the agent did not answer the cancelled prompt within "
            f"{ANSWER_AFTER_CANCEL_SECONDS:g} s"
        )
    if failures:
        raise failures[0]


def _observer(out: IO[str], log: IO[str] | None) -> Callable[[StreamEvent], None]:
    """Prints every frame as it passes (and logs it raw to `log`)."""
    methods: dict[Any, str] = {}

    def observe(event: StreamEvent) -> None:
        direction = event.direction.value
        if log is not None:
            log.write(json.dumps({"direction": direction, "message": event.message}) + "\n")
        for line in describe_frame(direction, event.message, methods):
            print(line, file=out, flush=True)

    return observe


async def _steered(
    conn: Any, session_id: str, text: str, steer: str, cancel_after: float, out: IO[str]
) -> None:
    """`text` as a prompt, and while Claude works on it, `steer` as a steering message."""
    words = steer.removeprefix(STEER)
    async with anyio.create_task_group() as tg:
        tg.start_soon(partial(_prompt, conn, session_id, text, cancel_after=cancel_after, out=out))
        await anyio.sleep(STEER_AFTER_SECONDS)
        print(f"(while Claude works, the user steers it: {words!r})", file=out, flush=True)
        answer = await conn.ext_method(
            "session/steering",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": words}]},
        )
        print(f"(steering: {answer.get('outcome')})", file=out, flush=True)


# What Claude Code keeps in a transcript beside the conversation (what a load must not show).
_PLUMBING = (
    "<command-name>",
    "<local-command-stdout>",
    "<system-reminder>",
    "<task-notification>",
)


def _plumbing_kept(env: dict[str, str], session_id: str) -> str:
    """A line saying which of Claude Code's markers the session's transcript holds."""
    found = Path(env["CLAUDE_CONFIG_DIR"], "projects").glob(f"*/{session_id}.jsonl")
    text = "".join(path.read_text(encoding="utf-8", errors="replace") for path in found)
    counts = [f"{marker} \u00d7{text.count(marker)}" for marker in _PLUMBING if marker in text]
    held = ", ".join(counts) if counts else "none of them"
    return f"(Claude Code's transcript of it holds its own markers: {held})"


async def run_demo(
    scenario: str,
    prompts: list[str],
    *,
    capable: bool,
    out: IO[str],
    log: IO[str] | None,
    cancel_after: float | None = None,
) -> int:
    """Play `scenario` with `prompts`; 0 when it played out (failures shown are the point)."""
    observe = _observer(out, log)
    quiet = _UpdatesAcpCannotRead()
    logging.getLogger().addFilter(quiet)
    try:
        return await _run_demo(
            scenario, prompts, capable=capable, out=out, observe=observe, cancel_after=cancel_after
        )
    finally:
        logging.getLogger().removeFilter(quiet)


async def _run_demo(
    scenario: str,
    prompts: list[str],
    *,
    capable: bool,
    out: IO[str],
    observe: Callable[[StreamEvent], None],
    cancel_after: float | None,
) -> int:
    import acp

    hangs = _hangs(scenario)
    if cancel_after is None:
        cancel_after = HANG_CANCEL_SECONDS if hangs else CANCEL_SECONDS
    with tempfile.TemporaryDirectory(prefix="claude-acp-demo-") as scratch:
        workdir = Path(scratch) / "project"
        workdir.mkdir()
        env = {"CLAUDE_CONFIG_DIR": str(Path(scratch) / "claude-config")}
        if hangs:
            # Show the stall warning a silent Claude earns before the client gives up.
            env["CLAUDE_ACP_STALL_SECONDS"] = str(HANG_STALL_SECONDS)
        if WAIT_FOR_IDLE in prompts:
            env["CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS"] = IDLE_DELAY_MS
        client = DemoClient()
        async with acp.spawn_agent_process(
            # acp's Client protocol lists every client method; the demo needs only these two.
            cast("Client", client),
            sys.executable,
            "-m",
            "adapter",
            "--simulate",
            scenario,
            env=env,
            transport_kwargs={"stderr": DEVNULL, "shutdown_timeout": ADAPTER_EXIT_SECONDS},
            observers=[observe],
            use_unstable_protocol=True,  # elicitation/create is in acp's unstable set
        ) as (conn, _process):
            air = declares_air(scenario)
            session_id = await open_session(conn, workdir, capable=capable, out=out, air=air)
            if session_id is None:
                return 0
            for index, text in enumerate(prompts):
                if text.startswith(STEER):
                    continue  # sent while the prompt before it runs
                following = prompts[index + 1] if index + 1 < len(prompts) else ""
                if following.startswith(STEER):
                    print("", file=out)
                    await _steered(conn, session_id, text, following, cancel_after, out)
                    continue
                print("", file=out)
                if text == RELOAD:
                    print(text, file=out, flush=True)
                    print(_plumbing_kept(env, session_id), file=out, flush=True)
                    await conn.close_session(session_id=session_id)
                    await conn.load_session(cwd=str(workdir), session_id=session_id, mcp_servers=[])
                    continue
                if text in (WAIT_FOR_RESET, WAIT_FOR_IDLE):
                    print(text, file=out, flush=True)
                    done = client.limit_reset if text == WAIT_FOR_RESET else client.compacted
                    with anyio.move_on_after(RESET_WAIT_SECONDS):
                        await done.wait()
                    continue
                await _prompt(conn, session_id, text, cancel_after=cancel_after, out=out)
    return 0


async def play(
    scenario: str,
    *,
    out: IO[str],
    err: IO[str],
    prompts: list[str] | None = None,
    capable: bool = True,
    log: IO[str] | None = None,
    cancel_after: float | None = None,
) -> int:
    """`claude-acp demo SCENARIO` past its arguments: the heading, the frames, and 1 with a
    `stopped` line on `err` when the agent gave up (tests/e2e/test_demo.py plays them all)."""
    prompts = prompts or list(SCENARIO_PROMPTS.get(scenario, DEFAULT_PROMPTS))
    mode = "client opts in to sessionFailure" if capable else "legacy client"
    if capable and declares_air(scenario):
        mode = "JetBrains AIR client declaring the AIR set"
    print(f"claude-acp demo: scenario {scenario}, {mode}\n", file=out, flush=True)
    try:
        return await run_demo(
            scenario, prompts, capable=capable, out=out, log=log, cancel_after=cancel_after
        )
    except (AgentGaveUp, ConnectionError) as exc:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # Ctrl-C also stopped the adapter (one process group), whose pipe may break first:
            # asyncio.run turns its cancel into KeyboardInterrupt (130) only if it reaches it.
            raise asyncio.CancelledError from exc
        print(f"claude-acp demo: stopped: {exc}", file=err)
        return 1


def _listing() -> str:
    from adapter.demo.scenario_groups import listing
    from adapter.scripted_claude import SCENARIOS

    return listing({name: s.description for name, s in SCENARIOS.items()})


def _parser() -> argparse.ArgumentParser:
    from adapter.scripted_claude import DEFAULT_SCENARIO

    parser = argparse.ArgumentParser(
        prog="claude-acp demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "scenario",
        nargs="?",
        default=DEFAULT_SCENARIO,
        help=f"a scenario from --list (default: {DEFAULT_SCENARIO})",
    )
    parser.add_argument("--legacy", action="store_true", help="a client that does not opt in")
    parser.add_argument(
        "--prompt", action="append", dest="prompts", metavar="TEXT", help="a prompt to send"
    )
    parser.add_argument("--list", action="store_true", help="describe the scenarios and exit")
    parser.add_argument(
        "--log", type=Path, metavar="FILE", help="also write the raw wire log (JSON lines)"
    )
    parser.add_argument(
        "--cancel-after",
        type=float,
        metavar="SECONDS",
        help=f"cancel a prompt left unanswered this long (default: {HANG_CANCEL_SECONDS:g} "
        f"for a scenario that hangs, otherwise {CANCEL_SECONDS:g})",
    )
    return parser


def main(argv: list[str]) -> int:
    from adapter.scripted_claude import scenario_names

    args = _parser().parse_args(argv)
    if args.list:
        print(_listing())
        return 0
    if args.scenario not in scenario_names():
        print(f"unknown scenario {args.scenario!r}; --list shows them", file=sys.stderr)
        return 2
    # Under load, asyncio's child watcher sometimes finds the adapter already reaped and warns
    # "Unknown child process pid ..." although nothing went wrong; the demo's output is for a
    # person, so only asyncio's errors reach it.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    # The demo is an ACP client: its schema models are built as they are used, as the adapter's
    # are (adapter/lean_imports.py), not all 273 at import (about 0.6 s of every demo's CPU).
    from adapter.lean_imports import prepare_acp_schema

    prepare_acp_schema()
    log = args.log.open("w", encoding="utf-8") if args.log else None
    try:
        return asyncio.run(
            play(
                args.scenario,
                out=sys.stdout,
                err=sys.stderr,
                prompts=args.prompts,
                capable=not args.legacy,
                log=log,
                cancel_after=args.cancel_after,
            )
        )
    except KeyboardInterrupt:
        return 130  # Ctrl-C: the user knows why it stopped; no traceback
    finally:
        if log is not None:
            log.close()
