"""The base of every core input and the checks their constructors share (see `events.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from fsm.errors import PeerViolation

__all__ = ["MAX_MS", "Event", "need"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every input."""


# About 285,000 years: any delay past it is not a delay Claude meant.
MAX_MS = 2**53


def need(value: str, what: str) -> None:
    if not value:
        raise PeerViolation(f"{what} must be a non-empty string")
