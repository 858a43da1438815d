"""The Ultracode switch's rules (`fsm.pickers.ultracode`): Claude Code's `get_settings` answer
read, which models take it, when it is offered, what an effort carries, and the session's switch
from its first Claude to Claude Code's late answer and a restart."""

from __future__ import annotations

import pytest

from fsm.pickers.ultracode import (
    UltracodeAsk,
    UltracodeReport,
    UltracodeSwitch,
    effort_flag_settings,
    model_takes_ultracode,
    settings_ultracode,
    ultracode_chosen,
    ultracode_offered,
    ultracode_report,
    ultracode_reported,
    ultracode_shown,
    ultracode_started,
    workflows_enabled,
)

NOTHING = UltracodeReport(available=None, requested=None)
ASKED = UltracodeAsk(takes_asked=True)  # asked on a model that takes it; nothing changed since


@pytest.mark.parametrize(
    ("response", "report"),
    [
        (
            {"applied": {"ultracodeAvailable": True, "ultracodeRequested": False}},
            UltracodeReport(available=True, requested=False),
        ),
        (
            {"applied": {"model": "claude-opus-5-5", "ultracodeAvailable": False}},
            UltracodeReport(available=False, requested=None, model="claude-opus-5-5"),
        ),
        ({"applied": {"model": 3, "ultracodeRequested": True}}, UltracodeReport(None, True)),
        ({"applied": {"ultracodeAvailable": "yes"}}, NOTHING),
        ({"applied": None}, NOTHING),
        (None, NOTHING),
        ([], NOTHING),
    ],
)
def test_claude_codes_answer_is_read(response: object, report: UltracodeReport) -> None:
    assert ultracode_report(response) == report


def test_a_model_takes_ultracode_with_the_xhigh_effort() -> None:
    assert model_takes_ultracode(("low", "medium", "high", "xhigh", "max"))
    assert not model_takes_ultracode(("low", "medium", "high", "max"))
    assert not model_takes_ultracode(())


@pytest.mark.parametrize(
    ("available", "takes", "workflows"),
    [
        (True, True, True),
        (True, False, True),
        (False, True, False),
        (False, False, None),  # the model could not run it anyway: workflows unknown
        (False, None, None),  # for a model not known: workflows unknown
        (None, True, None),
    ],
)
def test_workflows_follow_claude_codes_report(
    available: bool | None, takes: bool | None, workflows: bool | None
) -> None:
    report = UltracodeReport(available=available, requested=None)
    assert workflows_enabled(report, takes) is workflows


@pytest.mark.parametrize(
    ("workflows", "takes", "offered"),
    [(True, True, True), (None, True, True), (False, True, False), (True, False, False)],
)
def test_the_switch_is_offered_unless_workflows_are_off(
    workflows: bool | None, takes: bool, offered: bool
) -> None:
    assert ultracode_offered(workflows, takes) is offered


def test_an_effort_carries_ultracode_only_while_it_is_on() -> None:
    assert effort_flag_settings("high", True) == {"effortLevel": "high", "ultracode": True}
    assert effort_flag_settings(None, True) == {"effortLevel": None, "ultracode": True}
    assert effort_flag_settings("high", False) == {"effortLevel": "high"}


@pytest.mark.parametrize(
    ("tiers", "on"),
    [
        ([], False),
        ([{"ultracode": True}], True),
        ([{"ultracode": "true"}], False),  # only `true` itself, as the reference reads it
        ([{"ultracode": True}, {"effortLevel": "high"}], True),  # a tier without the key
        ([{"ultracode": True}, {"ultracode": False}], False),  # the highest tier that names it
        ([{"ultracode": False}, {"ultracode": True}], True),
    ],
)
def test_the_settings_say_whether_it_starts_on(tiers: list[dict[str, object]], on: bool) -> None:
    assert settings_ultracode(tiers) is on


def test_the_first_claude_takes_the_settings_value_and_is_sent_nothing() -> None:
    start = ultracode_started(None, True)
    assert start.switch == UltracodeSwitch(on=True, started=True)
    assert start.send is None


def test_a_later_claude_is_sent_the_sessions_value_where_its_settings_differ() -> None:
    chosen = ultracode_chosen(ultracode_started(None, False).switch, True)
    restart = ultracode_started(chosen, False)
    assert restart.send is True and restart.switch == chosen
    assert restart.refused == UltracodeSwitch(on=False, chosen=True, started=True)
    assert ultracode_started(chosen, True).send is None  # it starts on anyway


