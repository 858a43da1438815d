"""What the user is told of why fast mode is off (`fast_off_explanation`): the reference's words
(`FAST_MODE_UNAVAILABLE_EXPLANATIONS`) for the reasons Claude Code names that a user can act on
or wants to know of; any other reason, or none, is not explained (and so not told)."""

from __future__ import annotations

import pytest

from fsm import fast_off_explanation, follow_fast_mode
from fsm.pickers.fast_mode import FAST_OFF_REASONS


@pytest.mark.parametrize(
    ("reason", "told"),
    [
        ("free", "not available on the free plan"),
        ("extra_usage_disabled", "requires extra usage to be enabled for this account"),
        ("model_not_allowed", "not available for the selected model"),
        ("not_first_party", "not available on this API provider"),
        ("disabled_by_env", "disabled by environment configuration"),
        ("network_error", "eligibility could not be verified (network error)"),
    ],
)
def test_each_explained_reason_has_the_references_words(reason: str, told: str) -> None:
    assert fast_off_explanation(reason) == told


def test_the_explained_reasons_are_exactly_those() -> None:
    assert len(FAST_OFF_REASONS) == 6


# The reference leaves these out on purpose: the default opt-in, the user's own choice, an
# eligibility still resolving, nothing to say; and a reason added later is not guessed at.
@pytest.mark.parametrize(
    "reason",
    ["sdk_opt_in_required", "preference", "pending", "unknown", "FREE", "", "later_reason"],
)
def test_another_reason_is_not_explained(reason: str) -> None:
    assert fast_off_explanation(reason) is None


@pytest.mark.parametrize("reason", [None, 1, True, ["free"], {"free": 1}])
def test_a_reason_that_is_no_string_is_not_explained(reason: object) -> None:
    assert fast_off_explanation(reason) is None


def test_only_an_explained_reason_makes_turning_off_told() -> None:
    told = follow_fast_mode(
        on=True, off_because=None, said_on=False, said_because=fast_off_explanation("free")
    )
    assert told is not None and told.turned_off
    quiet = follow_fast_mode(
        on=True, off_because=None, said_on=False, said_because=fast_off_explanation("preference")
    )
    assert quiet is not None and not quiet.turned_off and quiet.off_because is None
