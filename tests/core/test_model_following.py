"""When the model picker follows a switch Claude Code made itself, and the window a model's
words promise (`fsm.pickers.model_following`)."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import (
    ONE_MILLION_WINDOW,
    fallback_moves_session,
    model_switch_to_follow,
    seeded_context_window,
)


def _switch(**fields: Any) -> dict[str, Any]:
    return {"hook_event_name": "PostModelSwitch", "to_model": "opus", **fields}


@pytest.mark.parametrize("source", ["command", "picker", "auto", None])
def test_a_switch_claude_code_made_is_followed(source: str | None) -> None:
    assert model_switch_to_follow(_switch(source=source)) == "opus"


@pytest.mark.parametrize(
    "hook_input",
    [
        _switch(source="sdk"),  # the adapter's own: the picker moved already
        _switch(source="resume"),  # read from the transcript before the session opened
        _switch(source="command", agent_id="a1"),  # a subagent's model
        _switch(source="command", to_model=""),
        _switch(source="command", to_model="  "),
        _switch(source="command", to_model=7),
        _switch(source="command", to_model="x" * 300),
        {"hook_event_name": "PostCompact", "to_model": "opus", "source": "command"},
        ["PostModelSwitch"],
        None,
    ],
)
def test_other_switches_and_odd_inputs_are_not_followed(hook_input: object) -> None:
    assert model_switch_to_follow(hook_input) is None


@pytest.mark.parametrize(
    ("direction", "scope", "moves"),
    [
        ("retry", "session", True),
        ("retry", None, True),  # an older Claude Code: every retry swapped the session's model
        (None, None, True),
        ("sticky", "session", True),
        ("revert", "session", False),  # the session goes back to its model after the turn
        ("retry", "local", False),  # a subagent or side question fell back, not the session
    ],
)
def test_which_fallbacks_move_the_session(
    direction: str | None, scope: str | None, moves: bool
) -> None:
    assert fallback_moves_session(direction, scope) is moves


def test_a_model_promises_a_million_only_when_its_words_say_1m() -> None:
    assert seeded_context_window(["sonnet[1m]"]) == ONE_MILLION_WINDOW
    assert seeded_context_window([None, "claude-sonnet-4-5", "Sonnet (1M context)"]) == 1_000_000
    assert seeded_context_window(["claude-opus-4-1-1M"]) == 1_000_000
    assert seeded_context_window(["sonnet", "claude-sonnet-4-5", "Sonnet", None]) is None
    # `1m` must stand as a word: a size, a date or an id that merely contains it is not one.
    assert seeded_context_window(["claude-21m", "v1mini", "11m tokens"]) is None
    assert seeded_context_window([]) is None


@pytest.mark.parametrize(
    ("response", "window"),
    [
        ({"rawMaxTokens": 1_000_000, "maxTokens": 980_000}, 1_000_000),
        ({"rawMaxTokens": 200_000}, 200_000),
        ({"maxTokens": 200_000}, None),  # an older Claude Code: no raw window
        ({"rawMaxTokens": 0}, None),
        ({"rawMaxTokens": -5}, None),
        ({"rawMaxTokens": True}, None),
        ({"rawMaxTokens": 1e6}, None),
        ({"rawMaxTokens": "1000000"}, None),
        ({"rawMaxTokens": 10**12}, None),
        (None, None),
        ([1_000_000], None),
    ],
)
def test_the_measured_window_is_claude_codes_raw_maximum(response: Any, window: int | None) -> None:
    from fsm import measured_context_window

    assert measured_context_window(response) == window
