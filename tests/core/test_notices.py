"""The notice routing (`fsm/notices.py`, docs/decisions.md#model-fallback, #acp-notices and
#mcp-server-problems): every row on its own, and a model fallback, MCP server problems, auto mode
and fast mode through the session core for each kind of client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fsm.effects import LogNotice, PublishRecord, SendAgentText, SendNotice
from fsm.events import (
    AutoModeFellBackAtStart,
    AutoModeUnavailable,
    FastModeTurnedOff,
    McpServersReported,
    McpServerStatus,
    ModelFellBack,
    PromptRequested,
    PromptSent,
)
from fsm.machine import expanded
from fsm.notices import NOTICE_MACHINE, TRANSITIONS, Notices, server_words
from fsm.session import SessionCore
from fsm.vocabulary import Category, FailureKind, Severity

RULES = expanded(TRANSITIONS)
E = "epoch-1"
PRIVATE = ("/home/alice",)


@pytest.fixture
def model() -> Iterator[Notices]:
    from fsm.ledger import Ledger

    ledger = Ledger(session_id="s", epoch=E)
    notices = Notices(
        ledger=ledger, records=True, acp_notices=False, private=(), live_turn=lambda: None
    )
    yield notices
    notices.detach()
    ledger.close()
    assert notices not in NOTICE_MACHINE.models


@pytest.mark.parametrize(("index", "row"), list(enumerate(RULES)))
def test_row_is_reachable_and_runs_its_callbacks(
    model: Notices, index: int, row: dict[str, Any]
) -> None:
    # The row's guards hold, each earlier row of its trigger fails on a guard this one does
    # not pin, and exactly its callbacks run.
    wanted = dict.fromkeys(row.get("conditions", []), True)
    guards = dict(wanted)
    for other in RULES[:index]:
        if other["trigger"] != row["trigger"]:
            continue
        free = [g for g in other.get("conditions", []) if g not in wanted]
        assert free, f"row {index} is shadowed by row {RULES.index(other)}"
        guards.setdefault(free[0], False)
    for name, value in guards.items():
        setattr(model, name, lambda *_, v=value: v)
    called: list[str] = []
    for name in {n for r in RULES for n in r.get("before", [])}:
        setattr(model, name, lambda *_, n=name: called.append(n))
    model.fire(row["trigger"], None)
    assert called == row.get("before", [])


def test_every_trigger_ends_in_an_unguarded_row() -> None:
    for trigger in {r["trigger"] for r in RULES}:
        assert not [r for r in RULES if r["trigger"] == trigger][-1].get("conditions")


# --- through the core, per client ---------------------------------------------------------

FAILED = McpServerStatus(name="db", status="failed")
NEEDS_AUTH = McpServerStatus(name="docs", status="needs-auth")


def _core(kind: str) -> SessionCore:
    records = kind == "records"
    return SessionCore(
        session_id="s",
        epoch=E,
        capable=kind in ("records", "agent_error"),
        notices=records,
        private=PRIVATE,
        acp_notices=kind in ("acp", "records"),
    )


def _servers(*servers: McpServerStatus) -> McpServersReported:
    return McpServersReported(epoch=E, servers=servers)


def test_mcp_problems_are_warning_records_for_a_session_failure_client() -> None:
    # it declared `session.notices` too: records only (docs/decisions.md#acp-notices)
    core = _core("records")
    effects = core.handle(
        _servers(FAILED, NEEDS_AUTH, McpServerStatus(name="ok", status="connected"))
    )
    records = [e.record for e in effects if isinstance(e, PublishRecord)]
    assert len(effects) == len(records) == 2
    assert [(r.category, r.severity, r.title, r.actions) for r in records] == [
        (Category.SERVICE, Severity.WARNING, 'MCP server "db" failed to start', ()),
        (
            Category.ACCESS,
            Severity.WARNING,
            'MCP server "docs" needs authentication · run /mcp',
            (),
        ),
    ]
    assert all(":notice:" in r.id for r in records) and records[0].id != records[1].id
    assert [r.kind for r in records] == [FailureKind.MCP_SERVER_FAILED, FailureKind.MCP_NEEDS_AUTH]
    core.close()


def test_mcp_problems_are_acp_notices_for_a_notices_client() -> None:
    core = _core("acp")
    assert core.handle(_servers(FAILED, NEEDS_AUTH)) == [
        SendNotice(
            severity="warning",
            title='MCP server "db" failed to start',
            description="Its tools are unavailable in this session. Run /mcp for the error.",
        ),
        SendNotice(
            severity="info",
            title='MCP server "docs" needs authentication',
            description="Its tools are unavailable until the server is authenticated.",
        ),
    ]
    assert core.active() == []
    core.close()


@pytest.mark.parametrize("kind", ["legacy", "agent_error"])
def test_mcp_problems_are_the_references_text_for_others(kind: str) -> None:
    core = _core(kind)
    assert core.handle(_servers(FAILED)) == [
        SendAgentText(
            text='**MCP server "db" failed to start:** Its tools are unavailable in this '
            "session. Run /mcp for the error.",
            meta={"claudeCode": {"kind": "mcpServerStatus", "server": "db", "status": "failed"}},
        )
    ]
    core.close()


def test_each_server_and_state_is_reported_once() -> None:
    core = _core("acp")
    assert len(core.handle(_servers(FAILED))) == 1
    core.handle(PromptSent(turn_id="t1"))
    # The next turn's init frame says the same: nothing; a new state of it is news.
    assert core.handle(_servers(FAILED)) == []
    [notice] = core.handle(_servers(McpServerStatus(name="db", status="needs-auth")))
    assert isinstance(notice, SendNotice) and notice.severity == "info"
    core.close()


def test_an_unknown_shape_is_logged_once_and_nothing_else() -> None:
    core = _core("records")
    odd = (
        McpServerStatus(name=None, status="failed"),
        McpServerStatus(name="db", status=None),
        McpServerStatus(name="db", status="exploded"),
    )
    assert core.handle(_servers(*odd)) == [
        LogNotice(message="ignored an MCP server status of an unknown shape")
    ]
    assert core.handle(_servers(*odd)) == [] and core.active() == []
    core.close()


@pytest.mark.parametrize(
    "name", ["https://user:token@example.com/mcp", "/home/alice/bin/server", "a\nb", "x" * 80]
)
def test_a_name_that_could_leak_is_left_out_of_the_title(name: str) -> None:
    record_title, title, _ = server_words(name, "failed")
    assert (record_title, title) == ("An MCP server failed to start",) * 2


def test_a_private_value_in_a_plain_name_is_masked() -> None:
    masking = SessionCore(session_id="s", epoch=E, capable=False, private=("secret",))
    [text] = masking.handle(_servers(McpServerStatus(name="secret", status="failed")))
    assert isinstance(text, SendAgentText) and "secret" not in text.text + str(text.meta)
    masking.close()


def _fallback(explanation: str | None = None) -> ModelFellBack:
    return ModelFellBack(
        epoch=E,
        original_model="claude-opus-4-5",
        fallback_model="claude-sonnet-4-5",
        refusal_category="cyber",
        explanation=explanation,
    )


SUMMARY = (
    "claude-opus-4-5 declined this request (cyber); retried with claude-sonnet-4-5. "
    "The session will continue on claude-sonnet-4-5."
)


def test_a_model_fallback_per_client() -> None:
    records = _core("records")
    [published] = records.handle(_fallback())
    assert isinstance(published, PublishRecord)
    assert (published.record.category, published.record.title) == (Category.UNKNOWN, SUMMARY)
    acp = _core("acp")
    assert acp.handle(_fallback("Because.")) == [
        SendNotice(severity="warning", title=SUMMARY, description="Because.")
    ]
    legacy = _core("legacy")
    assert legacy.handle(_fallback()) == [SendAgentText(text=f"**Model fallback:** {SUMMARY}")]
    for core in (records, acp, legacy):
        core.close()


def test_a_long_fallback_summary_is_titled_model_fallback() -> None:
    core = _core("acp")
    event = ModelFellBack(
        epoch=E, original_model="m" * 200, fallback_model="n" * 100, explanation="Why."
    )
    [notice] = core.handle(event)
    assert isinstance(notice, SendNotice) and notice.title == "Model fallback"
    assert notice.description is not None and notice.description.endswith("\n\nWhy.")
    assert notice.description.startswith("m" * 200)
    core.close()


# --- auto mode and fast mode, as the reference tells them ----------------------------------

AUTO_NOTICE = SendNotice(
    severity="warning",
    title="Auto mode unavailable",
    description="The selected model does not support Auto mode; using Accept edits instead.",
)
AUTO_TEXT = SendAgentText(
    text="**Auto mode unavailable:** the selected model does not support Auto mode; "
    "using Accept edits instead."
)


def _declaring(notices: bool, *, records: bool = False) -> SessionCore:
    """A client that declared `session.notices` (or not), with sessionFailure (or not)."""
    return SessionCore(
        session_id="s", epoch=E, capable=records, notices=records, acp_notices=notices
    )


@pytest.mark.parametrize(
    ("notices", "records", "told"),
    [
        (True, False, AUTO_NOTICE),
        # No record form: a sessionFailure client that declared notices gets the notice too.
        (True, True, AUTO_NOTICE),
        (False, True, AUTO_TEXT),
        (False, False, AUTO_TEXT),
    ],
)
def test_an_auto_mode_the_model_lacks_is_told_once_in_the_clients_form(
    notices: bool, records: bool, told: SendNotice | SendAgentText
) -> None:
    core = _declaring(notices, records=records)
    assert core.handle(AutoModeUnavailable()) == [told]
    assert core.handle(AutoModeUnavailable()) == []  # once per session
    assert core.handle(AutoModeFellBackAtStart()) == []
    assert core.handle(PromptRequested()) == []
    assert core.active() == []
    core.close()


@pytest.mark.parametrize(("notices", "told"), [(True, AUTO_NOTICE), (False, AUTO_TEXT)])
def test_a_start_up_fallback_waits_for_the_next_prompt(
    notices: bool, told: SendNotice | SendAgentText
) -> None:
    core = _declaring(notices)
    assert core.handle(AutoModeFellBackAtStart()) == []
    assert core.handle(PromptRequested()) == [told]
    assert core.handle(PromptRequested()) == []
    # A later process's start-up fallback, or a choice of auto, is not told again.
    assert core.handle(AutoModeFellBackAtStart()) == []
    assert core.handle(AutoModeUnavailable()) == []
    assert core.handle(PromptRequested()) == []
    core.close()


def test_a_choice_of_auto_before_the_first_prompt_tells_the_held_notice() -> None:
    core = _declaring(True)
    core.handle(AutoModeFellBackAtStart())
    assert core.handle(AutoModeUnavailable()) == [AUTO_NOTICE]
    assert core.handle(PromptRequested()) == []  # told already: the held one went with it
    core.close()


def test_a_prompt_with_nothing_held_is_no_notice_and_no_turn() -> None:
    core = _declaring(True)
    assert core.handle(PromptRequested()) == []
    assert not core.turn_live
    core.close()


@pytest.mark.parametrize(
    ("notices", "records", "told"),
    [
        (
            True,
            True,
            SendNotice(
                severity="warning",
                title="Fast mode turned off",
                description="Not available on the free plan.",
            ),
        ),
        (
            False,
            False,
            SendAgentText(text="**Fast mode turned off:** not available on the free plan."),
        ),
    ],
)
def test_fast_mode_turned_off_is_told_each_time(
    notices: bool, records: bool, told: SendNotice | SendAgentText
) -> None:
    core = _declaring(notices, records=records)
    event = FastModeTurnedOff(explanation="not available on the free plan")
    assert core.handle(event) == [told]
    assert core.handle(event) == [told]
    core.close()


def test_a_fast_mode_explanation_is_masked() -> None:
    core = SessionCore(session_id="s", epoch=E, capable=False, private=PRIVATE)
    [text] = core.handle(FastModeTurnedOff(explanation="see /home/alice/notes"))
    assert isinstance(text, SendAgentText) and "/home/alice" not in text.text
    core.close()
