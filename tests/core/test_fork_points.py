"""JetBrains AIR's fork point: which `_meta.jetbrains.air.fork` counts, and which transcript
entry a fork keeps last (the reference's `forkPoint` and `resolveFromFullHistory`)."""

from __future__ import annotations

from typing import Any

from fsm import ForkPoint, fork_point, fork_point_missing, fork_point_uuid, message_text_fingerprint


def _meta(**point: Any) -> dict[str, Any]:
    return {"jetbrains": {"air": {"fork": point}}}


def test_only_a_version_1_point_with_a_message_id_counts() -> None:
    assert fork_point(_meta(version=1, messageId=" msg_1 ")) == ForkPoint("msg_1")
    assert fork_point(_meta(version=1.0, messageId="m")) == ForkPoint("m")
    bad: object
    for bad in (
        _meta(version=2, messageId="m"),
        _meta(version=True, messageId="m"),
        _meta(version="1", messageId="m"),
        _meta(version=1, messageId="  "),
        _meta(version=1, messageId=7),
        _meta(version=1),
        {"jetbrains": {"air": {"fork": "msg_1"}}},
        {"jetbrains": []},
        None,
    ):
        assert fork_point(bad) is None, bad


def test_the_occurrence_is_a_positive_safe_integer_else_dropped() -> None:
    full = fork_point(
        _meta(version=1, messageId="m", messageFingerprint=" sha256:ab ", messageOccurrence=2)
    )
    assert full == ForkPoint("m", "sha256:ab", 2)
    for occurrence in (0, -1, 1.5, True, "2", 2**53):
        point = fork_point(_meta(version=1, messageId="m", messageOccurrence=occurrence))
        assert point == ForkPoint("m"), occurrence
    assert fork_point(_meta(version=1, messageId="m", messageFingerprint=" ")) == ForkPoint("m")


def test_a_segment_suffix_is_tried_after_the_id_as_given() -> None:
    assert ForkPoint("msg_1:segment:3").candidates() == ["msg_1:segment:3", "msg_1"]
    assert ForkPoint("msg_1").candidates() == ["msg_1"]
    text, data = fork_point_missing(ForkPoint("msg_9"), "s1")
    assert text == "Fork point message msg_9 was not found in session s1"
    assert data == {"messageId": "msg_9"}


def _user(uuid: str, parent: str | None) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "message": {"content": "hi"}}


def _assistant(
    uuid: str, parent: str | None, api_id: str, text: str, **extra: Any
) -> dict[str, Any]:
    message = {"id": api_id, "content": [{"type": "text", "text": text}]}
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "message": message, **extra}


# u1 -> a1 (msg_A, two entries) -> u2 -> a2 (msg_B "Done.") -> u3 -> a3 (msg_C "Done.");
# a branch from a1: u4 -> a4 (msg_D "Done."), written before the active branch's end.
ENTRIES = [
    _user("u1", None),
    _assistant("a1a", "u1", "msg_A", "Hel"),
    _assistant("a1b", "a1a", "msg_A", "lo"),
    _user("u2", "a1b"),
    _assistant("a2", "u2", "msg_B", "Done."),
    _user("u4", "a1b"),
    _assistant("a4", "u4", "msg_D", "Done."),
    _assistant("side", "a4", "msg_S", "Done.", isSidechain=True),
    _user("u3", "a2"),
    _assistant("a3", "u3", "msg_C", "Done."),
]


def test_a_message_on_the_active_branch_is_its_last_entry() -> None:
    assert fork_point_uuid(ForkPoint("msg_A"), ENTRIES) == "a1b"
    assert fork_point_uuid(ForkPoint("msg_A:segment:1"), ENTRIES) == "a1b"
    assert fork_point_uuid(ForkPoint("u2"), ENTRIES) == "u2"  # a prompt, by its uuid


def test_a_message_of_another_branch_is_found_among_every_assistant_message() -> None:
    assert fork_point_uuid(ForkPoint("msg_D"), ENTRIES) == "a4"
    assert fork_point_uuid(ForkPoint("msg_S"), ENTRIES) is None  # a sidechain is no point


def test_an_unknown_id_is_found_by_fingerprint_and_occurrence_on_its_branch() -> None:
    done = message_text_fingerprint("Done.")
    # Three main-thread messages say "Done.": the second on the active branch is msg_C.
    assert fork_point_uuid(ForkPoint("gone", done, 2), ENTRIES) == "a3"
    # The first occurrence is msg_B on the active branch and msg_D on the other: ambiguous.
    assert fork_point_uuid(ForkPoint("gone", done, 1), ENTRIES) is None
    assert fork_point_uuid(ForkPoint("gone", done, 3), ENTRIES) is None
    # A fingerprint only one message has wins whatever the occurrence.
    hello = message_text_fingerprint("Hello")
    assert fork_point_uuid(ForkPoint("gone", hello, 9), ENTRIES) == "a1b"
    # Both are needed.
    assert fork_point_uuid(ForkPoint("gone", hello), ENTRIES) is None
    assert fork_point_uuid(ForkPoint("gone"), ENTRIES) is None
    assert fork_point_uuid(ForkPoint("gone", hello, 1), []) is None
