"""What replay shows as the user's message (`fsm.claude.transcript_entries.spoken_content`): Claude
Code's markers taken out, hidden local commands and their output left out, the words around
them kept, as the reference adapter replays them."""

from __future__ import annotations

from typing import Any

import pytest

from fsm.claude.transcript_entries import (
    EntryKind,
    parse_entry,
    spoken_content,
    strip_marker_tags,
    typed_prompt_said,
)


def _said(text: str, **extra: Any) -> tuple[list[str], EntryKind]:
    entry = parse_entry(
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": text}, **extra}
    )
    return [b["text"] for b in entry.content if b.get("type") == "text"], entry.kind


@pytest.mark.parametrize(
    "text",
    [
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args>opus</command-args>",
        "<local-command-stdout>Set model to Opus</local-command-stdout>",
        "<local-command-stderr>Error: no such model</local-command-stderr>",
        "<system-reminder>the date is today</system-reminder>",
        "<task-notification><task-id>b1</task-id><status>done</status></task-notification>",
        "<command-name>/compact</command-name><command-args></command-args>",
        "<command-name>/context</command-name>",
        "<command-name>/usage</command-name>",
        "<command-name>/mcp</command-name>",
        "<command-name>/status</command-name>\n<command-args>  </command-args>",
        "<command-name>/heapdump</command-name>",
        "<command-name>/extra-usage</command-name>",
        "  <system-reminder>a</system-reminder>\n <command-message>m</command-message> ",
    ],
)
def test_a_message_of_markers_only_is_left_out_but_still_opens_its_turn(text: str) -> None:
    texts, kind = _said(text)
    assert texts == []
    assert kind is EntryKind.PROMPT  # the turn boundary replay planning counts is unchanged


def test_text_around_markers_is_kept() -> None:
    texts, _ = _said(
        "<command-name>/review</command-name>before <system-reminder>x</system-reminder>"
        "middle<local-command-stdout>out</local-command-stdout> after"
    )
    assert texts == ["before middle after"]


def test_a_custom_command_of_markers_only_replays_as_typed() -> None:
    texts, _ = _said(
        "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
        "<command-args> the diff </command-args>"
    )
    assert texts == ["/review the diff"]
    assert _said("<command-name>/review</command-name>")[0] == ["/review"]
    # A custom command's output is output, not speech.
    output = "<command-name>/review</command-name><local-command-stdout>ok</local-command-stdout>"
    assert _said(output)[0] == []


def test_a_marker_that_never_closes_is_text() -> None:
    assert strip_marker_tags("hi <system-reminder>never closed") == (
        "hi <system-reminder>never closed"
    )
    # ...and does not stop a later closed marker of another kind from going.
    assert (
        strip_marker_tags("<command-name>open <system-reminder>r</system-reminder> end")
        == "<command-name>open  end"
    )
    # A lone closing tag, or a tag we do not know, is text.
    assert (
        strip_marker_tags("a </system-reminder> <b>bold</b>") == "a </system-reminder> <b>bold</b>"
    )


def test_nested_markers_go_with_the_outer_one() -> None:
    nested = "a<system-reminder>x<command-name>/model</command-name>y</system-reminder>b"
    assert strip_marker_tags(nested) == "ab"
    # One of the same name nested in it ends at the closer that balances it: no stray closer
    # is left behind (the reference's scanner stops at the nearest one).
    same = "a<system-reminder>x<system-reminder>y</system-reminder>z</system-reminder>b"
    assert strip_marker_tags(same) == "ab"
    deeper = "<command-args>1<command-args>2<command-args>3</command-args></command-args>"
    assert strip_marker_tags(deeper + "</command-args> kept") == " kept"


def test_a_nested_marker_whose_outer_one_never_closes() -> None:
    # The outer opener is text; the inner marker, closed, goes.
    text = "a<system-reminder>x<system-reminder>y</system-reminder>z"
    assert strip_marker_tags(text) == "a<system-reminder>xz"
    # Two closers for one opener: the second is a lone closer, text.
    text = "a<system-reminder>x</system-reminder>y</system-reminder>b"
    assert strip_marker_tags(text) == "ay</system-reminder>b"


def test_many_unclosed_openers_are_read_in_one_pass() -> None:
    # Each opener is found once and paired on a stack: 50,000 unbalanced openers do not cost
    # a scan each (this would take minutes if they did).
    text = "<system-reminder>" * 50_000 + "x</system-reminder>"
    assert strip_marker_tags(text) == "<system-reminder>" * 49_999


def test_plain_text_is_the_same_object() -> None:
    text = "no markers, a < b"
    assert strip_marker_tags(text) == text
    blocks = ({"type": "text", "text": "plain"},)
    assert spoken_content(blocks) == (blocks, ["plain"])


def test_images_and_other_blocks_stay_when_their_text_goes() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    blocks = ({"type": "text", "text": "<system-reminder>r</system-reminder>"}, image)
    assert spoken_content(blocks) == ((image,), [])


def test_a_background_task_stop_notice_is_left_out_and_a_delivered_prompt_kept() -> None:
    notice = {"origin": {"kind": "task-notification"}}
    assert _said("Task b1 stopped: it finished", **notice)[0] == []
    delivered = {"origin": {"kind": "task-notification", "subkind": "scheduled"}}
    assert _said("run the nightly check", **delivered)[0] == ["run the nightly check"]


def test_the_title_text_is_what_the_user_said() -> None:
    entry = parse_entry(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<command-name>/model</command-name>"},
                    {"type": "text", "text": "fix it<system-reminder>r</system-reminder>"},
                ],
            },
        }
    )
    assert entry.text == "fix it" and entry.text_block_count == 1


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("/model opus", ""),
        ("/compact keep the tests", ""),
        ("  /context", ""),
        ("/usage", ""),
        ("/review the diff", "/review the diff"),
        ("fix it<system-reminder>r</system-reminder>", "fix it"),
        ("/modelling is fun", "/modelling is fun"),
        ("", ""),
    ],
)
def test_a_prompt_typed_live_says_what_it_will_say_on_load(typed: str, said: str) -> None:
    assert typed_prompt_said(typed) == said
