"""Long random event sequences against `SessionCore`, for capable and legacy clients.

The rules play a shell that feeds whatever Claude and the client might do, in any order: fresh
prompts, cancels, assistant messages of every shape, api_retry frames, results of every subtype,
fallbacks, auth and rate-limit reports, silence, idles, shutdowns, stream ends, transport loss,
runtime restarts under fresh epochs, stale events from replaced runtimes, replayed history. Every
`PublishRecord` effect is performed at once, as the shell does, and reported back as delivered
or failed. Besides single events, `whole_turn` plays a prompt through to its end in one rule, so
that deep turns (retries, then prose, then the ending) are common rather than lucky.

The invariants are the contract's promises that hold whatever happens:
- revisions strictly rise per id among delivered records (published-and-confirmed, or settled
  on a PromptResponse), each one the last delivered revision plus one;
- independent occurrences never share an id: a turn's id belongs to that turn alone,
  session-scoped ids are minted once, notices reuse an id only for the same title, and a
  resolved id never comes back;
- a warning never settles a turn, and each prompt gets exactly one answer, only while live;
- the wire projection has exactly the allowed keys;
- recovery publishes nothing;
- legacy mode never publishes and never puts a record on an answer;
- the active set holds only delivered records, each the last one delivered for its id.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from fsm.claude.classify import is_autonomous_origin
from fsm.effects import (
    Blame,
    CloseOpenCalls,
    Effect,
    ForwardAssistantMessage,
    InterruptClaude,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SendPrompt,
    SettlePrompt,
    ShowResult,
    StopReason,
    WithdrawPrompt,
    WithdrawQuestions,
)
from fsm.errors import InvalidTransition
from fsm.events import (
    AssistantMessageReceived,
    AuthStatusReported,
    CancelRequested,
    ClaudeEvent,
    ClaudeSilent,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    HistoryFailureFound,
    InternalFaultOccurred,
    ModelFellBack,
    PromptReceived,
    PromptSent,
    RateLimitReported,
    ResultReceived,
    RetryAttempted,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
    TurnWentIdle,
    WorkerShuttingDown,
)
from fsm.incident import INCIDENT_MACHINE
from fsm.records import FailureRecord
from fsm.session import SessionCore
from fsm.turn import TURN_MACHINE, TurnState
from fsm.vocabulary import FailureKind, Severity
from fsm.wire.dialects import SESSION_FAILURE_KEYS, SessionFailureDialect, session_failure_record
from tests.support.depth import budget

SID = "sess-1"
REAL = "claude-sonnet-4-5"
SYN = "<synthetic>"
SPEND_LIMIT = "You've hit your individual spend limit \u00b7 run /usage-credits"
LOGIN_TEXT = "Not logged in \u00b7 Please run /login"

CLI_ERRORS = [
    "authentication_failed",
    "oauth_org_not_allowed",
    "account_on_hold",
    "verification_required",
    "billing_error",
    "rate_limit",
    "overloaded",
    "invalid_request",
    "model_not_found",
    "server_error",
    "unknown",
    "max_output_tokens",
    "cloud_credential_error",
    "never_heard_of_it",
]
SUBTYPES = [
    "success",
    "error_during_execution",
    "error_max_turns",
    "error_max_budget_usd",
    "error_max_structured_output_retries",
]

# --- Claude's events, drawn as (kind, keywords) ---------------------------------------------------
# The epoch is added when the event is fed (only then is it known); `_claude_event` builds it.

Step = tuple[str, dict[str, Any]]

_prose = st.fixed_dictionaries(
    {
        "model": st.sampled_from([REAL, REAL, SYN, None]),
        "text": st.sampled_from(["Here is the answer.", "No response requested.", ""]),
        "text_block_count": st.integers(0, 2),
    }
)
_error = st.fixed_dictionaries(
    {
        "model": st.sampled_from([SYN, REAL]),
        "text": st.sampled_from(["API Error: 529 Overloaded", "Request failed.\n\nDetails.", ""]),
        "text_block_count": st.just(1),
        "error": st.sampled_from(CLI_ERRORS),
    }
)
_usage_limit = st.fixed_dictionaries(
    {
        "model": st.sampled_from([SYN, SYN, REAL]),
        "text": st.just(SPEND_LIMIT),
        "text_block_count": st.just(1),
        "error": st.sampled_from(["rate_limit", None]),
    }
)
_login = st.fixed_dictionaries(
    {
        "model": st.sampled_from([SYN, SYN, REAL]),
        "text": st.just(LOGIN_TEXT),
        "text_block_count": st.sampled_from([1, 1, 2]),
        "error": st.sampled_from([None, "authentication_failed"]),
    }
)
_refusal = st.fixed_dictionaries(
    {
        "model": st.just(REAL),
        "text": st.just("I can't help with that."),
        "text_block_count": st.just(1),
        "stop_reason": st.just("refusal"),
        "refusal_explanation": st.sampled_from([None, "It may violate the usage policy."]),
    }
)
_subagent = st.fixed_dictionaries(
    {
        "model": st.sampled_from([REAL, SYN]),
        "text": st.sampled_from(["sub-result", SPEND_LIMIT, LOGIN_TEXT]),
        "text_block_count": st.just(1),
        "error": st.sampled_from([None, "overloaded"]),
        "top_level": st.just(False),
    }
)
ASSISTANT = st.one_of(_prose, _error, _usage_limit, _login, _refusal, _subagent)
RETRY = st.fixed_dictionaries(
    {
        "attempt": st.integers(1, 4),
        "max_retries": st.just(4),
        "error_status": st.sampled_from([529, 429, 500, None, 401]),
        "error": st.sampled_from([None, *CLI_ERRORS]),
    },
    optional={
        "retry_delay_ms": st.sampled_from([0, 1_500, -1]),
    },
)
RESULT = st.fixed_dictionaries(
    {
        "subtype": st.sampled_from(SUBTYPES),
        "is_error": st.booleans(),
        "result": st.sampled_from([None, "", "Done.", LOGIN_TEXT, SPEND_LIMIT]),
        "errors": st.sampled_from([(), ("boom",), ("", "late")]),
        "stop_reason": st.sampled_from([None, "end_turn", "max_tokens", "refusal"]),
        "origin_kind": st.sampled_from([None, None, None, "task-notification", "user"]),
    }
)
FALLBACK = st.fixed_dictionaries(
    {
        "original_model": st.just("claude-opus-4-1"),
        "fallback_model": st.just(REAL),
        "refusal_category": st.sampled_from(["cyber", "bio"]),
        "explanation": st.sampled_from([None, "Because."]),
    }
)
AUTH = st.fixed_dictionaries(
    {"is_authenticating": st.booleans(), "error": st.sampled_from([None, "denied"])}
)
SILENCE = st.fixed_dictionaries({"waited_seconds": st.integers(1, 600)})
RATE_LIMIT = st.fixed_dictionaries(
    {
        "status": st.sampled_from(["allowed", "allowed_warning", "rejected"]),
        "resets_at": st.sampled_from([None, 1_900_000_000]),
    }
)
NOTHING: st.SearchStrategy[dict[str, Any]] = st.just({})


def _step(kind: str, keywords: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Step]:
    return st.tuples(st.just(kind), keywords)


# What Claude says during a turn, short of ending it. Messages and warnings are what turns are
# made of, so they are drawn more often (`one_of` picks its branches evenly).
MID_TURN: st.SearchStrategy[Step] = st.one_of(
    _step("assistant", ASSISTANT),
    _step("assistant", ASSISTANT),
    _step("assistant", ASSISTANT),
    _step("retry", RETRY),
    _step("retry", RETRY),
    _step("silent", SILENCE),
    _step("fallback", FALLBACK),
    _step("auth", AUTH),
    _step("rate_limit", RATE_LIMIT),
    _step("shutting_down", NOTHING),
)
# How a turn ends, or fails to end.
ENDING: st.SearchStrategy[Step] = st.one_of(
    _step("result", RESULT),
    _step("result", RESULT),
    _step("result", RESULT),
    _step("idle", NOTHING),
    _step("stream_end", NOTHING),
    _step("transport", NOTHING),
)


def _claude_event(step: Step, epoch: str) -> ClaudeEvent:
    kind, keywords = step
    match kind:
        case "assistant":
            return AssistantMessageReceived(epoch=epoch, **keywords)
        case "retry":
            return RetryAttempted(epoch=epoch, **keywords)
        case "result":
            return ResultReceived(epoch=epoch, **keywords)
        case "fallback":
            return ModelFellBack(epoch=epoch, **keywords)
        case "auth":
            return AuthStatusReported(epoch=epoch, **keywords)
        case "silent":
            return ClaudeSilent(epoch=epoch, **keywords)
        case "rate_limit":
            return RateLimitReported(epoch=epoch, **keywords)
        case "shutting_down":
            return WorkerShuttingDown(epoch=epoch)
        case "idle":
            return TurnWentIdle(epoch=epoch)
        case "stream_end":
            return StreamEnded(epoch=epoch)
        case _:
            return TransportLost(epoch=epoch)


# Events that are never failure signals: they must never publish (recovery is silent).
QUIET_EVENTS = (
    PromptSent,
    CancelRequested,
    DeliveryConfirmed,
    DeliveryFailed,
    RuntimeStarted,
    AuthStatusReported,
    RateLimitReported,
    WorkerShuttingDown,
)


class SessionStateMachine(RuleBasedStateMachine):
    capable: ClassVar[bool]

    def __init__(self) -> None:
        super().__init__()
        self.models_before = (len(INCIDENT_MACHINE.models), len(TURN_MACHINE.models))
        self.epoch = "epoch-0"
        # The core's own queue (prompt queueing off): a prompt while another is live waits;
        # the pushed path has its narratives in tests/core/session/test_prompt_queueing.py.
        self.core = SessionCore(
            session_id=SID, epoch=self.epoch, capable=self.capable, prompt_queueing=False
        )
        self.old_epochs: list[str] = []
        self.turns = 0
        self.histories = 0
        self.live: str | None = None  # the prompt waiting for its one answer
        self.answered: set[str] = set()
        self.delivered: dict[str, FailureRecord] = {}  # the last delivered record per id
        self.minted: set[str] = set()  # session-error and notice ids seen so far
        self.last_n = 0  # the highest incident number minted in this epoch
        self.last_notice: tuple[str, str] | None = None  # (id, title) of the latest notice
        self.resolved: set[str] = set()  # ids that left the active set
        self.queued: list[str] = []  # prompts received while another was live, oldest first
        self.interrupts: dict[str | None, int] = {}  # InterruptClaude effects per live turn
        self.broken = False

    # --- the shell: feed one event, perform its effects, check them -------------------------

    def _feed(self, event: Event, data: st.DataObject) -> list[Effect]:
        live_before = self.live
        effects = self._handle(event)
        if isinstance(event, ResultReceived):
            # Every result's first word is whose it is: the live prompt's, or no prompt's
            # (docs/decisions.md#result-owner); said once.
            owners = [e for e in effects if isinstance(e, ShowResult)]
            assert len(owners) == 1 and effects[0] is owners[0], effects
            assert owners[0].turn_id in (None, live_before), (live_before, effects)
        effects = self._check_withdrawals(event, effects, live_before)
        effects = self._check_waiting(effects, live_before)
        self._check_answers(event, effects, live_before)
        self.interrupts[live_before] = self.interrupts.get(live_before, 0) + sum(
            isinstance(e, InterruptClaude) for e in effects
        )
        # One interrupt per turn however often the client cancels.
        assert self.interrupts[live_before] <= (1 if live_before else 0), effects
        for effect in effects:
            if isinstance(effect, PublishRecord):
                self._check_published(event, effect.record, live_before)
                self._deliver(effect.record, data.draw(st.booleans(), label="delivered"))
        if isinstance(event, QUIET_EVENTS):
            assert not any(isinstance(e, PublishRecord) for e in effects), event
        return effects

    def _handle(self, event: Event) -> list[Effect]:
        # Recovery publishes nothing; the core logs exactly the ids that left the active set
        # (checked here against the active set itself, then set aside).
        active_before = {r.id for r in self.core.active()}
        effects = self.core.handle(event)
        recovered = active_before - {r.id for r in self.core.active()}
        logs = [
            e
            for e in effects
            if isinstance(e, LogNotice) and e.message.startswith("no longer active: ")
        ]
        expected = [LogNotice(message=f"no longer active: {sorted(recovered)}")]
        assert logs == (expected if recovered else []), (event, effects)
        assert not logs or effects[-1] == logs[0]
        self.resolved |= recovered
        return [e for e in effects if e not in logs]

    def _check_withdrawals(
        self, event: Event, effects: list[Effect], live_before: str | None
    ) -> list[Effect]:
        # A question still open belongs to a turn that is over: the live prompt's answer comes
        # right after the withdrawal of every open question, and a cancel withdraws them first.
        for i, effect in enumerate(effects):
            if isinstance(effect, SettlePrompt | RejectPrompt) and effect.turn_id == live_before:
                assert i > 0 and effects[i - 1] == WithdrawQuestions(), effects
        if isinstance(event, CancelRequested):
            assert effects[:1] == [WithdrawQuestions()], effects
        return [e for e in effects if not isinstance(e, WithdrawQuestions)]

    def _check_waiting(self, effects: list[Effect], live_before: str | None) -> list[Effect]:
        # Every answer names its prompt: the live one, or one that waits (queued, or refused by
        # a broken session); the next queued prompt is dispatched only after the live one's
        # answer.
        rest: list[Effect] = []
        for effect in effects:
            if isinstance(effect, SettlePrompt | RejectPrompt) and effect.turn_id != live_before:
                assert effect.turn_id in self.queued or self.broken, effect
                if effect.turn_id == self.dispatched:
                    self.dispatched = None
                assert effect.turn_id not in self.answered
                self.answered.add(effect.turn_id)
                if effect.turn_id in self.queued:
                    self.queued.remove(effect.turn_id)
                if isinstance(effect, SettlePrompt):
                    assert effect.stop_reason is StopReason.CANCELLED
            elif isinstance(effect, SendPrompt):
                assert effect is effects[-1] and self.queued[0] == effect.turn_id
                self.queued.pop(0)
                self.dispatched = effect.turn_id
                self.replace = effect.replace_runtime
            else:
                rest.append(effect)
        return rest

    def _deliver(self, record: FailureRecord, ok: bool) -> None:
        # The shell performed the session_info_update and reports how it went.
        if ok:
            reply = self._handle(DeliveryConfirmed(id=record.id, revision=record.revision))
            assert reply == []
            self._delivered(record)
        else:
            reply = self._handle(DeliveryFailed(id=record.id, revision=record.revision))
            assert reply == [
                LogNotice(message=f"failed to publish {record.id} revision {record.revision}")
            ]

    def _delivered(self, record: FailureRecord) -> None:
        previous = self.delivered.get(record.id)
        assert record.revision > (previous.revision if previous else 0)
        self.delivered[record.id] = record

    def _check_record(self, record: FailureRecord) -> None:
        # Shape, on the wire and inside.
        wire = session_failure_record(record)
        expected = SESSION_FAILURE_KEYS if record.details else SESSION_FAILURE_KEYS - {"details"}
        assert set(wire) == expected
        assert SessionFailureDialect().meta_for(record) == {
            "jetbrains": {"air": {"version": 1, "sessionFailure": wire}}
        }
        assert record.title and record.details != record.title
        if record.severity is Severity.WARNING:
            assert record.actions == ()
        # The next revision of what was delivered; never a resolved id.
        previous = self.delivered.get(record.id)
        assert record.revision == (previous.revision + 1 if previous else 1), record
        assert record.id not in self.resolved, record

    def _check_published(
        self, event: Event, record: FailureRecord, live_before: str | None
    ) -> None:
        assert self.capable, "legacy clients never get a record"
        self._check_record(record)
        id = record.id
        if id.startswith("turn-"):
            # A turn's id is that turn's alone: only the live turn publishes under it, and
            # what it publishes as a session_info_update is progress, never the terminal error.
            assert id == f"{live_before}:error", (id, live_before)
            assert record.severity is Severity.WARNING
            return
        if id.startswith("hist-"):
            assert isinstance(event, HistoryFailureFound) and event.id == id
            return
        prefix, namespace, epoch, n = id.split(":")
        assert (prefix, epoch) == (SID, self.epoch), id
        assert namespace in ("session-error", "notice"), id
        if namespace == "notice" and self.last_notice and self.last_notice[0] == id:
            # A repeated notice may revise the latest notice's entry, with the same title only.
            assert self.last_notice[1] == record.title
        else:
            # Anything else is a new occurrence: a fresh number in this epoch's one counter.
            assert id not in self.minted, id
            assert int(n) > self.last_n, id
            self.last_n = int(n)
            self.minted.add(id)
        if namespace == "notice":
            assert record.kind is FailureKind.ADVISORY
            self.last_notice = (id, record.title)

    def _check_answers(self, event: Event, effects: list[Effect], live_before: str | None) -> None:
        answers = [e for e in effects if isinstance(e, SettlePrompt | RejectPrompt)]
        # At most one answer, only for a live prompt, which is then no longer live.
        assert len(answers) <= 1, effects
        if not answers:
            return
        assert live_before is not None, (event, effects)
        assert live_before not in self.answered
        self.answered.add(live_before)
        self.live = None
        [answer] = answers
        assert answer.turn_id == live_before  # every answer names its prompt
        # The answer comes last (any explanation text goes before it), with no warning beside it.
        assert effects[-1] is answer
        assert not any(isinstance(e, PublishRecord) for e in effects)
        if isinstance(answer, RejectPrompt):
            assert not self.capable
            assert answer.blame in (Blame.INTERNAL, Blame.AUTH)
            return
        if answer.record is not None:
            assert self.capable
            # A warning never settles a turn; the terminal record is the turn's own.
            assert answer.record.severity is Severity.ERROR
            assert answer.record.id == f"{live_before}:error"
            self._check_record(answer.record)
            self._delivered(answer.record)

    # --- rules: the client ---------------------------------------------------------------------

    dispatched: str | None = None
    replace = False

    @precondition(lambda self: self.live is None and not self.broken)
    @rule(data=st.data())
    def send_prompt(self, data: st.DataObject) -> None:
        if self.dispatched is not None:
            turn, self.dispatched = self.dispatched, None
            if self.replace:
                # The core asked for a fresh Claude process first: the shell starts one.
                self.replace = False
                self.old_epochs.append(self.epoch)
                self.epoch = f"epoch-{len(self.old_epochs)}"
                assert self._feed(RuntimeStarted(epoch=self.epoch), data) == []
                self.last_n, self.last_notice = 0, None
        else:
            self.turns += 1
            turn = f"turn-{self.turns}"
        assert self._feed(PromptSent(turn_id=turn), data) == []
        self.live = turn

    @precondition(lambda self: self.live is not None or self.broken)
    @rule(data=st.data())
    def client_prompts_again(self, data: st.DataObject) -> None:
        # A prompt while another is live waits in the core's queue (or is refused if broken).
        self.turns += 1
        turn = f"turn-{self.turns}"
        self.queued.append(turn)
        effects = self._feed(PromptReceived(turn_id=turn), data)
        if self.broken:
            assert turn in self.answered and effects == []
        else:
            assert effects == [] and self.queued[-1] == turn

    @rule(data=st.data())
    def adapter_fails_inside(self, data: st.DataObject) -> None:
        # docs/decisions.md#internal-faults: our own bug. The live prompt fails as internal_error;
        # the session is broken.
        live, waiting = self.live, [*self.queued, *([self.dispatched] if self.dispatched else [])]
        self.broken = True
        effects = self._feed(InternalFaultOccurred(), data)
        # Every prompt that waited got its one answer too.
        assert all(turn in self.answered for turn in waiting)
        self.dispatched = None
        assert self.core.broken and not self.core.turn.live and self.queued == []
        if live is not None and self.capable:
            [answer] = effects
            assert isinstance(answer, SettlePrompt) and answer.record is not None
            assert answer.record.kind is FailureKind.INTERNAL_ERROR
            assert answer.record.category.value == "service"
        elif live is not None:
            assert [type(e) for e in effects] == [RejectPrompt]

    @rule(
        data=st.data(),
        kind=st.sampled_from(["cancel", "prompt_while_live", "history"]),
        active=st.booleans(),
        title=st.sampled_from([SPEND_LIMIT, "You've reached your limit"]),
    )
    def client_interjects(self, data: st.DataObject, kind: str, active: bool, title: str) -> None:
        if kind == "cancel":
            live = self.live
            waiting = self.core.turn_state is TurnState.PROMPT_SENT
            effects = self._feed(CancelRequested(), data)
            # A prompt Claude Code has not started is withdrawn from its queue too
            # (docs/decisions.md#prompt-ended-unstarted).
            withdrawn = [WithdrawPrompt(turn_id=live)] if waiting and live is not None else []
            assert effects in ([], [*withdrawn, InterruptClaude()])
            # Queued prompts never reached Claude: they were answered cancelled.
            assert self.queued == [] and (effects == [] or live is not None)
        elif kind == "prompt_while_live":
            if self.live is None:
                return
            # The shell queues prompts; feeding one anyway is a loud bug that changes nothing.
            before = (self.core.turn_state, self.core.turn.turn_id, self.core.active())
            with pytest.raises(InvalidTransition):
                self.core.handle(PromptSent(turn_id="turn-queued"))
            assert (self.core.turn_state, self.core.turn.turn_id, self.core.active()) == before
        else:
            # session/load replays a stored usage limit.
            self.histories += 1
            event = HistoryFailureFound(
                id=f"hist-{self.histories}:error", title=title, active=active
            )
            assert len(self._feed(event, data)) == (1 if self.capable else 0)

    # --- rules: Claude -------------------------------------------------------------------------

    @rule(data=st.data(), step=st.one_of(MID_TURN, ENDING))
    def claude_says(self, data: st.DataObject, step: Step) -> None:
        if self.dispatched is not None:
            self.send_prompt(data)  # the shell sends what the core dispatched first
        # One event from the current runtime, at any moment.
        self._claude(step, data)

    @rule(data=st.data(), steps=st.lists(MID_TURN, min_size=1, max_size=8), ending=ENDING)
    def whole_turn(self, data: st.DataObject, steps: list[Step], ending: Step) -> None:
        # A turn played out: a prompt (unless one is live), what Claude says, how it ends.
        if self.broken:
            return
        if self.live is None:
            self.send_prompt(data)
        for step in [*steps, ending]:
            self._claude(step, data)

    def _claude(self, step: Step, data: st.DataObject) -> None:
        event = _claude_event(step, self.epoch)
        effects = self._feed(event, data)
        match event:
            case AssistantMessageReceived():
                # Forwarded, withheld (docs/decisions.md#capable-clients), released before what
                # follows (docs/decisions.md#error-prose-without-record), or a session-scoped record
                # between turns (docs/decisions.md#failures-between-turns).
                allowed = (ForwardAssistantMessage, SendAgentText, PublishRecord, LogNotice)
                assert all(isinstance(e, allowed) for e in effects), effects
            case RetryAttempted() | ClaudeSilent():
                # A warning, or (for a client that takes none) a line in the log.
                assert all(
                    (isinstance(e, PublishRecord) and e.record.severity is Severity.WARNING)
                    or (isinstance(e, LogNotice) and not self.capable)
                    for e in effects
                ), effects
            case ModelFellBack() if self.capable:
                [published] = effects
                assert isinstance(published, PublishRecord)
                assert published.record.kind is FailureKind.ADVISORY
            case ModelFellBack():
                assert [type(e) for e in effects] == [SendAgentText]
            case AuthStatusReported(is_authenticating=authenticating, error=error):
                assert effects == []
                if not authenticating and error is None:
                    auth = [r for r in self.core.active() if r.kind is FailureKind.AUTH_REQUIRED]
                    assert auth == []
            case ResultReceived(origin_kind=kind) if is_autonomous_origin(kind):
                # Claude's own work touches no turn; its cards end at its result
                # (docs/decisions.md#own-work-ends-its-cards).
                # Its text is no turn's answer (docs/decisions.md#result-owner).
                owned = [ShowResult()]
                assert effects == (owned if self.broken else [*owned, CloseOpenCalls()])

    @rule(data=st.data(), stale=st.one_of(MID_TURN, ENDING), which=st.integers(0, 100))
    def runtime_replaced(self, data: st.DataObject, stale: Step, which: int) -> None:
        # A new runtime under a fresh epoch; then, maybe, a late word from an old one.
        self.old_epochs.append(self.epoch)
        self.epoch = f"epoch-{len(self.old_epochs)}"
        assert self._feed(RuntimeStarted(epoch=self.epoch), data) == []
        self.last_n = 0
        self.last_notice = None
        # The transport and worker failures of the old runtime recovered.
        assert [
            r
            for r in self.core.active()
            if r.severity is Severity.ERROR
            and r.kind in (FailureKind.TRANSPORT_LOST, FailureKind.WORKER_SHUTDOWN)
        ] == []
        self._stale(data, stale, self.old_epochs[which % len(self.old_epochs)])

    @precondition(lambda self: bool(self.old_epochs))
    @rule(data=st.data(), stale=st.one_of(MID_TURN, ENDING), which=st.integers(0, 100))
    def replaced_runtime_speaks(self, data: st.DataObject, stale: Step, which: int) -> None:
        self._stale(data, stale, self.old_epochs[which % len(self.old_epochs)])

    def _stale(self, data: st.DataObject, step: Step, epoch: str) -> None:
        event = _claude_event(step, epoch)
        before = (self.core.turn_state, self.core.active(), self.core.ledger.next_incident)
        # A replaced runtime's words are logged and dropped; nothing moves. Its result is no
        # prompt's (docs/decisions.md#result-owner).
        owner = [ShowResult()] if isinstance(event, ResultReceived) else []
        assert self._feed(event, data) == [
            *owner,
            LogNotice(message=f"dropped {type(event).__name__} from a replaced runtime"),
        ]
        assert (self.core.turn_state, self.core.active(), self.core.ledger.next_incident) == before

    # --- invariants ----------------------------------------------------------------------------

    @invariant()
    def broken_is_sticky(self) -> None:
        assert self.core.broken is self.broken

    @invariant()
    def turn_matches_the_prompts(self) -> None:
        assert self.core.turn.live is (self.live is not None)
        if self.live is not None:
            assert self.core.turn.turn_id == self.live

    @invariant()
    def active_set_holds_only_delivered_records(self) -> None:
        active = self.core.active()
        if not self.capable:
            assert active == []
            return
        ids = [r.id for r in active]
        assert len(ids) == len(set(ids))
        for record in active:
            assert self.delivered.get(record.id) == record
            assert record.id not in self.resolved

    def teardown(self) -> None:
        # Closing the session detaches every model it attached to the shared machines.
        self.core.close()
        assert (len(INCIDENT_MACHINE.models), len(TURN_MACHINE.models)) == self.models_before


# 150 examples under `--deep` (the whole check), 40 otherwise, each of up to 30 steps and drawn
# deterministically either way (tests/support/depth.py).
SETTINGS = settings(
    max_examples=budget(quick=40, deep=150),
    stateful_step_count=30,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


class CapableSession(SessionStateMachine):
    capable = True


class LegacySession(SessionStateMachine):
    capable = False


TestCapableSession = CapableSession.TestCase
TestCapableSession.settings = SETTINGS
TestLegacySession = LegacySession.TestCase
TestLegacySession.settings = SETTINGS
