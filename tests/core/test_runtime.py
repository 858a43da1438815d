"""The runtime machine's table (`fsm/runtime.py`), rule by rule, and what its rows decide.

Like the turn's table test: every rule is reached on its own (its guards made to hold, the
guards of the rules before it for the same pair made to fail, callbacks replaced by
recorders), lands where it says and runs exactly its callbacks. The table is complete: every
(state, trigger) pair ends in an unguarded rule, so the runtime never refuses a fact. Then the
decisions, through the session core: which prompt goes to a fresh process, which epoch is
retired, and the two recovery boundaries its rows fire.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from fsm.effects import LogNotice, PublishRecord, SendPrompt, SettlePrompt, WithdrawQuestions
from fsm.events import (
    AssistantMessageReceived,
    AuthStatusReported,
    CredentialsChanged,
    DeliveryConfirmed,
    PromptReceived,
    PromptSent,
    ResultReceived,
    RuntimeStarted,
    RuntimeStartFailed,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.ledger import Ledger
from fsm.machine import expanded
from fsm.runtime import RUNTIME_MACHINE, TRANSITIONS, Runtime, RuntimeState
from fsm.session import SessionCore
from fsm.vocabulary import FailureKind

S = RuntimeState
RULES = expanded(TRANSITIONS)
TRIGGERS = sorted({r["trigger"] for r in RULES})
E1, E2 = "epoch-1", "epoch-2"


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    ledger = Ledger(session_id="s", epoch=E1)
    model = Runtime(ledger=ledger, started=True)
    yield model
    model.detach()
    ledger.close()


def _rules_for(source: S, trigger: str) -> list[dict[str, Any]]:
    return [r for r in RULES if (r["source"], r["trigger"]) == (source, trigger)]


def test_every_pair_is_listed_and_ends_in_an_unguarded_rule() -> None:
    for source, trigger in itertools.product(RuntimeState, TRIGGERS):
        rules = _rules_for(source, trigger)
        assert rules, (source, trigger)
        assert not rules[-1].get("conditions") and not rules[-1].get("unless"), (source, trigger)


@pytest.mark.parametrize("index", range(len(RULES)))
def test_rule_is_reachable_and_runs_its_callbacks(runtime: Runtime, index: int) -> None:
    rule = RULES[index]
    earlier = [r for r in _rules_for(rule["source"], rule["trigger"]) if RULES.index(r) < index]
    wanted = dict.fromkeys(rule.get("conditions", []), True)
    guards: dict[str, bool] = {}
    for other in earlier:
        free = [g for g in other.get("conditions", []) if g not in wanted]
        assert free, f"rule {index} is shadowed by rule {RULES.index(other)}"
        guards.setdefault(free[0], False)
    for name, value in (guards | wanted).items():
        setattr(runtime, name, lambda *_, v=value: v)
    called: list[str] = []
    for name in {n for r in RULES for n in r.get("before", [])}:
        setattr(runtime, name, lambda *_, n=name: called.append(n))
    RUNTIME_MACHINE.set_state(rule["source"], model=runtime)
    assert runtime.fire(rule["trigger"], None) == []
    assert runtime.state is (rule["source"] if rule["dest"] is None else rule["dest"])
    assert called == rule.get("before", [])


def test_what_the_states_mean_to_the_turn() -> None:
    # The turn's guards and the stale filter read these; no state is both up and lost.
    lost = {s for s in RuntimeState if s in (S.UNSTARTED, S.LOST, S.RESTARTING)}
    retired = {S.RESTARTING, S.RETIRING}
    ledger = Ledger(session_id="s", epoch=E1)
    model = Runtime(ledger=ledger, started=False)
    try:
        assert model.state is S.UNSTARTED
        for state in RuntimeState:
            RUNTIME_MACHINE.set_state(state, model=model)
            assert model.is_lost is (state in lost)
            assert model.is_retired is (state in retired)
            assert model.is_shutting_down is (state is S.SHUTTING_DOWN)
    finally:
        model.detach()
        ledger.close()


# --- the decisions, through the session core ------------------------------------------------


@pytest.fixture
def core() -> Iterator[SessionCore]:
    session = SessionCore(session_id="s", epoch=E1, capable=True)
    yield session
    session.close()


def _state(core: SessionCore) -> RuntimeState:
    # Read through a call: mypy would narrow the attribute between two checks.
    return core.runtime.state


def _answered(core: SessionCore, turn_id: str, epoch: str) -> None:
    core.handle(PromptReceived(turn_id=turn_id))
    core.handle(PromptSent(turn_id=turn_id))
    answer = AssistantMessageReceived(
        epoch=epoch, model="claude-sonnet-4-5", text="Hi.", text_block_count=1, top_level=True
    )
    core.handle(answer)
    core.handle(ResultReceived(epoch=epoch, subtype="success", is_error=False))


def test_a_lost_runtime_is_replaced_at_the_next_prompt_and_its_epoch_retired(
    core: SessionCore,
) -> None:
    _answered(core, "t1", E1)
    [lost] = core.handle(TransportLost(epoch=E1))
    assert isinstance(lost, PublishRecord) and lost.record.kind is FailureKind.TRANSPORT_LOST
    core.handle(DeliveryConfirmed(id=lost.record.id, revision=1))
    assert _state(core) is S.LOST
    assert core.handle(PromptReceived(turn_id="t2")) == [
        SendPrompt(turn_id="t2", replace_runtime=True)
    ]
    assert _state(core) is S.RESTARTING
    # RESTARTING: the old epoch is retired, so even its own words are dropped.
    assert core.handle(WorkerShuttingDown(epoch=E1)) == [
        LogNotice(message="dropped WorkerShuttingDown from a replaced runtime")
    ]
    # The new runtime's start is the row that recovers the loss (RUNTIME_REPLACED).
    assert core.active() == [lost.record]
    assert core.handle(RuntimeStarted(epoch=E2)) == [
        LogNotice(message=f"no longer active: {[lost.record.id]}")
    ]
    assert (_state(core), core.active(), core.epoch) == (S.UP, [], E2)


def test_new_credentials_retire_a_live_runtime_without_failing_the_prompt(
    core: SessionCore,
) -> None:
    assert core.handle(CredentialsChanged()) == []
    assert _state(core) is S.UP  # a flag for the next prompt, not a state
    assert core.handle(PromptReceived(turn_id="t1")) == [
        SendPrompt(turn_id="t1", replace_runtime=True)
    ]
    assert _state(core) is S.RETIRING
    # The fresh process fails to start: the prompt was not sent to a lost one, so the turn
    # fails with the start's own reason, and the runtime is now being restarted.
    assert core.handle(PromptSent(turn_id="t1")) == []
    withdraw, settled = core.handle(RuntimeStartFailed(reason="Claude Code did not start."))
    assert withdraw == WithdrawQuestions()
    assert isinstance(settled, SettlePrompt) and settled.record is not None
    assert settled.record.title == "Claude Code did not start."
    assert _state(core) is S.RESTARTING
    # Credentials are new once: the next prompt is replaced because the runtime is gone.
    assert core.runtime.new_credentials is False
    assert core.handle(PromptReceived(turn_id="t2")) == [
        SendPrompt(turn_id="t2", replace_runtime=True)
    ]


def test_a_second_start_of_the_same_runtime_is_a_logged_no_op(core: SessionCore) -> None:
    assert core.handle(RuntimeStarted(epoch=E1)) == [
        LogNotice(message="ignored a second start of the same runtime")
    ]
    assert (_state(core), core.epoch) == (S.UP, E1)


def test_only_a_settled_successful_auth_status_confirms_auth(core: SessionCore) -> None:
    core.handle(ResultReceived(epoch=E1, subtype="success", is_error=True, result="Not logged in"))
    failure = AssistantMessageReceived(
        epoch=E1,
        model="<synthetic>",
        text="Invalid API key",
        text_block_count=1,
        error="authentication_failed",
        top_level=True,
    )
    [auth] = core.handle(failure)
    assert isinstance(auth, PublishRecord) and auth.record.kind is FailureKind.AUTH_REQUIRED
    core.handle(DeliveryConfirmed(id=auth.record.id, revision=1))
    # Still signing in, or failed: the auth incident stays (the unguarded rule).
    core.handle(AuthStatusReported(epoch=E1, is_authenticating=True))
    core.handle(AuthStatusReported(epoch=E1, is_authenticating=False, error="denied"))
    assert auth.record in core.active()
    # Signed in: `confirm_auth` fires AUTH_CONFIRMED and the incident machine retires it.
    core.handle(AuthStatusReported(epoch=E1, is_authenticating=False))
    assert auth.record not in core.active()


def test_the_runtime_machine_decides_when_a_claude_process_starts() -> None:
    # The shell starts a Claude process only when a `SendPrompt` says so: a session whose
    # process was never started asks for one with its first prompt, and not again once it runs.
    fresh = SessionCore(session_id="s", epoch="unstarted", capable=True, started=False)
    try:
        assert fresh.runtime.state is S.UNSTARTED
        assert fresh.handle(PromptReceived(turn_id="t1")) == [
            SendPrompt(turn_id="t1", replace_runtime=True)
        ]
        assert fresh.handle(RuntimeStarted(epoch=E1)) == []
        fresh.handle(PromptSent(turn_id="t1"))
        fresh.handle(ResultReceived(epoch=E1, subtype="success", is_error=False))
        assert fresh.handle(PromptReceived(turn_id="t2")) == [SendPrompt(turn_id="t2")]
    finally:
        fresh.close()
    # A session opened with its process already running (a load or a resume spawns it).
    opened = SessionCore(session_id="s", epoch="unstarted", capable=True, started=False)
    try:
        assert opened.handle(RuntimeStarted(epoch=E1)) == []
        assert opened.handle(PromptReceived(turn_id="t1")) == [SendPrompt(turn_id="t1")]
    finally:
        opened.close()
