"""The session ledger: ids, revisions, the active set and recovery, for one session.

Theory of operation:
- Ids (DECISIONS rows 12-14): a live turn's failure is `<turnId>:error`; a failure with no live
  turn is `<sessionId>:session-error:<epoch>:<n>`; a notice is `<sessionId>:notice:<epoch>:<n>`,
  reusing the previous notice's id while its title repeats. `n` is one counter per runtime,
  advanced when an id is minted (so a failed send leaves a gap, as in the reference). The epoch
  is minted by the shell for every runtime.
- Revisions come from the incident: the last *delivered* revision plus one.
- The active set is the incidents in REVISING. Recovery (row 15) moves incidents to
  RESOLVED_HISTORICAL and publishes nothing. Resolved incidents are kept in a short history
  and then detached, so a session with many failing turns holds bounded state; their ids are
  never minted again (turn ids are fresh uuids, counters only rise within an epoch, and a new
  epoch is a new namespace).
- Capable and legacy clients: the ledger is used only for capable clients; for legacy ones the
  session core publishes nothing, so nothing becomes active.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator

from fsm import ids
from fsm.errors import FsmError, InvalidTransition
from fsm.incident import Incident, IncidentState
from fsm.records import FailureRecord, shape_title
from fsm.vocabulary import FailureKind, RecoveryPolicy, Severity, policy_for

__all__ = ["HISTORY_LIMIT", "NOTICE_LIMIT", "Ledger"]

# How many resolved incidents stay attached for inspection before they are let go.
HISTORY_LIMIT = 16
# How many notices stay active at once; older ones become history.
NOTICE_LIMIT = 8


class Ledger:
    def __init__(self, *, session_id: str, epoch: str) -> None:
        self.session_id = session_id
        self.epoch = epoch
        self.next_incident = 1
        self._incidents: dict[str, Incident] = {}
        self._history: deque[Incident] = deque()
        self._last_notice: tuple[str, str] | None = None  # (title, id)
        self._resolve_on_delivery: set[str] = set()

    # --- ids -----------------------------------------------------------------------------

    @staticmethod
    def turn_failure_id(turn_id: str) -> str:
        return ids.turn_failure_id(turn_id)

    def _mint(self, spell: Callable[[str, str, int], str]) -> str:
        n = self.next_incident
        self.next_incident += 1
        return spell(self.session_id, self.epoch, n)

    def session_failure_id(self) -> str:
        return self._mint(ids.session_failure_id)

    def notice_id(self, title: str) -> str:
        if self._last_notice is not None and self._last_notice[0] == title:
            return self._last_notice[1]
        notice = self._mint(ids.notice_id)
        self._last_notice = (title, notice)
        return notice

    # --- revisions ----------------------------------------------------------------------

    def propose(
        self,
        *,
        id: str,
        kind: FailureKind,
        severity: Severity,
        text: str,
        turn_id: str | None,
        retry_after_seconds: float | None = None,
        reset_at_epoch_ms: int | None = None,
    ) -> FailureRecord:
        """Build the next revision of incident `id` and make it pending.

        Raises `InvalidTransition` if `id` names a resolved incident (never re-activated).
        """
        if any(done.id == id for done in self._history):
            raise InvalidTransition("incident", "revision_proposed", "resolved-historical")
        policy = policy_for(kind)
        recovery = policy.recovery
        if severity is Severity.WARNING and recovery is not RecoveryPolicy.NEVER:
            # A warning is progress of one attempt; it never outlives the next boundary.
            recovery = RecoveryPolicy.NEXT_ATTEMPT
        if turn_id is None and recovery is RecoveryPolicy.NEXT_ATTEMPT:
            # No turn whose successor could confirm it: wait for a real answer instead.
            recovery = RecoveryPolicy.REAL_MODEL_SUCCESS
        existing = self._incidents.get(id)
        # The record is built (and validated) before a new incident is registered, so input
        # that cannot make a record leaves no half-made incident behind.
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
            retry_after_seconds=retry_after_seconds,
            reset_at_epoch_ms=reset_at_epoch_ms,
        )
        incident = existing
        if incident is None:
            incident = Incident(id=id, turn_id=turn_id, policy=recovery)
            self._incidents[id] = incident
        incident.propose(record, recovery)
        return record

    def propose_historical(self, *, id: str, text: str, active: bool) -> FailureRecord:
        """A replayed usage limit (session/load): quota, error, resolved on delivery unless
        `active`."""
        record = self.propose(
            id=id,
            kind=FailureKind.QUOTA_EXHAUSTED,
            severity=Severity.ERROR,
            text=text,
            turn_id=None,
        )
        if not active:
            self._resolve_on_delivery.add(id)
        return record

    def confirm(self, id: str, revision: int) -> None:
        incident = self._require(id)
        incident.confirm(revision)
        if id in self._resolve_on_delivery:
            self._resolve_on_delivery.discard(id)
            self._resolve(incident)
        if incident.policy is RecoveryPolicy.NEVER:
            self._bound_notices()

    def _bound_notices(self) -> None:
        # Notices never recover (row 15), so a long session would hold every one it ever
        # showed. Past NOTICE_LIMIT the oldest become history: internal state only; nothing is
        # published and the client keeps each entry.
        notices = [i for i in self.active_incidents() if i.policy is RecoveryPolicy.NEVER]
        for incident in notices[: max(0, len(notices) - NOTICE_LIMIT)]:
            self._resolve(incident)

    def fail(self, id: str, revision: int) -> None:
        incident = self._require(id)
        incident.fail(revision)
        self._resolve_on_delivery.discard(id)
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

    def active_incidents(self) -> Iterator[Incident]:
        return (i for i in self._incidents.values() if i.state is IncidentState.REVISING)

    def history(self) -> list[FailureRecord]:
        return [i.current for i in self._history if i.current is not None]

    def recover(self, matches: Callable[[Incident], bool]) -> list[str]:
        """Resolve every active incident `matches` accepts; returns their ids."""
        done = [i for i in self.active_incidents() if matches(i)]
        for incident in done:
            self._resolve(incident)
        return [i.id for i in done]

    def _resolve(self, incident: Incident) -> None:
        incident.resolve()
        del self._incidents[incident.id]
        self._history.append(incident)
        while len(self._history) > HISTORY_LIMIT:
            self._history.popleft().detach()

    def recover_earlier_turns(self, turn_id: str) -> list[str]:
        """A later attempt produced a result: the confirmed attempt boundary."""
        return self.recover(
            lambda i: i.policy is RecoveryPolicy.NEXT_ATTEMPT and i.turn_id != turn_id
        )

    def recover_after_real_answer(self, turn_id: str | None) -> list[str]:
        """A real model answered without error: quota, auth and this turn's warnings recover."""

        def matches(i: Incident) -> bool:
            if i.policy in (RecoveryPolicy.REAL_MODEL_SUCCESS, RecoveryPolicy.AUTH_STATUS):
                return True
            current = i.current
            return (
                current is not None
                and current.severity is Severity.WARNING
                and i.turn_id is not None
                and i.turn_id == turn_id
            )

        return self.recover(matches)

    def recover_auth(self) -> list[str]:
        return self.recover(lambda i: i.policy is RecoveryPolicy.AUTH_STATUS)

    def replace_runtime(self, epoch: str) -> list[str]:
        """A new runtime: transport and worker incidents recover; a new id namespace begins."""
        recovered = self.recover(lambda i: i.policy is RecoveryPolicy.RUNTIME_REBIND)
        self.epoch = epoch
        self.next_incident = 1
        self._last_notice = None
        return recovered

    def close(self) -> None:
        """Detach every incident (the session is over)."""
        for incident in [*self._incidents.values(), *self._history]:
            incident.detach()
        self._incidents.clear()
        self._history.clear()
