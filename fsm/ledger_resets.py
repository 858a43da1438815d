"""The ledger's part for the reset of a failed limit (docs/decisions.md#limit-that-resets).

Theory of operation: a limit failure's incident knows when its limit resets (`resets_at_ms`);
the incident machine decides when that reset is taken (`RESET_REACHED`, once per incident).
`Ledger` inherits `LimitResets`, which finds the next reset for the session clock, moves it when
Claude names a later one, and shapes the revision that says the limit has reset.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from fsm.incident import Incident, IncidentTrigger
from fsm.records import FailureRecord, shape_title
from fsm.vocabulary import Action

__all__ = ["RESET_SENTENCE", "LimitResets"]

# What a limit failure's title says once its reset time has come.
RESET_SENTENCE = " · The limit has reset; you can retry now."


class LimitResets:
    def active_incidents(self) -> Iterator[Incident]:
        raise NotImplementedError("provided by the ledger")  # pragma: no cover

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