def test_claude_codes_late_answer_settles_workflows_and_the_value() -> None:
    first = ultracode_started(None, False).switch
    report = UltracodeReport(available=True, requested=True)
    settled, changed = ultracode_reported(first, report, ASKED, True)
    assert settled == UltracodeSwitch(on=True, workflows=True, started=True)
    assert changed  # shown off at the answer, on now
    # Workflows off, on a model that takes it: the switch goes.
    off, changed = ultracode_reported(first, UltracodeReport(False, None), ASKED, True)
    assert off.workflows is False and ultracode_shown(off, True) is None and changed


def test_the_users_choice_outlasts_claude_codes_late_answer() -> None:
    chosen = ultracode_chosen(ultracode_started(None, False).switch, True)
    settled, changed = ultracode_reported(chosen, UltracodeReport(True, False), ASKED, True)
    assert settled.on is True and not changed


def test_an_answer_that_changes_nothing_shown_is_no_change() -> None:
    first = ultracode_started(None, False).switch
    # Requested on, but the model in use now does not take it: nothing shown changes.
    settled, changed = ultracode_reported(first, UltracodeReport(None, True), ASKED, False)
    assert settled.on is True and not changed
    nothing, changed = ultracode_reported(first, NOTHING, ASKED, True)
    assert nothing == first and not changed
    # An answer that says nothing of ultracode leaves even a known model's workflows alone.
    known = UltracodeSwitch(on=True, workflows=False, started=True)
    assert ultracode_reported(known, NOTHING, ASKED, True) == (known, False)


def test_the_switch_hides_on_a_model_without_it_and_keeps_its_value() -> None:
    switch = ultracode_chosen(ultracode_started(None, False).switch, True)
    assert ultracode_shown(switch, False) is None
    assert ultracode_shown(switch, True) is True


def test_the_model_changed_during_the_ask() -> None:
    """Asked on a model that takes ultracode, answered `available: false` for one that does not
    (a model switch Claude Code took before it answered): workflows are not off."""
    first = ultracode_started(None, False).switch
    unavailable = UltracodeReport(available=False, requested=False)
    # The answer names the model it was computed for, which does not take ultracode.
    named = UltracodeAsk(takes_asked=True, takes_answered=False, model_changed=True)
    settled, changed = ultracode_reported(first, unavailable, named, False)
    assert settled.workflows is None and not changed
    assert ultracode_shown(settled, True) is False  # back on a model that takes it
    # It names none the list knows: the model changed, so the answer tells nothing of workflows.
    unnamed = UltracodeAsk(takes_asked=True, takes_answered=None, model_changed=True)
    assert ultracode_reported(first, unavailable, unnamed, False)[0].workflows is None
    # The model it names takes ultracode: workflows are off, whatever the session asked on.
    takes = UltracodeAsk(takes_asked=False, takes_answered=True, model_changed=True)
    off, changed = ultracode_reported(first, unavailable, takes, True)
    assert off.workflows is False and changed
    # Nothing changed and nothing named: the model the session asked on.
    assert ultracode_reported(first, unavailable, ASKED, True)[0].workflows is False


def test_an_effort_or_a_switch_sent_since_the_ask_outlasts_its_answer() -> None:
    """The answer may predate an effort sent since the ask (without `ultracode: true` it turned
    ultracode off in Claude Code) or a switch: the session's value stands; workflows are read."""
    first = ultracode_started(None, False).switch
    sent = UltracodeAsk(takes_asked=True, flags_sent=True)
    settled, changed = ultracode_reported(first, UltracodeReport(True, True), sent, True)
    assert settled == UltracodeSwitch(on=False, workflows=True, started=True) and not changed
    on = ultracode_started(None, True).switch
    settled, _ = ultracode_reported(on, UltracodeReport(None, False), sent, True)
    assert settled.on is True
    # Nothing sent since: the answer's value counts.
    assert ultracode_reported(first, UltracodeReport(True, True), ASKED, True)[0].on is True


def test_an_answer_from_a_process_replaced_since_the_ask_changes_nothing() -> None:
    """Another Claude process of the session started before the answer came (a restart, a
    clear context): the new one starts from the session's switch, the old answer settles
    nothing, neither the value nor workflows."""
    first = ultracode_started(None, False).switch
    replaced = UltracodeAsk(takes_asked=True, replaced=True)
    assert ultracode_reported(first, UltracodeReport(True, True), replaced, True) == (first, False)
    assert ultracode_reported(first, UltracodeReport(False, None), replaced, True) == (first, False)
    # The same answer from the process still running settles both.
    settled, changed = ultracode_reported(first, UltracodeReport(True, True), ASKED, True)
    assert settled.on is True and settled.workflows is True and changed
