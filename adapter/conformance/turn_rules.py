"""Rules that need the turn a frame belongs to: repeated prose and incident identity.

Theory of operation: the checker tells these watches when a session's turn begins (the client
sends `session/prompt`; on `session/load` the replayed user messages begin turns) and ends,
and hands them every agent text and every record on a contract carrier. They report through
the `flag` callback given at construction.

* `EchoWatch` (title-as-agent-text): the prose that became a record's title is not also sent as
  agent text. It compares, within one turn only, each agent message (one chunk, or the run of
  consecutive chunks a client merges into one entry) with the latest revision of each record of
  that turn, whole text against whole text (whitespace folded). A later turn quoting an old
  title, or a short title inside other prose, is not a repeat. Claude's words that a later
  revision replaced were not withheld, so only the latest revision counts.
* `IdWatch` (turn-id, turn-error-carrier, id-counter, notice-reused): the id rules a log can
  show. A prompt response's record is `<turnId>:error` and no other prompt's; a turn's error
  waits for the prompt response while that prompt is unanswered; ids this project's ledger mints
  (`contract.read_id`) name their own session, and a new one counts up within its runtime epoch; a
  notice id is revised only within the turn it was first sent in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from adapter.conformance.contract import read_id

__all__ = ["EchoWatch", "IdWatch"]

Flag = Callable[[int, str, str], None]


def _fold(text: str) -> str:
    return " ".join(text.split())


def _whole_texts(title: str, details: str | None) -> set[str]:
    # What the withheld prose looked like: the title alone, or title and details rejoined
    # (a title cut with "…" lost nothing but the mark and perhaps a space).
    found = {_fold(title)}
    if details:
        found.add(_fold(f"{title} {details}"))
        if title.endswith("\u2026"):
            found |= {_fold(title[:-1] + details), _fold(f"{title[:-1]} {details}")}
    return found - {""}


@dataclass(slots=True)
class _Turn:
    texts: list[tuple[int, str]] = field(default_factory=list)  # (frame, folded text)
    run: list[str] | None = None  # the open run of agent chunks: [first frame, text]
    run_frame: int = 0
    records: dict[str, tuple[str, set[str]]] = field(default_factory=dict)  # id -> title, texts
    last_update: str = ""


class EchoWatch:
    def __init__(self, flag: Flag) -> None:
        self._flag = flag
        self._turns: dict[str, _Turn] = {}

    def turn_began(self, session: str) -> None:
        self._close(session)
        self._turns[session] = _Turn()

    def update(self, session: str, kind: str, text: str, frame: int) -> None:
        turn = self._turns.setdefault(session, _Turn())
        if kind == "user_message_chunk" and turn.last_update != kind:
            # A replayed user message begins a turn, as a prompt does.
            self.turn_began(session)
            turn = self._turns[session]
        turn.last_update = kind
        if kind != "agent_message_chunk":
            self._end_run(turn)
            return
        turn.texts.append((frame, _fold(text)))
        if turn.run is None:
            turn.run, turn.run_frame = [], frame
        turn.run.append(text)

    def record(self, session: str, id: str, title: str, details: str | None) -> None:
        turn = self._turns.setdefault(session, _Turn())
        self._end_run(turn)  # a record is an entry of its own: it ends the agent message
        turn.last_update = "record"
        turn.records[id] = (title, _whole_texts(title, details))

    def finish(self) -> None:
        for session in list(self._turns):
            self._close(session)

    @staticmethod
    def _end_run(turn: _Turn) -> None:
        if turn.run is not None and len(turn.run) > 1:
            turn.texts.append((turn.run_frame, _fold("".join(turn.run))))
        turn.run = None

    def _close(self, session: str) -> None:
        turn = self._turns.pop(session, None)
        if turn is None:
            return
        self._end_run(turn)
        flagged: set[tuple[int, str]] = set()
        for title, whole in turn.records.values():
            for frame, text in turn.texts:
                if text in whole and (frame, title) not in flagged:
                    flagged.add((frame, title))
                    self._flag(
                        frame,
                        "title-as-agent-text",
                        f"agent text repeats the record title {title!r} of the same turn",
                    )


class IdWatch:
    def __init__(self, flag: Flag) -> None:
        self._flag = flag
        self._prompt_of: dict[tuple[str, str], int] = {}  # turn-id owner: the prompt's frame
        self._live: dict[str, int | None] = {}  # the session's unanswered prompt, by frame
        self._counters: dict[tuple[str, str], int] = {}  # (session, epoch) -> highest n
        self._seen: set[tuple[str, str]] = set()
        self._notices: dict[tuple[str, str], tuple[int | None, int]] = {}  # turn, revision

    def prompt_sent(self, session: str, frame: int) -> None:
        self._live[session] = frame

    def prompt_answered(self, session: str) -> None:
        self._live[session] = None

    def session_loaded(self, session: str) -> None:
        # A replay restores live ids under their own names: the turn ids start over.
        for key in [k for k in self._prompt_of if k[0] == session]:
            del self._prompt_of[key]

    def prompt_record(self, session: str, id: str, prompt_frame: int, frame: int) -> None:
        parsed = read_id(id)
        if parsed is None or parsed.kind != "turn":
            message = f"a prompt response's record has id {id!r}, not <turnId>:error"
            self._flag(frame, "turn-id", message)
            return
        owner = self._prompt_of.setdefault((session, id), prompt_frame)
        if owner != prompt_frame:
            self._flag(frame, "turn-id", f"id {id!r} already ended the prompt of frame {owner}")

    def info_record(self, session: str, id: str, severity: str, frame: int) -> None:
        """A record on a session_info_update: a live turn's error is the prompt's to carry."""
        parsed = read_id(id)
        live = self._live.get(session)
        turn_id = parsed is not None and parsed.kind == "turn"
        # A turn's id whose prompt was answered already is no live turn's (a limit's reset,
        # docs/decisions.md#limit-that-resets, revises it later, whatever prompt is in flight then).
        answered = (session, id) in self._prompt_of
        if severity == "error" and turn_id and live is not None and not answered:
            self._flag(
                frame,
                "turn-error-carrier",
                f"error {id!r} sent as a session_info_update while the prompt of frame {live} "
                "is unanswered",
            )

    def record(
        self, session: str, id: str, revision: int, frame: int, *, category: str = ""
    ) -> None:
        parsed = read_id(id)
        if parsed is None or parsed.kind not in ("session-error", "notice"):
            return
        assert parsed.epoch is not None and parsed.n is not None
        if parsed.session != session:
            self._flag(frame, "id-counter", f"id {id!r} names another session than {session!r}")
        if (session, id) not in self._seen:
            self._seen.add((session, id))
            key = (session, parsed.epoch)
            highest = self._counters.get(key, 0)
            if parsed.n <= highest:
                self._flag(
                    frame,
                    "id-counter",
                    f"new id {id!r} does not count up: its runtime already reached {highest}",
                )
            self._counters[key] = max(highest, parsed.n)
        if parsed.kind == "notice" and category != "limit":
            # An early limit warning is one per window and reset time, revised across turns
            # as its percent rises (docs/decisions.md#early-limit-warning); other notices live
            # within one turn.
            self._notice(session, id, revision, frame)

    def _notice(self, session: str, id: str, revision: int, frame: int) -> None:
        live = self._live.get(session)
        first = self._notices.setdefault((session, id), (live, revision))
        if revision > first[1] and first[0] != live:
            self._flag(
                frame,
                "notice-reused",
                f"notice {id!r} first sent "
                + ("between turns" if first[0] is None else f"in the turn of frame {first[0]}")
                + " is revised in another turn",
            )
        self._notices[(session, id)] = (first[0], max(revision, first[1]))
