"""The model picker's policy (fsm.pickers.model_policy) and names (fsm.pickers.model_entries),
as the reference adapter decides them (docs/reference-adapter.md#model-policy,
docs/reference-adapter.md#model-entries): the allowlist's own spellings, `deniedModels`,
overrides, which settings tier counts, and versioned display names."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import (
    ModelFacts,
    ModelPolicy,
    allowed_models,
    is_denied_model,
    model_display_names,
    model_policy_from,
    resolve_model_preference,
)

_CLAUDE = (
    ModelFacts(
        "default",
        "Default (recommended)",
        "Sonnet 4.5 · Best for everyday tasks",
        "claude-sonnet-4-5",
    ),
    ModelFacts("opus", "Opus", "Opus 4.1 · Most capable for complex work", "claude-opus-4-1"),
    ModelFacts("haiku", "Haiku", "Haiku 4.5 · Fastest for quick answers", "claude-haiku-4-5"),
    ModelFacts(
        "sonnet[1m]", "Sonnet (1M context)", "Sonnet 4.5 for long sessions", "claude-sonnet-4-5"
    ),
)


def _rows(policy: ModelPolicy, custom: str | None = None) -> list[tuple[str, int | None, str]]:
    found = allowed_models(_CLAUDE, policy, custom)
    assert found is not None
    return [(r.value, r.source, r.name) for r in found]


def test_without_an_allowlist_claude_codes_list_stands() -> None:
    assert allowed_models(_CLAUDE, ModelPolicy()) is None


def test_the_allowlist_keeps_the_default_and_the_users_spellings() -> None:
    policy = ModelPolicy(available=("opus", "claude-haiku-4-5", "opus"))
    assert _rows(policy) == [
        ("default", 0, "Default"),
        ("opus", 1, "opus"),
        # The user's spelling is what a choice sends; the names come from Claude Code's entry.
        ("claude-haiku-4-5", 2, "claude-haiku-4-5"),
    ]


def test_an_empty_allowlist_leaves_the_default_alone() -> None:
    assert _rows(ModelPolicy(available=())) == [("default", 0, "Default")]
    no_default = allowed_models(_CLAUDE[1:], ModelPolicy(available=()))
    assert no_default is not None and [(r.value, r.source) for r in no_default] == [
        ("default", None)
    ]


def test_an_entry_claude_code_does_not_list_keeps_its_own_name() -> None:
    assert _rows(ModelPolicy(available=("mistral-large",)))[1:] == [
        ("mistral-large", None, "mistral-large")
    ]


def test_overrides_are_the_values_a_choice_sends() -> None:
    policy = ModelPolicy(
        available=("opus",), overrides={"opus": "arn:aws:bedrock:us-east-1:1:opus-profile"}
    )
    assert _rows(policy)[1:] == [("arn:aws:bedrock:us-east-1:1:opus-profile", 1, "opus")]


@pytest.mark.parametrize("denied", [("opus",), ("claude-opus-4-1",), ("claude-opus-4",)])
def test_denied_models_leave_the_allowlist(denied: tuple[str, ...]) -> None:
    policy = ModelPolicy(available=("opus", "haiku"), denied=denied)
    assert [v for v, _, _ in _rows(policy)] == ["default", "haiku"]


def test_the_custom_model_option_is_exempt() -> None:
    rows = _rows(ModelPolicy(available=("opus",)), custom="haiku")
    assert rows[-1] == ("haiku", 2, "Haiku")
    assert _rows(ModelPolicy(available=("opus",)), custom="nowhere")[-1][0] == "opus"


@pytest.mark.parametrize(
    ("model", "denied", "blocked"),
    [
        ("claude-opus-4-1-20250805", ("claude-opus-4-1",), True),
        ("us.anthropic.claude-opus-4-1-v1:0", ("claude-opus-4.1",), True),
        ("anthropic/claude-opus-4.1:batch[1m]", ("claude-opus-4-1",), True),
        ("claude-opus-4-5", ("claude-opus-4",), True),
        ("claude-opus-4-1", ("claude-opus-4-5",), False),
        ("claude-sonnet-4-5", ("opus",), False),
        ("claude-opus-4-1", ("opus",), True),
        ("claude-opus-4-1", ("", "  "), False),
    ],
)
def test_denied_model_spellings(model: str, denied: tuple[str, ...], blocked: bool) -> None:
    assert is_denied_model(model, denied) is blocked


@pytest.mark.parametrize(
    ("preference", "index"),
    [
        ("opus", 1),
        ("Haiku", 2),
        ("claude-opus-4-1", 1),
        ("claude-sonnet-4-5", 3),  # a concrete entry before the default
        ("sonnet[1m]", 3),
        ("claude-opus-4-1-20250805", 1),
        ("opus-4-5", None),  # another version of the family
        ("gpt-5", None),
        ("", None),
    ],
)
def test_a_preference_finds_the_closest_entry(preference: str, index: int | None) -> None:
    assert resolve_model_preference(_CLAUDE, preference) == index


def test_names_get_their_version() -> None:
    assert model_display_names(_CLAUDE) == (
        "Default (recommended)",
        "Opus 4.1",
        "Haiku 4.5",
        "Sonnet 4.5 (1M context)",
    )


def test_names_that_would_collide_keep_claude_codes_label_then_their_value() -> None:
    twins = (
        ModelFacts("opus", "Opus", None, "claude-opus-4-1"),
        ModelFacts("claude-opus-4-1", "Opus", None, "claude-opus-4-1"),
        ModelFacts("custom", "My model", None, None),
        ModelFacts("haiku", "Claude Haiku 4.5", None, "claude-haiku-4-5"),
        ModelFacts("x", "Sonnet (1M context)", "Sonnet 4.5 with 1M context", "claude-sonnet-4-5"),
    )
    assert model_display_names(twins) == (
        "Opus (opus)",
        "Opus (claude-opus-4-1)",
        "My model",
        "Claude Haiku 4.5",
        "Sonnet 4.5",  # the description keeps the context size
    )


def _policy(**tiers: dict[str, Any]) -> ModelPolicy:
    return model_policy_from(list(tiers.items()))


def test_the_user_project_and_local_lists_are_joined() -> None:
    policy = _policy(
        user={"availableModels": ["opus"]},
        project={"availableModels": ["haiku", "opus"]},
        local={},
    )
    assert policy.available == ("opus", "haiku")
    assert _policy(user={}, project={"availableModels": "opus"}).available is None


def test_a_managed_allowlist_is_the_whole_list_with_its_overrides() -> None:
    policy = _policy(
        user={"availableModels": ["opus"], "modelOverrides": {"haiku": "user-target"}},
        project={"availableModels": ["evil"], "modelOverrides": {"haiku": "repo-target"}},
        managed={"availableModels": ["haiku"], "deniedModels": ["opus"]},
    )
    assert policy.available == ("haiku",)
    # The repository's map sits below the managed allowlist: it redirects nothing.
    assert policy.overrides == {}
    assert policy.denied == ("opus",)


def test_the_highest_tier_sets_the_overrides_and_only_managed_denies() -> None:
    policy = _policy(
        user={"availableModels": ["opus"], "modelOverrides": {"opus": "a"}, "deniedModels": ["x"]},
        local={"modelOverrides": {"opus": "b", "bad": 3, 4: "c"}},
    )
    assert policy.overrides == {"opus": "b"}
    assert policy.denied == ()


@pytest.mark.parametrize("entry", [3, None, "", "   ", "x" * 257, "evil\x1b[2J"])
def test_entries_of_another_shape_are_left_out(entry: object) -> None:
    assert _policy(user={"availableModels": [entry, "opus"]}).available == ("opus",)


def test_settings_of_another_shape_count_as_none() -> None:
    odd: list[Any] = [("user", "x"), ("nowhere", {"availableModels": ["a"]})]
    assert model_policy_from(odd) == ModelPolicy()


def test_the_hosts_model_config_goes_under_the_clients_settings() -> None:
    from fsm import model_config_settings

    raw = '{"availableModels": ["opus"], "modelOverrides": {"opus": "arn:x"}, "other": 1}'
    assert model_config_settings(raw) == {
        "availableModels": ["opus"],
        "modelOverrides": {"opus": "arn:x"},
    }
    given = {"availableModels": ["haiku"], "env": {"A": "1"}}
    assert model_config_settings(raw, given) == {
        "availableModels": ["haiku"],
        "modelOverrides": {"opus": "arn:x"},
        "env": {"A": "1"},
    }
    assert model_config_settings(None) is None
    assert model_config_settings("") is None
    assert model_config_settings('{"other": 1}') is None


@pytest.mark.parametrize("raw", ["[1, 2]", "null", "3", "{not json"])
def test_a_model_config_that_is_no_object_is_refused(raw: str) -> None:
    from fsm import model_config_settings

    with pytest.raises(ValueError):
        model_config_settings(raw)
