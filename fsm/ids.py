"""Incident ids: the one place their formats are spelled (docs/decisions.md#retry-progress,
#turn-ids, #session-scoped-ids and #replay-ids).

Theory of operation: an id names one occurrence, never a kind of error (spec "Identity,
revisions, and history"). Four shapes exist:

- `<turnId>:error`: the failure (and the retry warnings before it) of one live turn
  (docs/decisions.md#retry-progress and #turn-ids); replay gives a restored usage limit the same id
  its occurrence had live (docs/decisions.md#replay-ids);
- `<sessionId>:session-error:<epoch>:<n>`: a failure while no turn is live
  (docs/decisions.md#session-scoped-ids);
- `<sessionId>:notice:<epoch>:<n>`: a notice such as a model fallback
  (docs/decisions.md#session-scoped-ids);
- `<sessionId>:history-error:<messageUuid>`: a replayed usage limit with no real prompt before
  it to take its id from (docs/decisions.md#replay-ids).

The epoch is the shell's random name of one Claude runtime; `n` is that runtime's one counter,
shared by session errors and notices. Minting (choosing `n`, reusing a notice's id) is the
ledger's job; this module only spells and reads. `parse_id` recognises the shapes above, so a
reader (the conformance checker, a test) can tell which namespace an id is in and the epoch and
counter it carries. Session ids and turn ids may themselves contain `:`; the namespaces are
matched from the right, so they parse all the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "IdKind",
    "ParsedId",
    "history_failure_id",
    "notice_id",
    "parse_id",
    "session_failure_id",
    "turn_failure_id",
]

_SESSION_ERROR = "session-error"
_NOTICE = "notice"
_HISTORY_ERROR = "history-error"


class IdKind(Enum):
    TURN = "turn"
    SESSION = _SESSION_ERROR
    NOTICE = _NOTICE
    HISTORY = _HISTORY_ERROR


def turn_failure_id(turn_id: str) -> str:
    """`<turnId>:error`."""
    return f"{turn_id}:error"


def session_failure_id(session_id: str, epoch: str, n: int) -> str:
    """`<sessionId>:session-error:<epoch>:<n>`."""
    return f"{session_id}:{_SESSION_ERROR}:{epoch}:{n}"


def notice_id(session_id: str, epoch: str, n: int) -> str:
    """`<sessionId>:notice:<epoch>:<n>`."""
    return f"{session_id}:{_NOTICE}:{epoch}:{n}"


def history_failure_id(session_id: str, message_uuid: str) -> str:
    """`<sessionId>:history-error:<messageUuid>`."""
    return f"{session_id}:{_HISTORY_ERROR}:{message_uuid}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedId:
    """What an id says about itself. `session_id` is None for a turn id (it names none);
    `epoch` and `n` are set for session errors and notices, `message_uuid` for history ids,
    `turn_id` for turn ids."""

    kind: IdKind
    session_id: str | None = None
    turn_id: str | None = None
    epoch: str | None = None
    n: int | None = None
    message_uuid: str | None = None


# The epoch never contains ":" (the shell mints a uuid); the counter starts at 1.
_MINTED = re.compile(
    rf"(?P<session>.+):(?P<ns>{_SESSION_ERROR}|{_NOTICE}):(?P<epoch>[^:]+):(?P<n>[1-9][0-9]*)",
    re.DOTALL,
)
_HISTORY = re.compile(rf"(?P<session>.+):{_HISTORY_ERROR}:(?P<message>[^:]+)", re.DOTALL)
_TURN = re.compile(r"(?P<turn>.+):error", re.DOTALL)


def parse_id(value: str, *, session_id: str | None = None) -> ParsedId | None:
    """The shape of `value`, or None when it is none of the four.

    With `session_id`, the session-scoped shapes must name that session (a turn id names no
    session and is accepted as is). Never raises.
    """
    minted = _MINTED.fullmatch(value)
    if minted is not None:
        kind = IdKind.SESSION if minted["ns"] == _SESSION_ERROR else IdKind.NOTICE
        parsed = ParsedId(
            kind=kind, session_id=minted["session"], epoch=minted["epoch"], n=int(minted["n"])
        )
    elif (history := _HISTORY.fullmatch(value)) is not None:
        parsed = ParsedId(
            kind=IdKind.HISTORY, session_id=history["session"], message_uuid=history["message"]
        )
    elif (turn := _TURN.fullmatch(value)) is not None:
        return ParsedId(kind=IdKind.TURN, turn_id=turn["turn"])
    else:
        return None
    if session_id is not None and parsed.session_id != session_id:
        return None
    return parsed
