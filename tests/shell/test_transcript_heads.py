"""A transcript whose first line is longer than the head `session/list` reads (64 KiB) is still
listed, under its prompt's start (`adapter.claude.transcript_heads`); every other head is read
as the SDK reads it. End to end: `tests/e2e/test_huge_transcripts.py`."""

from __future__ import annotations

import json

import pytest
from claude_agent_sdk._internal import sessions
from hypothesis import given
from hypothesis import strategies as st

from adapter.claude.transcript_heads import with_cut_first_prompt

HEAD = sessions.LITE_READ_BUF_SIZE


def _prompt_line(text: str, **extra: object) -> str:
    entry = {
        **extra,  # Claude Code writes `isSidechain` second, before the message
        "cwd": "/work/project",
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        "timestamp": "2026-12-02T07:00:00.000Z",
    }
    return json.dumps(entry, separators=(",", ":"))


def _summary(head: str) -> str | None:
    lite = sessions._LiteSessionFile(mtime=0, size=10 * HEAD, head=head, tail="")
    info = sessions._parse_session_info_from_lite("s", lite, "/work/project")
    return None if info is None else info.summary


def test_a_first_prompt_longer_than_the_head_is_listed_under_its_start() -> None:
    head = _prompt_line("Here is the log: " + "x" * (2 * HEAD))[:HEAD]
    assert _summary(head) is None  # the SDK alone leaves the session out
    summary = _summary(with_cut_first_prompt(head))
    assert summary is not None and summary.startswith("Here is the log: xxx")
    assert sessions._extract_json_string_field(with_cut_first_prompt(head), "cwd") == (
        "/work/project"
    )


def test_a_plain_string_prompt_cut_by_the_head_is_listed_too() -> None:
    entry = {"type": "user", "message": {"role": "user", "content": "y" * (2 * HEAD)}}
    head = json.dumps(entry)[:HEAD]
    assert _summary(with_cut_first_prompt(head)) == "y" * 200 + "\u2026"


@pytest.mark.parametrize(
    "head",
    [
        _prompt_line("short") + "\n" + _prompt_line("z" * HEAD)[: HEAD // 2],  # a whole line
        _prompt_line("x" * HEAD, isSidechain=True)[:HEAD],
        _prompt_line("x" * HEAD, isMeta=True)[:HEAD],
        json.dumps({"type": "assistant", "message": {"content": "x" * HEAD}})[:HEAD],
        json.dumps({"type": "user", "message": {"content": [{"type": "tool_result"}]}})
        + "x" * HEAD,
        json.dumps({"type": "user", "message": {"content": [{"type": "image"}]}}) + "x" * HEAD,
    ],
    ids=["whole line", "sidechain", "meta", "assistant", "tool result", "no text"],
)
def test_any_other_head_is_left_as_read(head: str) -> None:
    assert with_cut_first_prompt(head) is head


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("tab\\tthen\\", "tab\tthen"),  # cut inside an escape
        ("snow \\u2603 and \\u26", "snow \u2603 and "),
        ("face \\ud83d\\ude00 and \\ud83d", "face \U0001f600 and "),  # half a pair left off
        ('ends here\\\\" then more', "ends here\\"),  # the string's own end
    ],
)
def test_a_cut_escape_is_left_off(body: str, text: str) -> None:
    head = '{"type":"user","message":{"content":[{"type":"text","text":"' + body
    first = with_cut_first_prompt(head).split("\n", 1)[0]
    assert json.loads(first)["message"]["content"][0]["text"] == text


@given(st.text(), st.integers(min_value=1, max_value=2000))
def test_the_copy_is_the_start_of_the_prompt_wherever_the_head_cuts(text: str, cut: int) -> None:
    text = "Q" + text  # something to show however soon the head cuts
    line = _prompt_line(text + "!" * 3000)
    head = line[: line.index('"text":"') + 8 + cut]
    first, _, rest = with_cut_first_prompt(head).partition("\n")
    assert rest == head
    copied = json.loads(first)["message"]["content"][0]["text"]
    assert (text + "!" * 3000).startswith(copied)


def test_a_whole_file_read_as_its_head_is_left_as_read() -> None:
    # A one-line transcript without its line end, all of it in the head: the SDK reads it whole.
    head = _prompt_line("all of it")
    assert with_cut_first_prompt(head, cut=False) is head
