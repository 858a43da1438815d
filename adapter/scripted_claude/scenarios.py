"""The shipped scenarios, one per failure the adapter has to map, plus a few happy paths.

Theory of operation: each entry is data (see `steps.py`); Claude's texts live in `texts.py`, so
titles derived from them look like the real CLI's. Turn 2 and later of every scenario play the
plain success turn unless the scenario scripts more turns. Two scenarios go beyond the brief:
`idle_without_result` (a turn that goes idle with no result while the process stays up) and
`close_stdout` (stdout closes, the process lingers, then exits 0). This module is the registry;
the API-failure scenarios live in `api_scenarios.py`, the rest in the `*_scenarios.py` modules.

The shipped ones are what `claude-acp demo` lists (`adapter/demo/scenario_groups.py`) and
`--simulate` plays. A test suite adds its own without shipping them: the scripted Claude also
looks a name up in the modules that `$CLAUDE_ACP_SCENARIO_MODULES` lists (dotted names,
comma-separated), each holding `SCENARIOS` (a sequence of `Scenario`) and, for parametric names,
`scenario_named(name, *, session_id, resumed)`. This project's own (the seeded random sessions,
`random:<seed>`) are in `tests/support/scripted/`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from adapter.scripted_claude.air_scenarios import AIR_SCENARIOS
from adapter.scripted_claude.api_scenarios import (
    API_SCENARIOS,
    DEFAULT_SCENARIO,
    LIST_FILES,
    api_failure,
    single_turn,
)
from adapter.scripted_claude.asking_scenarios import ASKING_SCENARIOS
from adapter.scripted_claude.background_scenarios import BACKGROUND_SCENARIOS
from adapter.scripted_claude.coding import CODING_SCENARIOS
from adapter.scripted_claude.faults import FAULT_SCENARIOS
from adapter.scripted_claude.heavy_scenarios import HEAVY_SCENARIOS
from adapter.scripted_claude.idle_scenarios import IDLE_SCENARIOS
from adapter.scripted_claude.limits import LIMIT_SCENARIOS
from adapter.scripted_claude.mcp_scenarios import MCP_SCENARIOS
from adapter.scripted_claude.notice_scenarios import NOTICE_SCENARIOS
from adapter.scripted_claude.plan_scenarios import PLAN_SCENARIOS
from adapter.scripted_claude.session_scenarios import SESSION_SCENARIOS
from adapter.scripted_claude.state_scenarios import STATE_SCENARIOS
from adapter.scripted_claude.steps import (
    CloseStdout,
    Exit,
    Garbage,
    Hang,
    Permission,
    Reply,
    Result,
    Scenario,
    Sleep,
    Stderr,
    Text,
    Thinking,
)

__all__ = [
    "DEFAULT_SCENARIO",
    "SCENARIOS",
    "SCENARIO_ENV",
    "SCENARIO_MODULES_ENV",
    "added_scenario",
    "api_failure",
    "scenario_modules",
    "scenario_names",
]

# The environment variable the fake reads its scenario from (default: "success").
SCENARIO_ENV = "CLAUDE_ACP_SCENARIO"
# Modules holding more scenarios than the shipped ones (a test suite's own), comma-separated.
SCENARIO_MODULES_ENV = "CLAUDE_ACP_SCENARIO_MODULES"


_one = single_turn


_ALL: tuple[Scenario, ...] = (
    _one("success", "A plain successful turn.", (Reply(), Result())),
    _one(
        "thinking_and_tools",
        "Thinking, one Bash tool call with its result, then the answer.",
        (
            Thinking(thinking="The user wants to know what is here. I'll list the files."),
            LIST_FILES,
            Text(text="The directory holds README.md, src and tests."),
            Result(),
        ),
    ),
    _one(
        "permission",
        "A Bash call that needs the client's permission (can_use_tool).",
        (
            Permission(
                tool_name="Bash",
                input={"command": "rm -rf build", "description": "Remove the build directory"},
                result="",
            ),
            Result(),
        ),
    ),
    *API_SCENARIOS,
    _one(
        "garbage",
        "A non-JSON line, a broken JSON line, then exit 1.",
        (
            Garbage(line="[SandboxDebug] this line is not JSON"),
            Garbage(line='{"type": "assistant", "message": {'),
            Exit(code=1),
        ),
    ),
    _one(
        "hang",
        "A text, then nothing until interrupted (or stdin closes).",
        (Text(text="Let me think about this for a while."), Hang()),
    ),
    Scenario(
        name="exit_before_handshake",
        description="Exit 1 before answering initialize.",
        before_handshake=(
            Stderr(line="Error: scripted start-up failure"),
            Exit(code=1),
        ),
    ),
    _one(
        "idle_without_result",
        "A text, then the turn goes idle without a result (the process stays up).",
        (Text(text="Here is the first part of the answer."),),
    ),
    _one(
        "close_stdout",
        "A text, then stdout closes while the process lingers 2 s before exiting 0.",
        (Text(text="Working on it."), CloseStdout(), Sleep(seconds=2.0), Exit(code=0)),
    ),
    _one(
        "close_stdout_and_linger",
        "A text, then stdout closes and the process stays alive (10 minutes) without output.",
        (Text(text="Working on it."), CloseStdout(), Sleep(seconds=600.0), Exit(code=0)),
    ),
)

# The fault scenarios (faults.py) are registered beside the shipped ones.
_ALL = (
    *_ALL,
    *FAULT_SCENARIOS,
    *SESSION_SCENARIOS,
    *PLAN_SCENARIOS,
    *CODING_SCENARIOS,
    *LIMIT_SCENARIOS,
    *ASKING_SCENARIOS,
    *AIR_SCENARIOS,
    *MCP_SCENARIOS,
    *STATE_SCENARIOS,
    *NOTICE_SCENARIOS,
    *HEAVY_SCENARIOS,
    *IDLE_SCENARIOS,
    *BACKGROUND_SCENARIOS,
)

SCENARIOS: Mapping[str, Scenario] = MappingProxyType({s.name: s for s in _ALL})


def scenario_names() -> list[str]:
    """Every shipped scenario name, in definition order."""
    return list(SCENARIOS)


def _check_unique() -> None:
    # A duplicate name would silently shadow a scenario in the mapping above.
    if len(SCENARIOS) != len(_ALL):
        raise RuntimeError("duplicate scenario name in scripted_claude.scenarios")


_check_unique()


def scenario_modules(value: str | None) -> tuple[str, ...]:
    """The module names a `$CLAUDE_ACP_SCENARIO_MODULES` value lists."""
    return tuple(name.strip() for name in (value or "").split(",") if name.strip())


def added_scenario(
    name: str, modules: Sequence[str], *, session_id: str | None = None, resumed: bool = False
) -> Scenario | None:
    """The scenario `name` from one of `modules` (see the module's docstring), or None."""
    for module_name in modules:
        module = importlib.import_module(module_name)
        for scenario in getattr(module, "SCENARIOS", ()):
            if isinstance(scenario, Scenario) and scenario.name == name:
                return scenario
        named = getattr(module, "scenario_named", None)
        found = named(name, session_id=session_id, resumed=resumed) if named else None
        if isinstance(found, Scenario):
            return found
    return None
