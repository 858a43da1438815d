"""`claude-acp demo`: every scenario ends by itself, without a traceback.

Every scenario is played by the demo's own client code (`adapter.demo.runner.play`, what the
command runs past its arguments) inside this test's process, a few at a time, each against its
own real `python -m adapter --simulate NAME` subprocess (which spawns its scripted Claude) in its
own scratch folder: a demo process per scenario would cost 81 more Python starts for the same
frames. What the command adds around `play` (its arguments, its exit status, Ctrl-C) is tested
through the command itself below.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import os
import re
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from adapter.demo.runner import HANG_CANCEL_SECONDS, WAIT_FOR_IDLE, play
from adapter.demo.scenario_groups import GROUPS
from adapter.scripted_claude import DEFAULT_SCENARIO, SCENARIOS, scenario_names

ROOT = Path(__file__).resolve().parents[2]
# The adapter's own settings from the developer's shell (a log level, a log file) stay out.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_ACP_")}
# A bound on a hang, never a speed assertion: a demo is 2 prompts, the slowest cancels after 6 s.
DEMO_TIMEOUT = 180
PARALLEL = 4


def _demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "adapter", "demo", *args],
        cwd=ROOT,
        env=CLEAN_ENV,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )


def test_list_names_and_describes_every_scenario_in_its_group() -> None:
    done = _demo("--list")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    headings = [line[:-1] for line in lines if line and not line.startswith(" ")]
    assert headings == [heading for heading, _ in GROUPS]  # no "Other": every one is grouped
    listed = [line.split()[0] for line in lines if line.startswith("  ")]
    assert sorted(listed) == sorted(scenario_names()) and len(set(listed)) == len(listed)
    for line in (line for line in lines if line.startswith("  ")):
        scenario = SCENARIOS[line.split()[0]]
        assert scenario.description and line.endswith("  " + scenario.description)
    # Each group names only scenarios that exist, each once.
    grouped = [name for _, names in GROUPS for name in names]
    assert sorted(grouped) == sorted(scenario_names())


@dataclass(frozen=True, slots=True)
class Played:
    """One scenario's demo as its command would have shown it: exit status, stdout, stderr."""

    returncode: int
    stdout: str
    stderr: str


# The stderr of the scenario whose task is running: log lines (and tracebacks) land with the
# scenario that caused them, as they would in a demo process of its own.
_SCENARIO_STDERR: contextvars.ContextVar[io.StringIO] = contextvars.ContextVar("stderr")


