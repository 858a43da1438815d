"""The effort nobody chose, from the settings (fsm.pickers.effort_seeds), as the reference adapter's
`settingsEffortForModel` reads it: per model first (resolved id, picker value; `-1m` spells
`[1m]`), then the top-level `effortLevel`, the highest tier winning."""

from __future__ import annotations

from typing import Any

from fsm import settings_effort


def test_a_per_model_effort_wins_over_the_top_level_one() -> None:
    tiers = [
        {"effortLevel": "low", "modelSettings": {"claude-opus-4-1": {"effortLevel": "max"}}},
    ]
    assert settings_effort(tiers, "opus", "claude-opus-4-1") == "max"
    assert settings_effort(tiers, "haiku", "claude-haiku-4-5") == "low"


def test_keys_match_by_value_and_by_the_context_spelling() -> None:
    tiers = [{"modelSettings": {"Sonnet[1M]": {"effortLevel": "high"}, "opus": {}}}]
    assert settings_effort(tiers, "sonnet-1m", None) == "high"
    assert settings_effort(tiers, "opus", "claude-opus-4-1") is None


def test_the_highest_tier_wins() -> None:
    tiers: list[dict[str, Any]] = [
        {"effortLevel": "low", "modelSettings": {"opus": {"effortLevel": "low"}}},
        {"effortLevel": "high"},
        {"modelSettings": {"OPUS": {"effortLevel": "max"}}, "effortLevel": 3},
    ]
    assert settings_effort(tiers, "opus", None) == "max"
    assert settings_effort(tiers, "haiku", None) == "high"
    assert settings_effort([], "opus", None) is None
    assert settings_effort([{"modelSettings": "x", "effortLevel": None}], "opus", None) is None
