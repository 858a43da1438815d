"""The session ledger: ids, revisions, the active set and recovery, for one session.

Theory of operation:
- Ids (docs/decisions.md#turn-ids, #session-scoped-ids and #replay-ids): a live turn's failure is
  `<turnId>:error`; a failure with no live turn is `<sessionId>:session-error:<epoch>:<n>`; a notice
  is `<sessionId>:notice:<epoch>:<n>`, reusing the previous notice's id only for the same title
  within the same turn (docs/decisions.md#notice-identity). `n` is one counter per runtime, advanced
  when an id is minted (so a failed send leaves a gap, as in the reference). The epoch is minted by
  the shell for every runtime.
- Revisions come from the incident: the last *delivered* revision plus one.
- The active set is the incidents in REVISING. Recovery (docs/decisions.md#recovery) is the incident
  machine's table: the ledger fires each boundary at every active incident and keeps the ones that
  stay. Resolved incidents are kept in a short history and then detached, so a session with many
  failing turns holds bounded state.
- A resolved incident is never revised again, by construction rather than by memory of it:
  session-scoped ids and notices are minted here and only here (callers cannot name one), and
  a turn's id can be revised only while that turn is open (`open_turn`); a turn id once closed
  can never be opened again (`_closed_turns`). The only ids a caller names are replayed history
  ids, which are never taken twice (`_replayed`).
- Capable and legacy clients: the ledger is used only for capable clients; for legacy ones the
  session core publishes nothing, so nothing becomes active.

Rules outside the tables (WARNING: hand-coded, not drawn): the id spelling above (a turn has
one failure id, so every failure of a live turn revises it; notice-id reuse,
docs/decisions.md#notice-identity), and the notice bound (`NOTICES_OVERFLOWED`, fired from
`_bound_notices`).

The reset of a failed limit (docs/decisions.md#limit-that-resets): a limit failure's incident knows
when its limit resets (`resets_at_ms`); the incident machine decides when that reset is taken
(`RESET_REACHED`, once per incident). The ledger finds the next reset for the session clock, moves
it when Claude names a later one, and shapes the revision that says the limit has reset.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import replace

from fsm import ids
from fsm.claude.classify import without_login_instruction
from fsm.errors import FsmError, InvalidTransition
from fsm.incident import Incident, IncidentState, IncidentTrigger
from fsm.records import FailureRecord, shape_title
from fsm.vocabulary import Action, FailureKind, RecoveryPolicy, Severity, policy_for

__all__ = ["HISTORY_LIMIT", "NOTICE_LIMIT", "RESET_SENTENCE", "Hints", "Ledger"]

# How many resolved incidents stay attached for inspection before they are let go.
HISTORY_LIMIT = 16
# How many notices stay active at once; older ones become history.
NOTICE_LIMIT = 8

# Claude's latest word on when to retry: (retry_after_seconds, reset_at_epoch_ms).
Hints = tuple[float | None, int | None]
_NO_HINTS: Hints = (None, None)

# What a limit failure's title says once its reset time has come.
RESET_SENTENCE = " · The limit has reset; you can retry now."


class Ledger:
    def __init__(self, *, session_id: str, epoch: str) -> None:
        self.session_id = session_id
        self.epoch = epoch
        self.next_incident = 1
        self._incidents: dict[str, Incident] = {}
        self._history: deque[Incident] = deque()
        self._last_notice: tuple[str, str | None, str] | None = None  # (title, turn, id)
        self._open_turn: str | None = None
        self._closed_turns: set[str] = set()
        self._replayed: set[str] = set()
        # Active incidents that resolved since `take_recovered` was last asked: recovery
        # publishes nothing (docs/decisions.md#recovery), so the session core logs them.
        self._recovered: list[str] = []

    # --- turns and ids ---------------------------------------------------------------------

    def open_turn(self, turn_id: str) -> None:
        """Start accepting revisions of `<turn_id>:error`. Raises `FsmError` for a turn id
        that was already used (a turn's id belongs to that turn alone)."""
        if turn_id in self._closed_turns or turn_id == self._open_turn:
            raise FsmError(f"turn id {turn_id} was already used")
        if self._open_turn is not None:
            self._closed_turns.add(self._open_turn)
        self._open_turn = turn_id

    def close_turn(self) -> None:
        """The open turn settled: its id takes no new revision from now on."""
        if self._open_turn is not None:
            self._closed_turns.add(self._open_turn)
        self._open_turn = None

    def _mint(self, spell: Callable[[str, str, int], str]) -> str:
        n = self.next_incident
        self.next_incident += 1
        return spell(self.session_id, self.epoch, n)

    # --- revisions ----------------------------------------------------------------------

    def propose_turn(
        self, *, kind: FailureKind, severity: Severity, text: str, hints: Hints = _NO_HINTS
    ) -> FailureRecord:
        """The next revision of the open turn's incident (`<turnId>:error`), pending."""
        turn_id = self._open_turn
        if turn_id is None:
            raise FsmError("no open turn to attach a failure to")
        return self._propose(ids.turn_failure_id(turn_id), kind, severity, text, turn_id, hints)

    def propose_session(
        self, *, kind: FailureKind, severity: Severity, text: str, hints: Hints = _NO_HINTS
    ) -> FailureRecord:
        """A new session-scoped incident under a freshly minted id, pending."""
        return self._propose(self._mint(ids.session_failure_id), kind, severity, text, None, hints)

    def propose_notice(
        self, text: str, *, turn_id: str | None, kind: FailureKind = FailureKind.ADVISORY
    ) -> FailureRecord:
        """A notice (a warning of `kind`, by default an `unknown` one). Its id is reused only
        while the same notice repeats within one turn (docs/decisions.md#notice-identity); anything
        else is a new occurrence."""
        last = self._last_notice
        if last is not None and last[:2] == (text, turn_id) and last[2] in self._incidents:
            notice = last[2]
        else:
            notice = self._mint(ids.notice_id)
        self._last_notice = (text, turn_id, notice)
        return self._propose(notice, kind, Severity.WARNING, text, None)

    def propose_limit_warning(self, *, id: str | None, text: str) -> FailureRecord:
        """An early limit warning (docs/decisions.md#early-limit-warning): `limit` / `warning` in
        the notice namespace, a new id when `id` is None, else the next revision of `id`."""
        notice = self._mint(ids.notice_id) if id is None else id
        return self._propose(
            notice, FailureKind.RATE_LIMITED, Severity.WARNING, text, None,
            recovery=RecoveryPolicy.LIMIT_WINDOW,
        )  # fmt: skip

    def retire_limit_warning(self, id: str) -> None:
        """The warning's window reset or reported `allowed`: no longer active (not published)."""
        incident = self._incidents.get(id)
        if incident is not None and incident.reach(IncidentTrigger.WINDOW_CLOSED):
            self._let_go(incident)

    def propose_historical(self, *, id: str, text: str, active: bool) -> FailureRecord:
        """A replayed usage limit (session/load): quota, error, resolved on delivery unless
        `active`. Raises `InvalidTransition` for an id that resolved already."""
        if id in self._replayed and id not in self._incidents:
            raise InvalidTransition("incident", "revision_proposed", "resolved-historical")
        record = self._propose(
            id, FailureKind.QUOTA_EXHAUSTED, Severity.ERROR, text, None, resolves=not active
        )
        self._replayed.add(id)
        return record

    def _propose(
        self,
        id: str,
        kind: FailureKind,
        severity: Severity,
        text: str,
        turn_id: str | None,
        hints: Hints = _NO_HINTS,
        *,
        resolves: bool = False,
        recovery: RecoveryPolicy | None = None,
    ) -> FailureRecord:
        policy = policy_for(kind)
        # The incident's rows read severity and scope themselves (the kind's policy unless the
        # caller names one).
        recovery = recovery or policy.recovery
        existing = self._incidents.get(id)
        # The record is built (and validated) before a new incident is registered, so input
        # that cannot make a record leaves no half-made incident behind.
        if kind is FailureKind.AUTH_REQUIRED:
            # Claude Code's `/login` exists only in its terminal; the `login` action is the step.
            text = without_login_instruction(text)
        title, details = shape_title(text.strip() or policy.fallback_title)
        record = FailureRecord(
            id=id,
            revision=existing.next_revision if existing is not None else 1,
            category=policy.category,
            severity=severity,
            title=title,
            details=details,
            actions=() if severity is Severity.WARNING else policy.actions,
            kind=kind,
            retry_after_seconds=hints[0],
            reset_at_epoch_ms=hints[1],
        )
        incident = existing
        if incident is None:
            incident = Incident(
                id=id, turn_id=turn_id, policy=recovery, resolves_on_delivery=resolves
            )
            self._incidents[id] = incident
        incident.propose(record, recovery)
        return record

    def confirm(self, id: str, revision: int) -> None:
        incident = self._require(id)
        was_active = incident.state is IncidentState.REVISING
        incident.confirm(revision)
        if incident.awaits_its_reset():
            # The newest limit failure carries the reset (docs/decisions.md#limit-that-resets); an
            # older one never will.
            for other in list(self.active_incidents()):
                if other is not incident:
                    other.reach(IncidentTrigger.RESET_SUPERSEDED)
        if incident.state is IncidentState.RESOLVED_HISTORICAL:
            self._let_go(incident, was_active=was_active)
        if incident.policy is RecoveryPolicy.NEVER:
            self._bound_notices()

    def _bound_notices(self) -> None:
        # WARNING: hand-coded, not drawn: a rule over the set of notices, not one incident.
        # Notices never recover (docs/decisions.md#recovery), so a long session would hold every one
        # it ever showed. Past NOTICE_LIMIT the oldest become history: internal state only; nothing
        # is published and the client keeps each entry.
        notices = [i for i in self.active_incidents() if i.policy is RecoveryPolicy.NEVER]
        for incident in notices[: max(0, len(notices) - NOTICE_LIMIT)]:
            if incident.reach(IncidentTrigger.NOTICES_OVERFLOWED):
                self._let_go(incident)

    def fail(self, id: str, revision: int) -> None:
        incident = self._require(id)
        incident.fail(revision)
        if incident.state is IncidentState.CREATED:
            # Nothing of it ever reached the client: forget it entirely.
            del self._incidents[id]
            incident.detach()

    def _require(self, id: str) -> Incident:
        incident = self._incidents.get(id)
        if incident is None:
            raise FsmError(f"no pending incident {id}")
        return incident

    # --- the active set and recovery -------------------------------------------------------

    def active(self) -> list[FailureRecord]:
        return [
            i.current
            for i in self._incidents.values()
            if i.state is IncidentState.REVISING and i.current is not None
        ]

    def incident(self, id: str) -> Incident | None:
        """The open incident of that id (pending or active), to read; only the ledger changes it."""
        return self._incidents.get(id)

    def active_incidents(self) -> Iterator[Incident]:
        return (i for i in self._incidents.values() if i.state is IncidentState.REVISING)

    def turn_warning_is_out(self) -> bool:
        """The open turn's entry reached the client and is, as delivered, a warning."""
        turn_id = self._open_turn
        incident = None if turn_id is None else self._incidents.get(ids.turn_failure_id(turn_id))
        return (
            incident is not None
            and incident.state is IncidentState.REVISING
            and incident.current is not None
            and incident.current.severity is Severity.WARNING
        )

    def history(self) -> list[FailureRecord]:
        return [i.current for i in self._history if i.current is not None]

    def reach(self, boundary: IncidentTrigger, turn_id: str | None = None) -> list[str]:
        """A recovery boundary: every active incident's table decides whether it resolves.
        Returns the ids that did."""
        done = [i for i in list(self.active_incidents()) if i.reach(boundary, turn_id)]
        for incident in done:
            self._let_go(incident)
        return [i.id for i in done]

    def take_recovered(self) -> list[str]:
        """The ids of the active incidents that resolved since the last call, oldest first."""
        recovered, self._recovered = self._recovered, []
        return recovered

    def _let_go(self, incident: Incident, *, was_active: bool = True) -> None:
        # Every caller lets go of an incident that was active (REVISING) before its last row,
        # except a confirmation that resolved it on delivery (`was_active` says which).
        if was_active:
            self._recovered.append(incident.id)
        del self._incidents[incident.id]
        self._history.append(incident)
        while len(self._history) > HISTORY_LIMIT:
            self._history.popleft().detach()

    def replace_runtime(self, epoch: str) -> list[str]:
        """A new runtime (the runtime machine's `open_epoch`): transport and worker incidents
        recover; a new id namespace begins."""
        recovered = self.reach(IncidentTrigger.RUNTIME_REPLACED)
        self.epoch = epoch
        self.next_incident = 1
        self._last_notice = None
        return recovered

    # --- the reset of a failed limit (docs/decisions.md#limit-that-resets) ------------------------

    def next_reset_ms(self) -> int | None:
        """When an active limit failure's reset comes (epoch ms), or None."""
        due = [i.resets_at_ms for i in self.active_incidents() if i.awaits_its_reset()]
        return min((ms for ms in due if ms is not None), default=None)

    def move_reset(self, resets_at_ms: int) -> None:
        """Claude rejected again with a later reset time: the awaited reset moves to it."""
        for incident in self.active_incidents():
            if incident.awaits_its_reset() and (incident.resets_at_ms or 0) < resets_at_ms:
                incident.resets_at_ms = resets_at_ms

    def take_resets(self, now_ms: int) -> list[FailureRecord]:
        """The revisions that say a limit has reset, for each active failure whose reset time
        is at or before `now_ms` (the incident's table decides; once per incident)."""
        records = []
        for incident in list(self.active_incidents()):
            taken = incident.reset_taken
            incident.fire(IncidentTrigger.RESET_REACHED, now_ms)
            current = incident.current
            if incident.reset_taken and not taken and current is not None:
                text = current.title + RESET_SENTENCE
                title, details = shape_title(text)
                if current.details:
                    details = f"{details}\n\n{current.details}" if details else current.details
                record = replace(
                    current,
                    revision=incident.next_revision,
                    title=title,
                    details=details,
                    actions=(Action.RETRY,),
                )
                incident.propose(record, incident.policy)
                records.append(record)
        return records

    def close(self) -> None:
        """Detach every incident (the session is over)."""
        for incident in [*self._incidents.values(), *self._history]:
            incident.detach()
        self._incidents.clear()
        self._history.clear()
