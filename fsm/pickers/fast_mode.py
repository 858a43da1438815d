"""When the fast-mode switch follows a change Claude Code made by itself, and when its turning
off is told.

Claude Code says its fast mode on `system/init` and on a user turn's result (`fast_mode_state`
`on` or `off`; `cooldown` keeps the switch on and is no change, so the shell's reading passes it
on as nothing). The switch shows what it says, with the explanation of an off where Claude Code
gives a reason the adapter explains (`fast_off_explanation`: the reference's words for the
reasons a user can act on, or wants to know of). A frame that says off without a reason leaves
an off's earlier explanation as it was; turning off for an explained reason is told to the
client (the notice machine's `FastModeTurnedOff`, `fsm/notices.py`). Pure functions of their
arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAST_OFF_REASONS", "FastModeFollowed", "fast_off_explanation", "follow_fast_mode"]

# Claude Code's `fast_mode_disabled_reason` values the user is told of, and what they are told
# (the reference's `FAST_MODE_UNAVAILABLE_EXPLANATIONS`:
# docs/reference-adapter.md#fast-mode-reasons). Any other reason (`sdk_opt_in_required`,
# `preference`, `pending`, `unknown`, one added later) is not explained.
FAST_OFF_REASONS = {
    "free": "not available on the free plan",
    "extra_usage_disabled": "requires extra usage to be enabled for this account",
    "model_not_allowed": "not available for the selected model",
    "not_first_party": "not available on this API provider",
    "disabled_by_env": "disabled by environment configuration",
    "network_error": "eligibility could not be verified (network error)",
}


@dataclass(frozen=True, slots=True)
class FastModeFollowed:
    """The switch once it followed Claude Code: `on`, and why it is off (`off_because`, None:
    unexplained); `turned_off`: it was on and is off now for that reason, which the client is
    told."""

    on: bool
    off_because: str | None
    turned_off: bool


def fast_off_explanation(reason: object) -> str | None:
    """Why fast mode is off, in the user's words, from Claude Code's `fast_mode_disabled_reason`
    (None: no reason, or one the user is not told of)."""
    return FAST_OFF_REASONS.get(reason) if isinstance(reason, str) else None


def follow_fast_mode(
    *, on: bool, off_because: str | None, said_on: bool, said_because: str | None
) -> FastModeFollowed | None:
    """The switch at `on` (off for `off_because`) after Claude Code said it is `said_on`
    (`said_because`: the explanation of an off, None when it gave none the adapter explains);
    None when nothing changes."""
    because = None if said_on else said_because
    if not said_on and because is None and not on:
        because = off_because  # a frame that does not say why changes no why
    if (said_on, because) == (on, off_because):
        return None
    return FastModeFollowed(
        on=said_on, off_because=because, turned_off=on and not said_on and because is not None
    )
