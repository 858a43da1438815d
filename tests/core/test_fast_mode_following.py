"""When the fast-mode switch follows Claude Code's own change (`follow_fast_mode`): it shows
what Claude Code says, an off keeps its earlier explanation when the frame gives none, and only
turning off for an explained reason is told to the client."""

from __future__ import annotations

import pytest

from fsm import FastModeFollowed, follow_fast_mode

FREE = "not available on the free plan"
NETWORK = "eligibility could not be verified (network error)"


@pytest.mark.parametrize(
    ("on", "off_because", "said_on", "said_because", "followed"),
    [
        # Turned on: any earlier explanation goes.
        (False, FREE, True, None, FastModeFollowed(on=True, off_because=None, turned_off=False)),
        (False, None, True, None, FastModeFollowed(on=True, off_because=None, turned_off=False)),
        # Turned off for a reason the user is told.
        (True, None, False, FREE, FastModeFollowed(on=False, off_because=FREE, turned_off=True)),
        # Turned off with no reason explained: shown, not told.
        (True, None, False, None, FastModeFollowed(on=False, off_because=None, turned_off=False)),
        # Off already: a new reason is shown, never told again.
        (
            False,
            FREE,
            False,
            NETWORK,
            FastModeFollowed(on=False, off_because=NETWORK, turned_off=False),
        ),
        (False, None, False, FREE, FastModeFollowed(on=False, off_because=FREE, turned_off=False)),
    ],
)
def test_the_switch_follows_what_claude_code_says(
    on: bool,
    off_because: str | None,
    said_on: bool,
    said_because: str | None,
    followed: FastModeFollowed,
) -> None:
    assert (
        follow_fast_mode(on=on, off_because=off_because, said_on=said_on, said_because=said_because)
        == followed
    )


@pytest.mark.parametrize(
    ("on", "off_because", "said_on", "said_because"),
    [
        (True, None, True, None),
        (False, None, False, None),
        (False, FREE, False, FREE),
        # An off that does not say why changes no why.
        (False, FREE, False, None),
    ],
)
def test_what_the_switch_shows_already_changes_nothing(
    on: bool, off_because: str | None, said_on: bool, said_because: str | None
) -> None:
    said = follow_fast_mode(
        on=on, off_because=off_because, said_on=said_on, said_because=said_because
    )
    assert said is None
