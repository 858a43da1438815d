"""Which of Claude's questions went unanswered, as a Claude Code that takes it is told
(`fsm.claude.question_answers`)."""

from __future__ import annotations

from fsm import UNANSWERED_CAPABILITY, reports_unanswered, with_unanswered

DB, FEATURES = "Which database?", "Which features?"


def test_only_an_init_listing_the_capability_reports_unanswered() -> None:
    assert reports_unanswered(["msg_lifecycle_v1", UNANSWERED_CAPABILITY])
    assert not reports_unanswered(["msg_lifecycle_v1"])
    # Any other shape lists nothing.
    assert not reports_unanswered(None)
    assert not reports_unanswered(UNANSWERED_CAPABILITY)
    assert not reports_unanswered({UNANSWERED_CAPABILITY: True})


def test_a_blank_question_of_an_accepted_form_is_skipped_and_a_note_stays() -> None:
    shaped = with_unanswered(
        [DB, FEATURES],
        {DB: "Postgres"},
        {DB: {"notes": "version 16"}},
        declined=False,
        report=True,
    )
    assert shaped == {DB: {"notes": "version 16"}, FEATURES: {"unanswered": "skipped"}}


def test_a_declined_form_dismisses_every_question() -> None:
    shaped = with_unanswered([DB, FEATURES], {}, {}, declined=True, report=True)
    assert shaped == {DB: {"unanswered": "dismissed"}, FEATURES: {"unanswered": "dismissed"}}


def test_an_answered_form_gets_no_unanswered_mark() -> None:
    answers = {DB: "Postgres", FEATURES: "Search"}
    assert with_unanswered([DB, FEATURES], answers, {}, declined=False, report=True) == {}


def test_without_the_capability_nothing_is_added() -> None:
    notes = {DB: {"notes": "version 16"}}
    assert with_unanswered([DB, FEATURES], {DB: "P"}, notes, declined=False, report=False) == notes
    assert with_unanswered([DB, FEATURES], {}, {}, declined=True, report=False) == {}
