"""Which of Claude Code's messages a client that asked sees raw (`fsm.claude.raw_messages`), as the
reference adapter's `shouldEmitRawMessage` picks them, and what is refused when the session
opens."""

from __future__ import annotations

import pytest

from fsm import PeerViolation, raw_message_choice

ASSISTANT = {"type": "assistant", "message": {"content": []}}
INIT = {"type": "system", "subtype": "init"}
STATUS = {"type": "system", "subtype": "status"}
FOLLOW_UP = {"type": "user", "origin": {"kind": "task-notification"}}
TYPED = {"type": "user", "origin": {"kind": "human"}}


@pytest.mark.parametrize("value", [None, False, []])
def test_nothing_unless_asked(value: object) -> None:
    choice = raw_message_choice(value)
    assert not choice.wanted
    assert not any(choice.sends(f) for f in (ASSISTANT, INIT, FOLLOW_UP))


def test_true_sends_every_message_but_control_traffic() -> None:
    choice = raw_message_choice(True)
    assert choice.wanted
    assert all(choice.sends(f) for f in (ASSISTANT, INIT, STATUS, FOLLOW_UP, {"type": "new"}))
    for kind in ("control_request", "control_response", "control_cancel_request"):
        assert not choice.sends({"type": kind, "request_id": "1"})
    assert not choice.sends("not a frame")


def test_filters_match_type_subtype_and_origin() -> None:
    choice = raw_message_choice(
        [{"type": "system", "subtype": "init"}, {"type": "user", "origin": "task-notification"}]
    )
    assert choice.sends(INIT)
    assert not choice.sends(STATUS)  # another subtype
    assert not choice.sends(ASSISTANT)  # another type
    assert choice.sends(FOLLOW_UP)
    assert not choice.sends(TYPED)  # another origin
    assert not choice.sends({"type": "user"})  # no origin at all
    assert raw_message_choice([{"type": "system"}]).sends(STATUS)  # no subtype: any


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("yes", "must be a boolean or a list"),
        (1, "must be a boolean or a list"),
        ({"type": "system"}, "must be a boolean or a list"),
        (["system"], "filter 0"),
        ([{"subtype": "init"}], "filter 0"),
        ([{"type": "system"}, {"type": 3}], "filter 1"),
        ([{"type": "system", "subtype": 2}], "subtype must be a string"),
        ([{"type": "system", "origin": {"kind": "human"}}], "origin must be a string"),
        ([{"type": "system", "kind": "x"}], "unknown keys: kind"),
    ],
)
def test_other_shapes_are_refused_with_what_is_wrong(value: object, words: str) -> None:
    with pytest.raises(PeerViolation, match=words):
        raw_message_choice(value)
