"""`/remote-control` as the reference adapter handles it (`fsm.claude.remote_control`): which
prompts are the command, when Claude Code offers it itself, what is asked of Claude Code, when it is
refused, what the user reads, and which echoed messages a person typed elsewhere."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import (
    RemoteControl,
    claude_code_offers,
    remote_content,
    remote_control_command,
    remote_control_refusal,
    remote_control_reply,
    remote_control_request,
)

URL = "https://claude.ai/code/session_01abc"


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("/remote-control", RemoteControl(enabled=True)),
        ("  /remote-control  \n", RemoteControl(enabled=True)),
        ("/remote-control my laptop", RemoteControl(enabled=True, name="my laptop")),
        ("/remote-control\nnext line", RemoteControl(enabled=True, name="next line")),
        ("/remote-control off", RemoteControl(enabled=False)),
        ("/remote-control OFF ", RemoteControl(enabled=False)),
        ("/remote-controlled", None),
        ("please /remote-control", None),
        ("/remote", None),
        (None, None),  # not exactly one text block
    ],
)
def test_which_prompts_are_the_command(text: str | None, command: RemoteControl | None) -> None:
    assert remote_control_command(text) == command


def test_claude_code_offering_it_itself_wins_unless_bound_to_its_terminal() -> None:
    listed: list[Any] = [{"name": "review"}, {"name": "remote-control"}, "nonsense"]
    assert claude_code_offers(listed, frozenset(), "remote-control")
    assert not claude_code_offers(listed, frozenset({"remote-control"}), "remote-control")
    assert not claude_code_offers([{"name": "review"}], frozenset(), "remote-control")


def test_what_claude_code_is_asked() -> None:
    assert remote_control_request(RemoteControl(enabled=True)) == {
        "subtype": "remote_control",
        "enabled": True,
    }
    named = remote_control_request(RemoteControl(enabled=True, name="laptop"))
    assert named == {"subtype": "remote_control", "enabled": True, "name": "laptop"}
    off = remote_control_request(RemoteControl(enabled=False))
    assert off == {"subtype": "remote_control", "enabled": False}


def test_refused_while_claude_works_or_another_change_runs() -> None:
    assert remote_control_refusal(working=False, changing=False) is None
    assert "while Claude is working" in str(remote_control_refusal(working=True, changing=False))
    assert "already being changed" in str(remote_control_refusal(working=False, changing=True))


def test_what_the_user_reads() -> None:
    on = RemoteControl(enabled=True)
    assert remote_control_reply(on, {"session_url": URL, "connect_url": "x"}, None) == (
        "Remote Control is active. Continue this session from claude.ai/code or the Claude "
        f"mobile app:\n\n{URL}\n\nRun /remote-control off to disconnect."
    )
    for odd in ({}, {"session_url": ""}, {"session_url": "a b"}, {"session_url": 3}, None):
        assert "did not return a session URL" in remote_control_reply(on, odd, None)
    off = RemoteControl(enabled=False)
    assert remote_control_reply(off, {}, None) == (
        "Remote Control is off. Run /remote-control to reconnect."
    )
    refused = remote_control_reply(on, None, "Remote Control cannot be\nenabled here", ())
    assert refused == "Could not start Remote Control: Remote Control cannot be enabled here"
    assert remote_control_reply(off, None, "").startswith("Could not stop Remote Control: ")


def test_claude_codes_reason_is_masked_and_bounded() -> None:
    reply = remote_control_reply(
        RemoteControl(enabled=True),
        None,
        "no token in /home/alice/.claude " + "x" * 5000,
        ("/home/alice",),
    )
    assert "alice" not in reply and len(reply) < 400


def _echo(content: Any, **fields: Any) -> dict[str, Any]:
    frame = {
        "type": "user",
        "isReplay": True,
        "uuid": "u1",
        "parent_tool_use_id": None,
        "origin": {"kind": "human"},
        "message": {"role": "user", "content": content},
    }
    return {**frame, **fields}


def test_a_message_typed_elsewhere_is_shown_without_markers() -> None:
    assert remote_content(_echo("fix the login bug"), ours=False) == (
        {"type": "text", "text": "fix the login bug"},
    )
    blocks = [
        {"type": "text", "text": "<system-reminder>r</system-reminder>"},
        {"type": "text", "text": "and <system-reminder>x</system-reminder>test it"},
        {"type": "image", "source": {}},
    ]
    assert remote_content(_echo(blocks), ours=False) == (
        {"type": "text", "text": "and test it"},
        {"type": "image", "source": {}},
    )


@pytest.mark.parametrize(
    ("frame", "ours"),
    [
        (_echo("hello"), True),  # the adapter's own prompt or steer
        (_echo("hello", origin={"kind": "task-notification"}), False),
        (_echo("hello", origin=None), False),
        (_echo("hello", isSynthetic=True), False),
        (_echo("hello", parent_tool_use_id="t1"), False),
        (_echo("hello", isReplay=False), False),
        (_echo([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]), False),
        (_echo(None), False),
        ({"type": "assistant", "origin": {"kind": "human"}}, False),
        ("not a frame", False),
    ],
)
def test_anything_else_is_not_shown(frame: Any, ours: bool) -> None:
    assert remote_content(frame, ours=ours) == ()
