"""The core's exceptions: one base, split by who is to blame.

Theory of operation: `InvalidTransition` means our own shell asked a machine for something its
table does not allow (a bug on our side); `PeerViolation` means the editor or Claude's process
sent something that cannot be taken as it is (an event constructor refuses it). The shell
handles them where they arise: a `PeerViolation` from a Claude frame skips that frame; any other
exception out of the core is an internal fault (docs/decisions.md#internal-faults), which the shell
reports back to the core as `InternalFaultOccurred`. The core never speaks JSON-RPC itself.
"""

from __future__ import annotations

__all__ = ["FsmError", "InvalidTransition", "PeerViolation"]


class FsmError(Exception):
    """Base of every error the core raises."""


class InvalidTransition(FsmError):
    """A trigger that the machine's table does not allow from its current state.

    The machine's state is unchanged when this is raised.
    """

    def __init__(self, machine: str, trigger: str, state: str) -> None:
        super().__init__(f"{machine}: cannot {trigger} from state {state}")
        self.machine = machine
        self.trigger = trigger
        self.state = state


class PeerViolation(FsmError):
    """Input from the editor or from Claude that the core cannot accept as given."""
