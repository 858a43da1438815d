"""The core's one touchpoint with `transitions` internals, kept here so an upgrade breaks one
place (pinned by `tests/shell/test_compat.py`).

transitions 0.9.3 logs a WARNING for every name `model_override=True` declines to bind
(`is_<state>`, `may_<trigger>`, the trigger methods): nine log records per incident attached,
most of an incident's creation time (see `tests/bench/fsm_core.py`), and noise in any shell that
shows warnings. `QuietMachine` declines the same names silently by overriding the private
`Machine._checked_assignment`.
"""

from __future__ import annotations

from typing import Any

from transitions import Machine

__all__ = ["QuietMachine"]


class QuietMachine(Machine):
    def _checked_assignment(self, model: Any, name: str, func: Any) -> None:
        # transitions' own rule (bind iff `model_override` agrees), minus the warning it logs
        # for each declined name.
        if (getattr(model, name, None) is None) ^ self.model_override:
            setattr(model, name, func)
