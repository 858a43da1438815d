"""Randomized scenarios: `random:<seed>` builds each session's turn scripts from a seed.

Theory of operation: the scenario name `random:<seed>` is not in the scripted Claude's
`SCENARIOS` (the product does not ship it); its `main` finds this module through
`$CLAUDE_ACP_SCENARIO_MODULES` (`tests.support.scripted`) and asks `scenario_named` for it. The
k-th turn of session S plays `turn_plan(seed, S, k).script`, drawn from
`random.Random(f"{seed}:{S}:{k}")`, so every process that plays S (the first one and every
resumed replacement) agrees on it, each session differs, and a test that knows S can recompute
what its turns were. A turn is a few ordinary or odd steps (texts, thinking, tools, retries,
rate-limit events, garbage lines, frames of unknown or broken shapes, a model fallback) and one
ending: a result (success, API error, limit, refusal), or a way to end without one (SIGKILL,
exit 0 or 1, worker shutdown, going idle, hanging until interrupted (half of those ignoring
SIGTERM), closing stdout, a truncated line, dying at the prompt or right after the result, or a
320 KiB message). A new session's first process may also
die before the handshake (`handshake_fails`).

What it draws from (endings, errors, broken frames) is data in `random_tables.py`.

Imported by the fake CLI when it plays `random:<seed>`: standard library only.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

from adapter.scripted_claude.api_scenarios import api_failure
from adapter.scripted_claude.faults import hostile_text
from adapter.scripted_claude.steps import (
    ApiRetry,
    DieAtPrompt,
    Exit,
    Garbage,
    Hang,
    IgnoreSigterm,
    ModelRefusalFallback,
    NoResponse,
    RateLimitEvent,
    RawFrame,
    Reply,
    Result,
    Scenario,
    Sleep,
    Step,
    Text,
    Thinking,
    TurnScript,
)
from adapter.scripted_claude.texts import TEXTS
from tests.support.scripted.random_tables import (
    API_ERRORS,
    BROKEN_FRAMES,
    ENDINGS,
    FIXED_ENDINGS,
    HOSTILE_HOME,
    LIMITS,
    PERMISSION_CALL,
    TOOL_CALL,
)

__all__ = [
    "ENDINGS",
    "HOSTILE_HOME",
    "RANDOM_PREFIX",
    "TURNS_PLANNED",
    "TurnPlan",
    "handshake_fails",
    "random_scenario",
    "scenario_named",
    "turn_plan",
]

RANDOM_PREFIX = "random:"
# Turns with a drawn script; later turns of a session play the plain success turn.
TURNS_PLANNED = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnPlan:
    """One drawn turn: its ending's name and the script."""

    ending: str
    script: TurnScript


def _rng(seed: str, session_id: str, label: str) -> random.Random:
    return random.Random(f"{seed}:{session_id}:{label}")


def _prefix(rng: random.Random) -> list[Step]:
    steps: list[Step] = []
    attempt = 0
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3, 4))):
        pick = rng.random()
        if pick < 0.22:
            steps.append(Text(text=rng.choice(("Looking.", "Let me check the files.", "Hmm."))))
        elif pick < 0.30:
            steps.append(Thinking(thinking="Considering the request."))
        elif pick < 0.38:
            steps.append(TOOL_CALL)
        elif pick < 0.42:
            steps.append(PERMISSION_CALL)
        elif pick < 0.58:
            attempt += 1
            status = rng.choice((429, 529, 500, None, 401))
            steps.append(
                ApiRetry(
                    attempt=attempt,
                    max_retries=10,
                    retry_delay_ms=rng.choice((0, 500, 2000)),
                    error_status=status,
                    error=rng.choice(("rate_limit", "overloaded", "server_error", "unknown")),
                    no_response=None if status else NoResponse(waited_ms=30000, retry_wait_ms=500),
                )
            )
        elif pick < 0.64:
            steps.append(
                RateLimitEvent(status=rng.choice(("allowed", "allowed_warning", "rejected")))
            )
        elif pick < 0.72:
            steps.append(Garbage(line=rng.choice(("[SandboxDebug] not JSON", "", "   ", "plain"))))
        elif pick < 0.86:
            steps.append(RawFrame(frame=rng.choice(BROKEN_FRAMES)))
        elif pick < 0.92:
            steps.append(
                ModelRefusalFallback(
                    original_model="claude-opus-4-5",
                    fallback_model="claude-sonnet-4-5",
                    content=TEXTS["model_fallback"],
                    api_refusal_category="cyber",
                )
            )
        else:
            steps.append(Sleep(seconds=rng.choice((0.01, 0.05, 0.2))))
    return steps


def _ending(rng: random.Random, ending: str) -> TurnScript:
    fixed = FIXED_ENDINGS.get(ending)
    if fixed is not None:
        return fixed
    if ending in ("api_error", "hostile_error"):
        return _error_ending(rng, hostile=ending == "hostile_error")
    if ending == "limit":
        subtype, text, reason = rng.choice(LIMITS)
        return (
            Result(
                subtype=subtype,
                is_error=True,
                errors=(text,),
                terminal_reason=reason,
                stop_reason=None,
            ),
        )
    if ending == "hang":
        # Half of them ignore SIGTERM too: only SIGKILL stops those at the adapter's exit.
        return (IgnoreSigterm(), Hang()) if rng.random() < 0.5 else (Hang(),)
    raise ValueError(f"unknown ending {ending!r}")


def _error_ending(rng: random.Random, *, hostile: bool) -> TurnScript:
    status: int | None
    if hostile:
        # The fake's environment is the adapter's: its own API key, when it has one.
        key = os.environ.get("ANTHROPIC_API_KEY", "")
        kind, text, status = "server_error", hostile_text(HOSTILE_HOME, key), 500
    else:
        kind, text, status = rng.choice(API_ERRORS)
    return api_failure(kind, text, status)


def turn_plan(seed: str, session_id: str, turn_index: int) -> TurnPlan:
    """The drawn script of session `session_id`'s `turn_index`-th (0-based) turn."""
    if turn_index >= TURNS_PLANNED:
        return TurnPlan(ending="success", script=(Reply(), Result()))
    rng = _rng(seed, session_id, f"turn-{turn_index}")
    names = [name for name, _ in ENDINGS]
    weights = [weight for _, weight in ENDINGS]
    ending = rng.choices(names, weights)[0]
    if ending == "die_at_prompt":
        return TurnPlan(ending=ending, script=(DieAtPrompt(code=rng.choice((None, 0, 1))),))
    return TurnPlan(ending=ending, script=(*_prefix(rng), *_ending(rng, ending)))


def handshake_fails(seed: str, session_id: str) -> bool:
    """Whether the first process of a new session exits before the handshake (3 in 100)."""
    return _rng(seed, session_id, "handshake").random() < 0.03


def random_scenario(seed: str, session_id: str, *, resumed: bool) -> Scenario:
    before: TurnScript = ()
    if not resumed and handshake_fails(seed, session_id):
        before = (Exit(code=1),)
    return Scenario(
        name=f"{RANDOM_PREFIX}{seed}",
        description=f"Turns drawn from seed {seed!r} and the session id.",
        turns=tuple(turn_plan(seed, session_id, k).script for k in range(TURNS_PLANNED)),
        before_handshake=before,
    )


def scenario_named(name: str, *, session_id: str | None, resumed: bool) -> Scenario | None:
    """The parametric scenario `name` names (`random:<seed>`), or None."""
    if not name.startswith(RANDOM_PREFIX):
        return None
    return random_scenario(
        name.removeprefix(RANDOM_PREFIX), session_id or "no-session", resumed=resumed
    )
