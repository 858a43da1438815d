"""JetBrains AIR's compaction facts (`_meta.jetbrains.air.contextCompaction`, the reference's
`createContextCompactionMeta`): `{version: 1}` and whichever facts are known, for an AIR client
only; any other client's `_meta` is left as it is."""

from __future__ import annotations

from typing import Any

from fsm import air_client
from fsm.air.meta import context_compaction_meta

AIR = air_client({"jetbrains": {"air": {}}})  # any AIR client: no capability needed
PLAIN = air_client(None)
CARD: dict[str, Any] = {"claudeCode": {"toolName": "compact"}}


def _air(payload: dict[str, Any]) -> dict[str, Any]:
    return {"jetbrains": {"air": {"version": 1, "contextCompaction": payload}}}


def test_the_start_carries_only_the_version() -> None:
    assert context_compaction_meta(None, {}) == _air({"version": 1})


def test_the_known_facts_are_carried_and_nothing_else() -> None:
    known = {
        "trigger": "idle",
        "preTokens": 210000,
        "postTokens": 9000,
        "durationMs": 4100,
        "error": "Not enough messages",
        "summary": "not a fact of this payload",
    }
    assert context_compaction_meta(None, known) == _air(
        {
            "version": 1,
            "trigger": "idle",
            "preTokens": 210000,
            "postTokens": 9000,
            "durationMs": 4100,
            "error": "Not enough messages",
        }
    )


def test_the_cards_own_meta_is_kept_and_not_changed() -> None:
    meta = context_compaction_meta(CARD, {"preTokens": 1})
    assert meta == {**CARD, **_air({"version": 1, "preTokens": 1})}
    assert CARD == {"claudeCode": {"toolName": "compact"}}


def test_only_an_air_client_gets_them() -> None:
    assert AIR.compaction_facts and not PLAIN.compaction_facts
    assert AIR.compaction_meta(CARD, {}) == context_compaction_meta(CARD, {})
    assert PLAIN.compaction_meta(CARD, {"preTokens": 1}) == CARD
    assert PLAIN.compaction_meta(None, {}) is None


def test_the_cards_raw_output_is_the_facts_but_for_an_air_client() -> None:
    # The reference's `compactionToolCall.finished`: `rawOutput` for a client that is not AIR;
    # AIR finds the facts in `_meta` instead.
    known = {"trigger": "manual", "preTokens": 210000, "postTokens": 9000}
    assert PLAIN.compaction_raw_output(known) == known
    assert AIR.compaction_raw_output(known) is None
    assert AIR.compaction_raw_output({}) is None
    # Ours carries an empty one too (the reference leaves it out).
    assert PLAIN.compaction_raw_output({}) == {}


def test_a_late_boundary_repeats_the_end_to_an_air_client_when_it_brings_facts() -> None:
    # The reference's `finish(..., enrichTerminal)`: a boundary after the `completed` went out
    # sends the end again only when it adds facts; only AIR has anything new in it.
    assert AIR.repeats_compaction_end({"preTokens": 1}) is True
    assert AIR.repeats_compaction_end({}) is False
    assert PLAIN.repeats_compaction_end({"preTokens": 1}) is False
    assert PLAIN.repeats_compaction_end({}) is False


def test_any_air_client_gets_the_compaction_rules_whatever_it_declared() -> None:
    for meta in ({"jetbrains": {"air": {"version": "x"}}}, {"jetbrains": {"air": {"version": 1}}}):
        client = air_client(meta)
        assert client.compaction_raw_output({"preTokens": 1}) is None
        assert client.repeats_compaction_end({"preTokens": 1}) is True
