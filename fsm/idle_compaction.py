"""Idle compaction: the session compacts itself shortly before Claude's prompt cache expires.

Theory of operation: the reference adapter (docs/reference-adapter.md#idle-compaction) sends
Claude Code a `/compact` of its own when a session has sat idle for 0.9 h (54 minutes, inside
the one-hour prompt cache) with at least 200,000 tokens of context, so the user's next prompt
re-reads a short summary instead of the whole conversation. One `IdleCompaction` per session
is the model of the small `IDLE_MACHINE`, whose table is the decision:

    WAITING    --session_went_idle [is_disabled | is_rate_limited | cache_is_not_an_hour |
                                    context_is_small | no_request_seen] / log_why_not
                                                                       (stays WAITING)
    WAITING    --session_went_idle / start_the_idle_period             --> COUNTING
    COUNTING   --prompt_received | model_chosen | cancel_requested      --> WAITING
    COUNTING   --idle_deadline_reached [!is_due]                       (too early: stays)
    COUNTING   --idle_deadline_reached [is_rate_limited | has_lapsed | is_busy] / log_why_not
    COUNTING   --idle_deadline_reached / compact_now                   --> COMPACTING
    COMPACTING --session_went_idle                                     --> SPENT
    SPENT      --prompt_received                                       --> WAITING

An idle period starts when the session's last turn is answered with nothing queued (the core
derives `session_went_idle`); its deadline counts from the start of Claude's last top-level
request (`note_request`: the provider writes the cache when the request starts), so a session
only loaded, never prompted in this process, never compacts (the reference: "no request
recorded in this process"). Only a one-hour cache is worth saving: the last request's cache
TTL (`cache_creation.ephemeral_1h_input_tokens`) must say `1h`. Any prompt of the client's
ends the period; the adapter's own `/compact` does not (it is the period's one compaction), and
a client prompt that arrives while it runs waits behind it in the turn's queue (exactly one
answer each). A model chosen while idle ends the period too (the cache is the old model's), and
so does a cancel, as in the reference. After the compaction, or a deadline that found a reason
not to, the period is spent: at most one idle compaction until the client prompts again. The
last rate-limit status (anything but `allowed` suppresses it, as in Claude Code) and the last
context size Claude reported are data the shell reports, not states. The clock is the shell's:
events carry `now`, `next_deadline` says when to wake the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from fsm.effects import CompactWhenIdle, Effect, LogNotice
from fsm.machine import build_machine, fire

__all__ = [
    "DEFAULT_DELAY_SECONDS",
    "DEFAULT_MIN_TOKENS",
    "IDLE_MACHINE",
    "LAPSED_AFTER_SECONDS",
    "MIN_TOKENS_FLOOR",
    "TRANSITIONS",
    "IdleCompaction",
    "IdlePolicy",
    "IdleState",
]

# The reference's numbers: 54 minutes leaves a margin inside a one-hour cache.
DEFAULT_DELAY_SECONDS = 0.9 * 3600
DEFAULT_MIN_TOKENS = 200_000
MIN_TOKENS_FLOOR = 100_000  # CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS is never read below this
# A deadline reached this long after it passed (the machine slept): the cache is gone anyway.
LAPSED_AFTER_SECONDS = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class IdlePolicy:
    """What the settings say (the shell reads them): `disabled_by` names what turned it off
    (`idleCompaction: false`, `DISABLE_COMPACT`, ...), else None."""

    disabled_by: str | None = None
    delay_seconds: float = DEFAULT_DELAY_SECONDS
    min_tokens: int = DEFAULT_MIN_TOKENS


class IdleState(Enum):
    WAITING = "waiting"  # no idle period counting: a turn runs, or none ran in this process
    COUNTING = "counting"  # idle since `idle_since`; the deadline is set
    COMPACTING = "compacting"  # the adapter's own `/compact` turn is queued or running
    SPENT = "spent"  # this idle period had its compaction (or its reason not to)


WAITING, COUNTING = IdleState.WAITING, IdleState.COUNTING
COMPACTING, SPENT = IdleState.COMPACTING, IdleState.SPENT


def _row(
    trigger: str | list[str],
    source: IdleState,
    dest: IdleState | None,
    *before: str,
    when: str = "",
) -> dict[str, Any]:
    row: dict[str, Any] = {"trigger": trigger, "source": source, "dest": dest}
    if before:
        row["before"] = list(before)
    if when.startswith("!"):
        row["unless"] = [when[1:]]
    elif when:
        row["conditions"] = [when]
    return row


# fmt: off
TRANSITIONS: list[dict[str, Any]] = [
    # The session went idle: is this an idle period that could ever compact?
    _row("session_went_idle", WAITING, None, "log_why_not", when="is_disabled"),
    _row("session_went_idle", WAITING, None, "log_why_not", when="is_rate_limited"),
    _row("session_went_idle", WAITING, None, "log_why_not", when="cache_is_not_an_hour"),
    _row("session_went_idle", WAITING, None, "log_why_not", when="context_is_small"),
    _row("session_went_idle", WAITING, None, "log_why_not", when="no_request_seen"),
    _row("session_went_idle", WAITING, COUNTING, "start_the_idle_period"),
    _row("session_went_idle", COUNTING, None),
    # The adapter's own compaction turn ended: one per idle period.
    _row("session_went_idle", COMPACTING, SPENT),
    _row("session_went_idle", SPENT, None),
    # A prompt of the client's ends the idle period; the adapter's own `/compact` does not.
    _row("prompt_received", WAITING, None),
    _row("prompt_received", COUNTING, WAITING),
    _row("prompt_received", COMPACTING, None, when="is_our_compaction"),
    _row("prompt_received", COMPACTING, WAITING),
    _row("prompt_received", SPENT, WAITING),
    # The client chose another model (its cache is not the old one's) or cancelled: as the
    # reference, the period ends; anywhere else they change nothing here.
    _row(["model_chosen", "cancel_requested"], WAITING, None),
    _row(["model_chosen", "cancel_requested"], COUNTING, WAITING),
    _row(["model_chosen", "cancel_requested"], COMPACTING, None),
    _row(["model_chosen", "cancel_requested"], SPENT, None),
    # The shell's timer: the last checks, then the `/compact`.
    _row("idle_deadline_reached", WAITING, None),
    _row("idle_deadline_reached", COUNTING, None, when="!is_due"),
    # The settings may have changed since the period began (docs/decisions.md#settings-read-again).
    _row("idle_deadline_reached", COUNTING, WAITING, "log_why_not", when="is_disabled"),
    _row("idle_deadline_reached", COUNTING, SPENT, "log_why_not", when="is_rate_limited"),
    _row("idle_deadline_reached", COUNTING, SPENT, "log_why_not", when="has_lapsed"),
    _row("idle_deadline_reached", COUNTING, WAITING, "log_why_not", when="context_is_small"),
    _row("idle_deadline_reached", COUNTING, WAITING, "log_why_not", when="is_busy"),
    _row("idle_deadline_reached", COUNTING, COMPACTING, "compact_now"),
    _row("idle_deadline_reached", COMPACTING, None),
    _row("idle_deadline_reached", SPENT, None),
]
# fmt: on

IDLE_MACHINE = build_machine(
    name="idle_compaction", states=IdleState, transitions=TRANSITIONS, initial=WAITING
)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Fact:
    """What one trigger is fired with: the time, and the prompt's id for `prompt_received`."""

    now: float | None = None
    turn_id: str | None = None
    by_adapter: bool = False
    busy: bool = False


