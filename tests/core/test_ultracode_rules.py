"""The Ultracode switch's rules (`fsm.pickers.ultracode`): Claude Code's `get_settings` answer
read, which models take it, when it is offered, and what an effort carries."""

from __future__ import annotations

import pytest

from fsm.pickers.ultracode import (
    UltracodeReport,
    effort_flag_settings,
    model_takes_ultracode,
    ultracode_offered,
    ultracode_report,
    workflows_enabled,
)

NOTHING = UltracodeReport(available=None, requested=None)


@pytest.mark.parametrize(
    ("response", "report"),
    [
        (
            {"applied": {"ultracodeAvailable": True, "ultracodeRequested": False}},
            UltracodeReport(available=True, requested=False),
        ),
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
        (None, True, None),
    ],
)
def test_workflows_follow_claude_codes_report(
    available: bool | None, takes: bool, workflows: bool | None
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
