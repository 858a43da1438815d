"""The model and effort pickers as a client sees them, with and without JetBrains AIR's
`recommendedValue` (the reference's `buildModelConfigOption` and `buildEffortConfigOption`)."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import canonical_model_id, efforts_shown, efforts_to_apply, mode_to_follow, models_shown

ENTRIES = [("default", "claude-sonnet-4-5"), ("opus", "claude-opus-4-1"), ("sonnet", None)]


def _meta(value: str) -> dict[str, Any]:
    return {"jetbrains": {"air": {"version": 1, "recommendedValue": value}}}


def test_the_default_entry_gives_way_to_the_concrete_model_it_resolves_to() -> None:
    # `sonnet` names no resolved model: its value is compared.
    entries: list[tuple[str, str | None]] = [
        ("default", "claude-sonnet-4-5"),
        ("opus", "claude-opus-4-1"),
        ("claude-sonnet-4-5", None),
    ]
    shown = models_shown(True, entries, "default")
    assert shown.values == ("opus", "claude-sonnet-4-5")
    assert shown.current == "claude-sonnet-4-5"
    assert shown.meta == _meta("claude-sonnet-4-5")
    # A session on a concrete model keeps it; the recommendation stays the default's model.
    assert models_shown(True, entries, "opus").current == "opus"
    assert models_shown(True, entries, "opus").meta == _meta("claude-sonnet-4-5")


def test_no_concrete_match_keeps_the_default_row_and_says_nothing() -> None:
    for entries in (
        [("default", "claude-sonnet-4-5"), ("opus", "claude-opus-4-1")],
        [("default", None), ("opus", "claude-opus-4-1")],  # the default says nothing
        # Another context window is another model.
        [("default", "claude-sonnet-4-5[1m]"), ("sonnet", "claude-sonnet-4-5")],
    ):
        shown = models_shown(True, entries, "default")
        assert shown.values == tuple(v for v, _ in entries)
        assert (shown.current, shown.meta) == ("default", None)


def test_the_first_of_several_matches_is_recommended_and_context_spellings_are_one() -> None:
    assert canonical_model_id(" Claude-Sonnet-4-5-1M ") == "claude-sonnet-4-5[1m]"
    entries = [
        ("default", "claude-sonnet-4-5-1m"),
        ("sonnet[1m]", "claude-sonnet-4-5[1m]"),
        ("big", "claude-sonnet-4-5[1M]"),
    ]
    assert models_shown(True, entries, "default").meta == _meta("sonnet[1m]")


def test_a_client_without_the_capability_gets_claude_codes_list() -> None:
    shown = models_shown(False, ENTRIES, "default")
    assert (shown.values, shown.current, shown.meta) == (
        ("default", "opus", "sonnet"),
        "default",
        None,
    )
    efforts = efforts_shown(False, ("low", "high"), "medium")  # not a level of this model
    assert efforts is not None
    assert (efforts.values, efforts.current, efforts.meta) == (
        ("default", "low", "high"),
        "default",
        None,
    )
    assert efforts_to_apply(False, efforts) == []
    assert efforts_to_apply(False, None) == []


def test_the_effort_picker_recommends_medium_else_the_first_level() -> None:
    shown = efforts_shown(True, ("low", "medium", "high"), "default")
    assert shown is not None
    assert (shown.values, shown.current, shown.meta) == (
        ("low", "medium", "high"),
        "medium",
        _meta("medium"),
    )
    kept = efforts_shown(True, ("low", "medium", "high"), "high")
    assert kept is not None and (kept.current, kept.meta) == ("high", _meta("medium"))
    first = efforts_shown(True, ("low", "high"), "max")
    assert first is not None and (first.current, first.meta) == ("low", _meta("low"))
    # Claude runs what is shown; a model without effort clears it.
    assert efforts_to_apply(True, kept) == ["high"]
    assert efforts_to_apply(True, None) == [None]
    assert efforts_shown(True, (), "high") is None


# --- Which mode Claude Code switched to by itself the mode picker follows -----------------------

OFFERED = ("default", "acceptEdits", "plan")


@pytest.mark.parametrize(
    ("said", "current", "followed"),
    [
        ("plan", "default", "plan"),  # offered and not shown: followed
        ("acceptEdits", "plan", "acceptEdits"),
        ("plan", "plan", None),  # already shown: nothing to follow
        ("bypassPermissions", "default", None),  # not offered (the policy took it away)
        ("auto", "default", None),  # not in this session's catalog
        (None, "default", None),  # the frame named no mode
    ],
)
def test_the_mode_picker_follows_only_an_offered_mode_it_does_not_show(
    said: str | None, current: str, followed: str | None
) -> None:
    assert mode_to_follow(said, current=current, offered=OFFERED) == followed
