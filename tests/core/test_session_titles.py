"""A live session's name from Claude Code (`fsm.claude.session_titles`): when to ask, and what its
answer shows."""

from __future__ import annotations

import pytest

from fsm.claude.session_titles import TITLE_LENGTH, generated_title, title_description


def test_a_prompt_that_says_enough_is_described() -> None:
    assert title_description("  fix the flaky test  ", titled=False) == "fix the flaky test"
    assert title_description("x" * 5000, titled=False) == "x" * 1000  # the trailing part


@pytest.mark.parametrize(
    ("said", "titled"), [("hi", False), ("   ", False), ("", False), ("fix the test", True)]
)
def test_no_question_for_too_little_or_a_titled_session(said: str, titled: bool) -> None:
    assert title_description(said, titled=titled) is None


def test_claude_codes_title_as_shown() -> None:
    assert generated_title({"title": "Fix flaky test"}) == "Fix flaky test"
    assert generated_title({"title": " Fix\n\tflaky   test "}) == "Fix flaky test"
    assert generated_title({"title": "Rotate sk-ant-api03-" + "a" * 40}) == "Rotate sk-ant-***"
    assert generated_title({"title": "See secret-value-1"}, ("secret-value-1",)) == "See ***"


def test_a_long_title_is_bounded() -> None:
    title = generated_title({"title": "word " * 10_000})
    assert title is not None and len(title) == TITLE_LENGTH and title.endswith("…")


@pytest.mark.parametrize(
    "response", [{"title": None}, {"title": ""}, {"title": "  \n "}, {"title": 7}, {}, None, "x"]
)
def test_no_title(response: object) -> None:
    assert generated_title(response) is None


def test_a_rename_typed_in_the_chat_is_claude_codes_to_name() -> None:
    from fsm import renames_session

    assert renames_session("/rename Login work")
    assert renames_session("  /name Login work")
    assert renames_session("/rename")  # Claude Code generates a name for it
    assert not renames_session("/renamed things")
    assert not renames_session("please /rename this")
    assert not renames_session("")


def test_a_stored_title_is_shown_as_a_generated_one_is() -> None:
    from fsm import shown_title

    assert shown_title("Login\nwork\x1b") == "Login work\u241b"
    assert shown_title("token sk-secret here", ("sk-secret",)) == "token *** here"
    assert shown_title("   ") is None
    assert shown_title(None) is None
    assert shown_title(3) is None
    long = shown_title("x" * 10_000)
    assert long is not None and len(long) == 256 and long.endswith("…")
