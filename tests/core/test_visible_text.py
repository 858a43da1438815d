"""`fsm.visible_text.visible`: control characters as a reader sees them, never as a terminal acts on
them; record titles go through it in `shape_title`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fsm.records import shape_title
from fsm.visible_text import visible


def _controls(text: str) -> list[str]:
    return [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0]


def test_escape_sequences_and_controls_become_pictures() -> None:
    assert visible("a\x1b]0;pwn\x07b\x1b[2J\rc\x00d\x7f") == "a␛]0;pwn␇b␛[2J␍c␀d␡"
    assert visible("x\x9b31m\u202egnp.exe") == "x\ufffd31m\ufffdgnp.exe"


def test_lone_surrogates_become_replacement_characters() -> None:
    # A transcript's JSON may hold "\ud800": json.loads gives a str no encoder accepts.
    shaped = visible("fix \ud800 and \udfff")
    assert shaped == "fix \ufffd and \ufffd"
    shaped.encode("utf-8")
    assert shape_title("a\udc00b")[0] == "a\ufffdb"


def test_tabs_and_newlines_are_spaces_on_one_line_and_kept_in_lines() -> None:
    assert visible("a\tb\nc\u2028d") == "a b c d"
    assert visible("a\tb\nc\rd", lines=True) == "a\tb\nc␍d"


def test_ordinary_text_is_unchanged() -> None:
    text = "Read src/app.py (lines 1-5) — “quoted” ünïcode ✓ 日本"
    assert visible(text) == text


def test_record_titles_and_details_keep_only_their_line_breaks() -> None:
    title, details = shape_title("API Error\x1b[2J: 429\n\nretry \x1b]0;x\x07 later\nsoon")
    assert (title, details) == ("API Error␛[2J: 429", "retry ␛]0;x␇ later\nsoon")
    # docs/decisions.md#details: one line break is not a paragraph, and a title that fits keeps it.
    assert shape_title("one\r\nparagraph") == ("one␍\nparagraph", None)


@given(st.text())
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    assert _controls(visible(text)) == []
    title, details = shape_title(text or "x")
    for shaped in (title, details or ""):
        assert set(_controls(shaped)) <= {"\n", "\t"}
