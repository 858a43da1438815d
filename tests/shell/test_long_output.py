"""A huge tool result's card (`adapter.view.long_output`): whole up to the limit, its head with a
note beyond it, in whole lines where there are lines; text blocks joined as before."""

from __future__ import annotations

import pytest

from adapter.view.long_output import SHOWN_CHARACTERS, SHOWN_IMAGE_CHARACTERS, shown_text
from adapter.view.tool_results import result_updates


@pytest.mark.parametrize(
    ("pieces", "limit", "shown"),
    [
        (["abc\ndef\nghi\n"], 9, "abc\ndef\n[Output truncated: showing 2 of 3 lines]"),
        (["abc\ndef\nghi"], 9, "abc\ndef\n[Output truncated: showing 2 of 3 lines]"),
        (["abc", "def", "ghi"], 9, "abc\ndef\n[Output truncated: showing 2 of 3 lines]"),
        (["abcdefghijkl"], 5, "abcde\n[Output truncated: showing 5 of 12 characters]"),
        (["abc", "def", "ghi"], 11, "abc\ndef\nghi"),  # exactly the limit: whole
        (["abc\n"], 4, "abc\n"),
        ([], 5, ""),
        ([""], 5, ""),
    ],
)
def test_text_is_whole_up_to_the_limit_and_cut_beyond(
    pieces: list[str], limit: int, shown: str
) -> None:
    assert shown_text(pieces, limit) == shown


def test_a_result_far_over_the_limit_is_cut_at_a_line_end() -> None:
    line = "x" * 63 + "\n"
    text = line * (3 * SHOWN_CHARACTERS // len(line))
    shown = shown_text([text])
    head, note = shown.rsplit("\n", 1)
    assert len(head) < SHOWN_CHARACTERS and text.startswith(head + "\n")
    assert note == f"[Output truncated: showing {len(head.splitlines()):,} of 49,152 lines]"


@pytest.mark.parametrize("terminal", [False, True])
def test_a_bash_card_and_its_raw_output_show_the_head(terminal: bool) -> None:
    text = "line\n" * SHOWN_CHARACTERS
    updates = result_updates(
        tool_id="t",
        name="Bash",
        tool_input={"command": "yes line"},
        content=[{"type": "text", "text": text}],
        is_error=False,
        tool_use_result=None,
        cwd="/w",
        terminal=terminal,
    )
    raw = updates[-1]["rawOutput"]
    assert len(raw) <= SHOWN_CHARACTERS + 100
    assert raw.endswith(f"of {SHOWN_CHARACTERS:,} lines]")
    shown = (
        updates[0]["_meta"]["terminal_output"]["data"]
        if terminal
        else updates[0]["content"][0]["content"]["text"]
    )
    assert raw in shown


def _card_content(data: str, mime: str = "image/png") -> list[dict[str, object]]:
    image = {"type": "image", "source": {"type": "base64", "data": data, "media_type": mime}}
    [update] = result_updates(
        tool_id="t-1",
        name="Read",
        tool_input={"file_path": "/w/a.png"},
        content=[{"type": "text", "text": "read"}, image],
        is_error=False,
        tool_use_result=None,
        cwd="/w",
        terminal=False,
    )
    content = update["content"]
    assert isinstance(content, list)
    return content


def test_an_image_up_to_the_limit_is_shown_whole() -> None:
    data = "A" * 1000
    assert _card_content(data)[1] == {
        "type": "content",
        "content": {"type": "image", "data": data, "mimeType": "image/png"},
    }


@pytest.mark.parametrize(
    ("mime", "shown"), [("image/png", "image/png"), ("image/png\x1b]0;x\x07", "an image")]
)
def test_an_image_over_the_limit_is_named_not_sent(mime: str, shown: str) -> None:
    data = "A" * (SHOWN_IMAGE_CHARACTERS + 4)
    note = f"[Image not shown: {shown}, about {(SHOWN_IMAGE_CHARACTERS + 4) * 3 // 4:,} bytes]"
    assert _card_content(data, mime)[1] == {
        "type": "content",
        "content": {"type": "text", "text": note},
    }