class IdleCompaction:
    """One session's idle compaction: the machine's model. `busy` says whether the session
    has a turn live or queued or cannot take a prompt now (the core's view of the turn)."""

    state: IdleState

    def __init__(self, policy: IdlePolicy) -> None:
        self.policy = policy
        self.context_tokens: int | None = None  # the last context size Claude reported
        self.rate_limit_status: str | None = None  # of the last `rate_limit_event`
        self.cache_ttl: str | None = None  # of the last request that said (`1h`, `5m`)
        self.last_request_at: float | None = None  # when Claude's last request started
        self.idle_since: float | None = None
        self.compactions = 0
        self.effects: list[Effect] = []
        IDLE_MACHINE.add_model(self, initial=WAITING)

    def detach(self) -> None:
        IDLE_MACHINE.remove_model(self)

    @property
    def deadline(self) -> float | None:
        """When the core next needs waking for this (monotonic seconds), or None."""
        if self.state is not COUNTING or self.idle_since is None:
            return None
        return self.idle_since + self.policy.delay_seconds

    # --- the data the shell reports (no decision of its own) -------------------------------

    def note_context(self, tokens: int, cache_ttl: str | None = None) -> None:
        self.context_tokens = tokens
        # A request that does not say keeps the TTL the last one said, as the reference does.
        self.cache_ttl = cache_ttl or self.cache_ttl

    def note_request(self, now: float | None) -> None:
        """Claude began a top-level request at `now`: the cache the deadline protects."""
        if now is not None:
            self.last_request_at = now

    def note_rate_limit(self, status: str | None) -> None:
        # Account state: it outlives the turn, and a status-less event changes nothing.
        if status:
            self.rate_limit_status = status

    # --- the triggers ---------------------------------------------------------------------

    def went_idle(self, now: float | None) -> list[Effect]:
        return self.fire("session_went_idle", _Fact(now=now))

    def prompted(self, turn_id: str, *, by_adapter: bool) -> list[Effect]:
        return self.fire("prompt_received", _Fact(turn_id=turn_id, by_adapter=by_adapter))

    # Not named after their triggers: `model_override` would bind the trigger over them.
    def chose_model(self) -> list[Effect]:
        return self.fire("model_chosen", None)

    def cancelled(self) -> list[Effect]:
        return self.fire("cancel_requested", None)

    def deadline_reached(self, now: float, *, busy: bool) -> list[Effect]:
        return self.fire("idle_deadline_reached", _Fact(now=now, busy=busy))

    def fire(self, trigger: str, fact: _Fact | None) -> list[Effect]:
        """Run `trigger`; return the effects (`InvalidTransition` if no row fits)."""
        self.effects = []
        fire(IDLE_MACHINE, self, trigger, fact)
        effects, self.effects = self.effects, []
        return effects

    # --- guards (pure: the fact and the model) --------------------------------------------

    def is_disabled(self, _: _Fact) -> bool:
        return self.policy.disabled_by is not None

    def context_is_small(self, _: _Fact) -> bool:
        tokens = self.context_tokens
        return tokens is None or tokens < self.policy.min_tokens

    def is_rate_limited(self, _: _Fact) -> bool:
        return self.rate_limit_status not in (None, "allowed")

    def cache_is_not_an_hour(self, _: _Fact) -> bool:
        return self.cache_ttl != "1h"

    def no_request_seen(self, _: _Fact) -> bool:
        return self.last_request_at is None

    def is_our_compaction(self, fact: _Fact) -> bool:
        return fact.by_adapter

    def is_due(self, fact: _Fact) -> bool:
        deadline = self.deadline
        return deadline is not None and fact.now is not None and fact.now >= deadline

    def has_lapsed(self, fact: _Fact) -> bool:
        deadline = self.deadline
        assert deadline is not None and fact.now is not None  # `is_due` held
        return fact.now > deadline + LAPSED_AFTER_SECONDS

    def is_busy(self, fact: _Fact) -> bool:
        return fact.busy

    # --- callbacks (they only record effects) ---------------------------------------------

    def start_the_idle_period(self, _: _Fact) -> None:
        self.idle_since = self.last_request_at

    def compact_now(self, _: _Fact) -> None:
        self.compactions += 1
        self.effects.append(CompactWhenIdle(number=self.compactions))

    def log_why_not(self, fact: _Fact) -> None:
        self.effects.append(LogNotice(message=f"idle compaction skipped: {self._why(fact)}"))

    def _why(self, fact: _Fact) -> str:
        # The first reason that holds, in the order the state's rows try them.
        if self.policy.disabled_by is not None:
            return f"disabled by {self.policy.disabled_by}"
        if self.is_rate_limited(fact):
            return f"rate limit status is {self.rate_limit_status}"
        if self.state is WAITING:
            if self.cache_is_not_an_hour(fact):
                return f"cache TTL is {self.cache_ttl or 'unknown'}, not 1h"
            if self.context_is_small(fact):
                tokens = "unknown" if self.context_tokens is None else self.context_tokens
                return f"context {tokens} tokens is below the {self.policy.min_tokens} minimum"
            return "no request recorded in this process"
        if self.state is COUNTING and self.has_lapsed(fact):
            return "the deadline passed more than 60 s ago (the cache has expired)"
        if self.state is COUNTING and self.context_is_small(fact):
            tokens = "unknown" if self.context_tokens is None else self.context_tokens
            return f"context {tokens} tokens is below the {self.policy.min_tokens} minimum"
        return "the session is busy or cannot take a prompt"
