"""The scripted Claude: a stand-in for Claude Code's CLI process, for `claude-acp demo` and
`claude-acp --simulate SCENARIO` (and the test double of the suite's end-to-end tiers).

It lets a person (or an editor under test) see what the adapter does with Claude's output,
failures included, without a Claude account: `python -m adapter.scripted_claude [flags...]`
speaks Claude Code's stream-json protocol on stdin/stdout (control handshake, turns,
`can_use_tool`, interrupts) and plays a named scenario chosen by `$CLAUDE_ACP_SCENARIO`: a list
of turn scripts made of the steps in `steps.py`. It keeps a session transcript where the real
CLI does, so `--resume` and `session/load` work. `write_launcher` makes an executable the SDK can
spawn as `cli_path`.

The product ships the player and the scenarios the demo lists and `--simulate` plays
(`scenarios.py`); a test suite's own scenarios stay with the suite and are found through
`$CLAUDE_ACP_SCENARIO_MODULES` (`scenarios.added_scenario`; this project's are in
`tests/support/scripted/`).

Everything under this package uses only the standard library, so the fake starts fast.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from adapter.scripted_claude.scenarios import (
    DEFAULT_SCENARIO,
    SCENARIO_ENV,
    SCENARIO_MODULES_ENV,
    SCENARIOS,
    added_scenario,
    scenario_modules,
    scenario_names,
)
from adapter.scripted_claude.steps import Scenario, Step, TurnScript
from adapter.scripted_claude.texts import TEXTS

__all__ = [
    "DEFAULT_SCENARIO",
    "SCENARIOS",
    "SCENARIO_ENV",
    "SCENARIO_MODULES_ENV",
    "TEXTS",
    "Scenario",
    "Step",
    "TurnScript",
    "scenario_names",
    "write_launcher",
]

# The directory that holds the `adapter` package, put on PYTHONPATH by the launcher so the
# fake starts even from an interpreter that did not install this project.
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def write_launcher(
    directory: Path, *, scenario: str | None = None, modules: str | None = None
) -> Path:
    """Write an executable `claude` script into `directory` and return its path.

    The script execs this interpreter on `-m adapter.scripted_claude` with all its arguments.
    With `scenario`, it also defaults `$CLAUDE_ACP_SCENARIO` to that name (an explicit
    environment value still wins). `modules` (default: this process's
    `$CLAUDE_ACP_SCENARIO_MODULES`) is written into the script, so that the process the SDK
    spawns from it finds those scenarios whatever environment it is given. Raises `KeyError`
    for an unknown scenario name.
    """
    if modules is None:
        modules = os.environ.get(SCENARIO_MODULES_ENV, "")
    listed = scenario_modules(modules)
    if scenario is not None and scenario not in SCENARIOS and not added_scenario(scenario, listed):
        raise KeyError(f"unknown scripted_claude scenario: {scenario!r}")
    directory.mkdir(parents=True, exist_ok=True)
    lines = [
        "#!/bin/sh",
        "# Scripted Claude Code CLI (adapter.scripted_claude): a test double, not Claude.",
        f'PYTHONPATH={shlex.quote(str(_PROJECT_ROOT))}${{PYTHONPATH:+:"$PYTHONPATH"}}',
        "export PYTHONPATH",
    ]
    if listed:
        lines.append(f"{SCENARIO_MODULES_ENV}={shlex.quote(','.join(listed))}")
        lines.append(f"export {SCENARIO_MODULES_ENV}")
    if scenario is not None:
        lines.append(f'{SCENARIO_ENV}="${{{SCENARIO_ENV}:-{scenario}}}"')
        lines.append(f"export {SCENARIO_ENV}")
    lines.append(f'exec {shlex.quote(sys.executable)} -m adapter.scripted_claude "$@"')
    path = directory / "claude"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path
