"""The runtime machine: what the session knows about its Claude process, one per session.

Theory of operation: a Claude process (a *runtime*, named by its epoch) is UNSTARTED until the
shell reports it ready, UP while it runs, SHUTTING_DOWN once it said `worker_shutting_down`
(its end will be a shutdown, not a crash), and LOST once the turn machine saw it end. The next
prompt after a loss goes to a fresh process: `prompt_dispatched` (the `SendPrompt` the turn
made) enters RESTARTING and its callback asks for the fresh process. New credentials do the
same to a live process, entering RETIRING (the replaced process was not lost, so a prompt sent
while it is retired is not failed for it); so does a plan exit that clears the context
(`fresh_context_requested`, from the turn's `StartFreshContext`), whose fresh process is a new
Claude session. In RESTARTING and RETIRING the current epoch is
retired: whatever it still says is dropped (docs/decisions.md#delivery), until a new runtime starts.
The rows that touch the incidents: a new runtime's start (`open_epoch`) fires RUNTIME_REPLACED, a
successful auth status (`confirm_auth`) fires AUTH_CONFIRMED; the incident machine decides what
recovers.

`has_new_credentials` is a guard over a flag, not a state: new credentials can arrive in any
state and wait for the next prompt. What is drawn: `diagrams/runtime.mmd`, listed in
`diagrams/runtime.md`.

WARNING: hand-coded, not drawn: the session core fires `prompt_dispatched` for every
`SendPrompt` the turn's rows make (`SessionCore._dispatch`), and `runtime_lost` comes from the
turn's `note_runtime_lost` callback.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from fsm.effects import Effect, LogNotice, SendPrompt, StartFreshContext
from fsm.events import AuthStatusReported, RuntimeStarted
from fsm.incident import IncidentTrigger
from fsm.ledger import Ledger
from fsm.machine import build_machine, fire

__all__ = ["RUNTIME_MACHINE", "TRANSITIONS", "Runtime", "RuntimeState"]


class RuntimeState(Enum):
    UNSTARTED = "unstarted"
    UP = "up"
    SHUTTING_DOWN = "shutting-down"
    LOST = "lost"
    RESTARTING = "restarting"
    RETIRING = "retiring"


UNSTARTED, UP, SHUTTING_DOWN = RuntimeState.UNSTARTED, RuntimeState.UP, RuntimeState.SHUTTING_DOWN
LOST, RESTARTING, RETIRING = RuntimeState.LOST, RuntimeState.RESTARTING, RuntimeState.RETIRING
EVERY_STATE = list(RuntimeState)
# No process this session's prompts can reach.
NO_PROCESS = [UNSTARTED, LOST, RESTARTING]
# A process is running (it may have said it is shutting down).
PROCESS_RUNNING = [UP, SHUTTING_DOWN]

# fmt: off
TRANSITIONS: list[dict[str, Any]] = [
    # The same runtime cannot start twice; resetting its counter would reuse ids.
    {"trigger": "runtime_started", "source": EVERY_STATE, "dest": None,
     "conditions": ["is_the_current_epoch"], "before": ["log_second_start"]},
    {"trigger": "runtime_started", "source": EVERY_STATE, "dest": UP, "before": ["open_epoch"]},
    {"trigger": "worker_shutting_down", "source": UP, "dest": SHUTTING_DOWN},
    {"trigger": "worker_shutting_down",
     "source": [UNSTARTED, SHUTTING_DOWN, LOST, RESTARTING, RETIRING], "dest": None},
    {"trigger": "runtime_lost", "source": PROCESS_RUNNING, "dest": LOST},
    # A fresh process that fails to start is lost too; the retired epoch stays retired.
    {"trigger": "runtime_lost", "source": [RESTARTING, RETIRING], "dest": RESTARTING},
    {"trigger": "runtime_lost", "source": [UNSTARTED, LOST], "dest": None},
    # docs/decisions.md#session-outlives-its-claude: after a lost process, the next prompt resumes
    # the session in a new one.
    {"trigger": "prompt_dispatched", "source": NO_PROCESS, "dest": RESTARTING,
     "before": ["send_to_a_fresh_runtime"]},
    {"trigger": "prompt_dispatched", "source": [*PROCESS_RUNNING, RETIRING], "dest": RETIRING,
     "conditions": ["has_new_credentials"], "before": ["send_to_a_fresh_runtime"]},
    {"trigger": "prompt_dispatched", "source": [*PROCESS_RUNNING, RETIRING], "dest": None,
     "before": ["send_prompt"]},
    # A plan exit that clears the context: the live process is retired, as for new
    # credentials, and a fresh context (a new Claude session) is started for the turn.
    {"trigger": "fresh_context_requested", "source": EVERY_STATE, "dest": RETIRING,
     "before": ["start_a_fresh_context"]},
    {"trigger": "credentials_changed", "source": EVERY_STATE, "dest": None,
     "before": ["note_new_credentials"]},
    {"trigger": "auth_status_reported", "source": EVERY_STATE, "dest": None,
     "conditions": ["is_authenticated"], "before": ["confirm_auth"]},
    {"trigger": "auth_status_reported", "source": EVERY_STATE, "dest": None},
]
# fmt: on

RUNTIME_MACHINE = build_machine(
    name="runtime", states=RuntimeState, transitions=TRANSITIONS, initial=UNSTARTED
)


class Runtime:
    """The session's Claude process as the core knows it: the machine's model."""

    state: RuntimeState

    def __init__(self, *, ledger: Ledger, started: bool) -> None:
        self.ledger = ledger
        self.new_credentials = False  # to take effect at the next prompt
        self.effects: list[Effect] = []
        RUNTIME_MACHINE.add_model(self, initial=UP if started else UNSTARTED)

    def detach(self) -> None:
        RUNTIME_MACHINE.remove_model(self)

    @property
    def is_lost(self) -> bool:
        """No process this session's prompts can reach (never started, or it ended)."""
        return self.state in NO_PROCESS

    @property
    def is_shutting_down(self) -> bool:
        return self.state is SHUTTING_DOWN

    @property
    def takes_prompts_as_is(self) -> bool:
        """A prompt sent now goes to the process that runs (none is lost, retiring or to be
        replaced for new credentials): what a prompt pushed into a running turn needs."""
        return self.state is UP and not self.new_credentials

    @property
    def is_retired(self) -> bool:
        """A fresh process was asked for: what the current epoch still says is dropped."""
        return self.state in (RESTARTING, RETIRING)

    def fire(self, trigger: str, arg: Any = None) -> list[Effect]:
        """Run `trigger` with `arg`; return the effects (`InvalidTransition` if no row fits)."""
        self.effects = []
        fire(RUNTIME_MACHINE, self, trigger, arg)
        effects, self.effects = self.effects, []
        return effects

    # --- guards --------------------------------------------------------------------------------

    def is_the_current_epoch(self, event: RuntimeStarted) -> bool:
        return event.epoch == self.ledger.epoch

    def has_new_credentials(self, *_: Any) -> bool:
        return self.new_credentials

    def is_authenticated(self, event: AuthStatusReported) -> bool:
        return not event.is_authenticating and event.error is None

    # --- callbacks -----------------------------------------------------------------------------

    def log_second_start(self, *_: Any) -> None:
        self.effects.append(LogNotice(message="ignored a second start of the same runtime"))

    def open_epoch(self, event: RuntimeStarted) -> None:
        # Transport and worker incidents recover; a new id namespace begins.
        self.ledger.replace_runtime(event.epoch)

    def send_prompt(self, effect: SendPrompt) -> None:
        self.effects.append(effect)

    def send_to_a_fresh_runtime(self, effect: SendPrompt) -> None:
        self.new_credentials = False
        self.effects.append(SendPrompt(turn_id=effect.turn_id, replace_runtime=True))

    def start_a_fresh_context(self, effect: StartFreshContext) -> None:
        self.effects.append(effect)

    def note_new_credentials(self, *_: Any) -> None:
        self.new_credentials = True

    def confirm_auth(self, *_: Any) -> None:
        self.ledger.reach(IncidentTrigger.AUTH_CONFIRMED)
