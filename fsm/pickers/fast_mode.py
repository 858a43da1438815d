"""When the fast-mode switch follows a change Claude Code made by itself, and when its turning
off is told.

Claude Code says its fast mode on `system/init` and on a user turn's result (`fast_mode_state`
`on` or `off`; `cooldown` keeps the switch on and is no change, so the shell's reading passes it
on as nothing). The switch shows what it says, with the explanation of an off where Claude Code
gives a reason the adapter explains. A frame that says off without a reason leaves an off's
earlier explanation as it was; turning off for an explained reason is told to the client (the
notice machine's `FastModeTurnedOff`, `fsm/notices.py`). Pure functions of their arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FastModeFollowed", "follow_fast_mode"]


@dataclass(frozen=True, slots=True)
class FastModeFollowed:
    """The switch once it followed Claude Code: `on`, and why it is off (`off_because`, None:
    unexplained); `turned_off`: it was on and is off now for that reason, which the client is
    told."""

    on: bool
    off_because: str | None
    turned_off: bool


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
