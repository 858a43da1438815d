"""The core's exceptions: one base, split by who is to blame.

Theory of operation: `InvalidTransition` means our own shell asked a machine for something its
table does not allow (a bug on our side); `PeerViolation` means the editor or Claude's process
sent something that cannot be taken as it is. Each carries a `hint`: the JSON-RPC error code the
adapter answers with when the error reaches the client boundary, so the mapping lives here and
the shell never guesses.
"""

from __future__ import annotations

__all__ = ["FsmError", "InvalidTransition", "PeerViolation"]

# JSON-RPC codes used as hints; the adapter translates, the core never speaks JSON-RPC itself.
INTERNAL_ERROR = -32603
INVALID_PARAMS = -32602


class FsmError(Exception):
    """Base of every error the core raises."""

    def __init__(self, message: str, *, hint: int = INTERNAL_ERROR) -> None:
        super().__init__(message)
        self.hint = hint


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

    def __init__(self, message: str) -> None:
        super().__init__(message, hint=INVALID_PARAMS)
