"""The agent picker's rules (fsm.pickers.agents): which of Claude Code's agents are offered, the
value a session opens with, and the flag a choice sets."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import BUILTIN_AGENTS, DEFAULT_AGENT, AgentChoice, agent_choices, agent_flag, initial_agent


def _names(entries: Any) -> list[str]:
    return [c.name for c in agent_choices(entries)]


def test_only_agents_of_the_user_are_offered_in_claude_codes_order() -> None:
    entries = [
        {"name": "general-purpose", "description": "built in"},
        {"name": "reviewer", "description": "Reviews code"},
        {"name": "Explore", "description": "built in"},
        {"name": "writer", "description": "Writes docs", "model": "haiku"},
    ]
    assert agent_choices(entries) == (
        AgentChoice("reviewer", "Reviews code"),
        AgentChoice("writer", "Writes docs"),
    )


def test_the_builtins_alone_make_no_picker() -> None:
    assert agent_choices([{"name": n, "description": "x"} for n in sorted(BUILTIN_AGENTS)]) == ()


@pytest.mark.parametrize(
    "entries",
    [None, "reviewer", {"name": "reviewer"}, 3, [None, 3, "reviewer", {"description": "x"}]],
)
def test_an_answer_of_another_shape_offers_nothing(entries: Any) -> None:
    assert agent_choices(entries) == ()


def test_bad_names_the_default_and_repeats_are_left_out() -> None:
    entries = [
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 257},
        {"name": "evil\x1b[2Jname"},
        {"name": DEFAULT_AGENT, "description": "would collide with the picker's default"},
        {"name": "reviewer", "description": "first"},
        {"name": "reviewer", "description": "second"},
        {"name": "x" * 256},
    ]
    choices = agent_choices(entries)
    assert [c.name for c in choices] == ["reviewer", "x" * 256]
    assert choices[0].description == "first"


def test_a_description_is_one_visible_line_of_bounded_length() -> None:
    (choice,) = agent_choices([{"name": "a", "description": "Line one\nline\x07two  "}])
    assert choice.description == "Line one line\u2407two"
    (long,) = agent_choices([{"name": "a", "description": "w " * 5000}])
    assert long.description is not None and len(long.description) == 1000
    assert long.description.endswith("…")
    (none,) = agent_choices([{"name": "a", "description": " \n "}])
    assert none.description is None
    (odd,) = agent_choices([{"name": "a", "description": 7}])
    assert odd.description is None


def test_the_session_opens_on_the_asked_agent_only_when_it_is_listed() -> None:
    choices = agent_choices([{"name": "reviewer"}])
    assert initial_agent("reviewer", choices) == "reviewer"
    assert initial_agent("Explore", choices) == DEFAULT_AGENT  # a built-in is not listed
    assert initial_agent("ghost", choices) == DEFAULT_AGENT
    assert initial_agent(None, choices) == DEFAULT_AGENT


def test_the_default_clears_claude_codes_agent_flag() -> None:
    assert agent_flag(DEFAULT_AGENT) is None
    assert agent_flag("reviewer") == "reviewer"
