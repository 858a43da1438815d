"""`claude-acp demo`: every scenario ends by itself, without a traceback (issue 16).

Each demo is a few seconds of subprocesses (the demo, the adapter, the scripted Claude); they run
a few at a time, each in its own scratch folder (the demo makes one), so the test is safe beside
other tests and bounded on a two-core machine.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from adapter.demo.runner import HANG_CANCEL_SECONDS, WAIT_FOR_IDLE
from adapter.scripted_claude import SCENARIOS, scenario_names

ROOT = Path(__file__).resolve().parents[2]
# The adapter's own settings from the developer's shell (a log level, a log file) stay out.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_ACP_")}
# A bound on a hang, never a speed assertion: a demo is 2 prompts, the slowest cancels after 6 s.
DEMO_TIMEOUT = 180
PARALLEL = 3


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


def test_list_names_and_describes_every_scenario() -> None:
    done = _demo("--list")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == scenario_names()
    for line, scenario in zip(lines, SCENARIOS.values(), strict=True):
        assert scenario.description and line.endswith("  " + scenario.description)


@pytest.fixture(scope="module")
def every_demo() -> dict[str, subprocess.CompletedProcess[str]]:
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        return dict(zip(scenario_names(), pool.map(_demo, scenario_names()), strict=True))


@pytest.mark.parametrize("name", scenario_names())
def test_every_scenario_ends_cleanly(
    every_demo: dict[str, subprocess.CompletedProcess[str]], name: str
) -> None:
    done = every_demo[name]
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode == 0, (done.stderr, done.stdout[-2000:])
    # Nothing but the frames: no "stopped" line, no error logged.
    assert "claude-acp demo: stopped" not in done.stderr and " ERROR " not in done.stderr
    assert done.stdout.startswith(f"claude-acp demo: scenario {name},")
    assert "client \u2192 agent  initialize" in done.stdout


def test_a_hang_is_cancelled_by_the_client_after_a_stall_warning(
    every_demo: dict[str, subprocess.CompletedProcess[str]],
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
    every_demo: dict[str, subprocess.CompletedProcess[str]],
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
    every_demo: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    out = every_demo["idle_compaction"].stdout
    idle = out.index(WAIT_FOR_IDLE)
    card = out.index("tool_call: Compact conversation (think) [in_progress]", idle)
    assert card < out.index("tool_call_update: [completed]", card)
    assert out.index('session/prompt: "Now fix the bug."', card) > card


def test_a_claude_that_never_starts_ends_the_demo_with_a_clear_line(
    every_demo: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    out = every_demo["exit_before_handshake"].stdout
    assert "session/new error -32603" in out
    assert out.rstrip().endswith("(the agent could not start a session: the demo ends here)")


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
