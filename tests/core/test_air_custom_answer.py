"""JetBrains AIR's custom answer marker on a question form's "Other" field (the reference's
`askUserQuestionsToCreateRequest`): under `_meta.jetbrains.air.customAnswer` and, the same
value, under the root `_askUserQuestionCustomAnswer` released AIR builds read; AIR only."""

from __future__ import annotations

from fsm import air_client
from fsm.air.meta import custom_answer_meta

AIR = air_client({"jetbrains": {"air": {}}})  # any AIR client: no capability needed
PLAIN = air_client(None)


def test_the_marker_names_the_select_field_in_both_places() -> None:
    marker = {"questionId": "question_2", "isCustomAnswer": True}
    assert custom_answer_meta("question_2") == {
        "_askUserQuestionCustomAnswer": marker,
        "jetbrains": {"air": {"version": 1, "customAnswer": marker}},
    }


def test_the_two_copies_are_separate_values() -> None:
    meta = custom_answer_meta("question_0")
    meta["_askUserQuestionCustomAnswer"]["questionId"] = "changed"
    assert meta["jetbrains"]["air"]["customAnswer"]["questionId"] == "question_0"


def test_only_an_air_client_gets_it() -> None:
    assert AIR.custom_answer("question_0") == custom_answer_meta("question_0")
    assert PLAIN.custom_answer("question_0") is None