class _ToScenarioStderr(logging.Handler):
    """Warnings and errors logged in this process, in full (level, logger, traceback), written to
    the stderr of the scenario being played, or kept in `outside` when none is."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.outside: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record)
        stderr = _SCENARIO_STDERR.get(None)
        if stderr is None:
            self.outside.append(line)
        else:
            stderr.write(line + "\n")


async def _play(name: str, gate: asyncio.Semaphore) -> Played:
    async with gate:
        out, err = io.StringIO(), io.StringIO()
        _SCENARIO_STDERR.set(err)  # this task's own context (and its children's)
        try:
            code = await asyncio.wait_for(play(name, out=out, err=err), DEMO_TIMEOUT)
        except Exception:  # what a demo process would have died of, traceback and all
            err.write(traceback.format_exc())
            code = 1
        return Played(code, out.getvalue(), err.getvalue())


async def _play_every_scenario() -> dict[str, Played]:
    gate = asyncio.Semaphore(PARALLEL)
    played = await asyncio.gather(*(_play(name, gate) for name in scenario_names()))
    return dict(zip(scenario_names(), played, strict=True))


@pytest.fixture(scope="module")
def demo_logs() -> Iterator[_ToScenarioStderr]:
    handler = _ToScenarioStderr()
    root, quiet = logging.getLogger(), logging.getLogger("asyncio")
    saved = quiet.level
    # As the command does: asyncio's child watcher may warn of a child reaped early under load.
    quiet.setLevel(logging.ERROR)
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        quiet.setLevel(saved)


@pytest.fixture(scope="module")
def every_demo(demo_logs: _ToScenarioStderr) -> dict[str, Played]:
    return asyncio.run(_play_every_scenario())


@pytest.mark.parametrize("name", scenario_names())
def test_every_scenario_ends_cleanly(every_demo: dict[str, Played], name: str) -> None:
    done = every_demo[name]
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode == 0, (done.stderr, done.stdout[-2000:])
    # Nothing but the frames: no "stopped" line, no error logged.
    assert "claude-acp demo: stopped" not in done.stderr and " ERROR " not in done.stderr
    assert done.stdout.startswith(f"claude-acp demo: scenario {name},")
    assert "client \u2192 agent  initialize" in done.stdout


@pytest.mark.parametrize("name", scenario_names())
def test_every_update_line_says_what_the_update_holds(
    every_demo: dict[str, Played], name: str
) -> None:
    # Words for each update: no "(None)" for a field it did not send, no bare kind.
    lines = every_demo[name].stdout.splitlines()
    assert [line for line in lines if "(None)" in line] == []
    bare = [line for line in lines if re.fullmatch(r".*session/update [a-z_]+", line)]
    assert bare == []


def test_a_hang_is_cancelled_by_the_client_after_a_stall_warning(
    every_demo: dict[str, Played],
) -> None:
    out = every_demo["hang"].stdout
    cancel = out.index(f"(no answer after {HANG_CANCEL_SECONDS:g} s: the client cancels the turn)")
    assert out.index("sessionFailure warning / connection") < cancel
    assert out.index("client \u2192 agent  session/cancel", cancel) < out.index(
        "session/prompt \u2192 stopReason cancelled", cancel
    )
    # The second prompt still gets its answer after the cancelled one.
    assert out.rstrip().endswith("session/prompt \u2192 stopReason end_turn")


def test_claude_asks_a_question_and_the_demo_client_answers_it(
    every_demo: dict[str, Played],
) -> None:
    out = every_demo["ask_question"].stdout
    asked = out.index(
        'agent \u2192 client  elicitation/create: "Which database should the app use?"'
    )
    answered = out.index(
        'client \u2192 agent  elicitation/create \u2192 accept {"question_0": "Postgres"}', asked
    )
    # Claude heard the answer, then the turn ended.
    heard = out.index("You answered:", answered)
    assert heard < out.index("session/prompt \u2192 stopReason end_turn", heard)


def test_a_session_left_idle_compacts_itself_between_the_prompts(
    every_demo: dict[str, Played],
) -> None:
    out = every_demo["idle_compaction"].stdout
    idle = out.index(WAIT_FOR_IDLE)
    card = out.index("tool_call: Compact conversation (think) [in_progress]", idle)
    assert card < out.index("tool_call_update: [completed]", card)
    assert out.index('session/prompt: "Now fix the bug."', card) > card


def test_a_claude_that_never_starts_ends_the_demo_with_a_clear_line(
    every_demo: dict[str, Played],
) -> None:
    out = every_demo["exit_before_handshake"].stdout
    assert "session/new error -32603" in out
    assert out.rstrip().endswith("(the agent could not start a session: the demo ends here)")


def test_nothing_is_logged_outside_a_scenario(
    every_demo: dict[str, Played], demo_logs: _ToScenarioStderr
) -> None:
    assert every_demo and demo_logs.outside == []


def test_the_command_plays_a_scenario_as_play_does() -> None:
    done = _demo(DEFAULT_SCENARIO)
    assert (done.returncode, done.stderr) == (0, ""), done.stdout[-2000:]
    assert "Traceback" not in done.stdout
    assert done.stdout.startswith(
        f"claude-acp demo: scenario {DEFAULT_SCENARIO}, client opts in to sessionFailure\n\n"
    )
    assert "client \u2192 agent  initialize" in done.stdout
    assert done.stdout.rstrip().endswith("session/prompt \u2192 stopReason end_turn")


def test_unknown_scenario_is_a_usage_error() -> None:
    done = _demo("no_such_scenario")
    assert done.returncode == 2 and "--list" in done.stderr and "Traceback" not in done.stderr


def test_ctrl_c_during_a_demo_exits_130_quietly() -> None:
    # Ctrl-C in a terminal signals the whole foreground process group: the demo, the adapter
    # and the scripted Claude. A new session stands in for that group.
    process = subprocess.Popen(
        [sys.executable, "-m", "adapter", "demo", "hang", "--cancel-after", "600"],
        cwd=ROOT,
        env=CLEAN_ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        seen = []
        for line in process.stdout:  # the turn is running once Claude's first text arrived
            seen.append(line)
            if "agent_message_chunk" in line:
                break
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=DEMO_TIMEOUT)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert any("agent_message_chunk" in line for line in seen)
    assert process.returncode == 130
    assert err == "" and "Traceback" not in out


# Ctrl-C stops the adapter too (one process group); when its pipe breaks before the demo's
# cancel lands, the broken connection is Ctrl-C's doing, not the agent's. Played here with a
# demo whose connection breaks exactly then, deterministically.
CTRL_C_RACE = """
import asyncio, os, signal, sys
from adapter.demo import runner

async def connection_breaks_while_cancelled(*args, **kwargs):
    asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signal.SIGINT)
    try:
        await asyncio.sleep(60)
    finally:
        raise ConnectionError("the adapter closed the connection")

runner.run_demo = connection_breaks_while_cancelled
sys.exit(runner.main(["success"]))
"""


def test_ctrl_c_that_breaks_the_connection_first_still_exits_130_quietly() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_RACE],
        cwd=ROOT,
        env=CLEAN_ENV,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (130, ""), done.stdout
    assert done.stdout.startswith("claude-acp demo: scenario success,")


def test_a_reloaded_session_replays_without_claude_codes_plumbing() -> None:
    """`reloaded_history`: `/model opus` typed, a turn whose transcript holds a reminder, a
    task's notice and a custom command, then the session closed and loaded again through the
    real stdio agent: the history it replays has the user's words and none of Claude Code's
    markers, and the session is named as it was live."""
    out, err = io.StringIO(), io.StringIO()
    code = asyncio.run(asyncio.wait_for(play("reloaded_history", out=out, err=err), DEMO_TIMEOUT))
    assert code == 0, err.getvalue()
    before, _, after = out.getvalue().partition("(close the session and open it again)")
    kept = after.splitlines()[1]
    for marker in ("<command-name> \u00d72", "<local-command-stdout> \u00d71", "<system-reminder>"):
        assert marker in kept, kept
    replayed = after.split("session/load\n", 1)[1].split("session/load \u2192 ok", 1)[0]
    said = [
        line.split(": ", 1)[1] for line in replayed.splitlines() if "user_message_chunk" in line
    ]
    assert said == ['"Tidy the notes, please."', '"/review the diff"'], replayed
    assert "<" not in replayed and "Set model to" not in replayed, replayed
    assert 'title "Tidy the notes, please."' in replayed
    assert "config_option_update" in before and "model=opus" in before  # the live `/model`
