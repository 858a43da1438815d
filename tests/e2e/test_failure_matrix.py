"""The failure matrix end to end: the scripted Claude's failure scenarios, both client modes.

Each row states, from the contract and docs/decisions.md (never from what the code happens to do),
what a capable client must receive (every sessionFailure record, whole, with its revision sequence
and carrier, and the stop reason) and what a legacy client must receive (the JSON-RPC error, or the
stop reason; never a record; Claude's error prose as agent text). Every row then sends a second
prompt in the same session, which must succeed: after a crash or transport loss that means the
adapter started a new Claude process that resumed the session.

The adapter runs as a real subprocess over real stdio (`tests/support/harness.py`), and so does the
scripted Claude it spawns through the real `claude-agent-sdk`.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.failure_rows import (
    FALLBACK_NOTICE,
    PROMPT_RESPONSE,
    ROWS,
    SESSION_INFO,
    UUID4,
    Row,
)
from tests.support.harness import Adapter, AdapterPool, spawn_adapter


def _has_key(value: object, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key) for v in value)
    return False


def _safe(text: str) -> None:
    """docs/decisions.md#titles: no exception text, stack trace, private path or environment
    value."""
    for leak in ("Traceback", "/tmp/", "/home/", "/root", "scripted_claude", "Error(", "exit"):
        assert leak not in text, f"{leak!r} leaked into {text!r}"


@dataclass(slots=True)
class Run:
    """One adapter process, one session, two prompts: what the client saw."""

    adapter: Adapter
    session: str
    first: PromptResponse | acp.RequestError
    second: PromptResponse | acp.RequestError
    prompts: list[str]  # the uuids of the user messages Claude received, in order


async def _run(adapters: AdapterPool, tmp_path: Path, scenario: str, *, capable: bool) -> Run:
    tmp_path.mkdir()
    async with adapters.session_adapter(tmp_path, scenario, capable=capable) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "first prompt")
        second = await adapter.prompt(session, "second prompt")
        prompts = adapter.prompt_uuids(session)
    return Run(adapter, session, first, second, prompts)


def _check_common(row: Row, run: Run) -> None:
    adapter = run.adapter
    # docs/decisions.md#never-silent: exactly one answer per prompt.
    answers = adapter.answers()
    assert len(answers) == 2 and all(count == 1 for count in answers.values()), answers
    # Every update names the session it belongs to.
    updates = [m for m in adapter.incoming() if m.get("method") == "session/update"]
    assert all(m["params"]["sessionId"] == run.session for m in updates)
    texts = adapter.agent_texts()
    for text in row.streamed:
        assert texts.count(text) == 1, (text, texts)
    # The session survives every failure; after a dead process a resumed one answers. Both
    # prompts reached Claude, each stamped with its own fresh uuid (docs/decisions.md#turn-ids).
    assert isinstance(run.second, PromptResponse), run.second
    assert run.second.stop_reason == "end_turn"
    assert "Scripted reply to: second prompt" in texts
    assert len(run.prompts) == 2 and len(set(run.prompts)) == 2, run.prompts
    assert all(UUID4.match(p) for p in run.prompts), run.prompts


def _check_capable(row: Row, run: Run) -> None:
    _check_common(row, run)
    first = run.first
    assert isinstance(first, PromptResponse), first
    assert first.stop_reason == row.stop_reason

    records = run.adapter.records()
    # The whole record, minus its id, with its carrier; the second turn adds nothing.
    assert [(carrier, {k: v for k, v in r.items() if k != "id"}) for carrier, r in records] == [
        *row.records
    ]
    ids = {r["id"] for _, r in records}
    if row.records:
        assert len(ids) == 1, ids  # one incident, revised in place
        [record_id] = ids
        if row.id_shape == "turn":
            # docs/decisions.md#turn-ids: the turn id is the uuid4 the adapter stamped on the first
            # user message.
            assert record_id == f"{run.prompts[0]}:error", (record_id, run.prompts)
        else:
            # docs/decisions.md#session-scoped-ids: <sessionId>:notice:<epoch>:<n>.
            pattern = rf"{re.escape(run.session)}:notice:[^:]+:[1-9][0-9]*"
            assert re.fullmatch(pattern, record_id), record_id
    # Records are transcript entries at their stream position: in these scenarios Claude's
    # warnings (retries, model fallback) come before the answer's text.
    stream = [
        u
        for u in run.adapter.updates()
        if u["sessionUpdate"] != "session_info_update" or _has_key(u, "sessionFailure")
    ]
    kinds = [u["sessionUpdate"] for u in stream]
    if SESSION_INFO in kinds and row.streamed:
        # Claude's text streams: its first chunk is a piece of a streamed text.
        first_text = next(
            i
            for i, u in enumerate(stream)
            if u.get("content", {}).get("text")
            and any(u["content"]["text"] in text for text in row.streamed)
        )
        assert max(i for i, k in enumerate(kinds) if k == SESSION_INFO) < first_text, kinds
    for _, record in records:
        _safe(record["title"])
        # every scripted text fits a title (docs/decisions.md#details)
        assert "details" not in record
    # The terminal record rides on this prompt's own response.
    if row.records and row.records[-1][0] == PROMPT_RESPONSE:
        assert first.field_meta is not None
        assert first.field_meta["jetbrains"]["air"]["sessionFailure"] == records[-1][1]
    if row.prose is not None:
        # docs/decisions.md#capable-clients: the prose that became the title is not also agent text.
        texts = run.adapter.agent_texts()
        assert not any(row.prose in t for t in texts), texts


def _check_legacy(row: Row, run: Run) -> None:
    _check_common(row, run)
    first, expected = run.first, row.legacy
    if expected.stop_reason is not None:
        assert isinstance(first, PromptResponse), first
        assert first.stop_reason == expected.stop_reason
    else:
        assert isinstance(first, acp.RequestError), first
        assert (first.code, first.data) == (expected.code, expected.data)
        message = str(first)
        if expected.message is not None:
            assert message == expected.message
        else:
            assert message.startswith("Internal error"), message
        _safe(message)
    # docs/decisions.md#legacy-clients: no record, ever, on any carrier.
    assert run.adapter.records() == []
    assert not any(_has_key(m, "sessionFailure") for m in run.adapter.incoming())
    texts = run.adapter.agent_texts()
    if row.prose is not None:
        # docs/decisions.md#legacy-error-text-once: Claude's words once, as agent text; the
        # error's message does not repeat them.
        shown = sum(row.prose in t for t in texts)
        assert shown == (1 if row.prose_to_legacy else 0), (row.prose, texts)
        if isinstance(first, acp.RequestError):
            assert row.prose not in str(first), str(first)
    if row.scenario == "model_fallback":
        assert f"**Model fallback:** {FALLBACK_NOTICE}" in texts


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("row", ROWS, ids=[row.scenario for row in ROWS])
async def test_failure_row(adapters: AdapterPool, tmp_path: Path, row: Row) -> None:
    # The two client modes are independent adapter processes (each shared with the other rows of
    # its mode); they run side by side.
    capable, legacy = await asyncio.gather(
        _run(adapters, tmp_path / "capable", row.scenario, capable=True),
        _run(adapters, tmp_path / "legacy", row.scenario, capable=False),
    )
    problems = []
    for mode, check, run in (
        ("capable", _check_capable, capable),
        ("legacy", _check_legacy, legacy),
    ):
        try:
            check(row, run)
        except AssertionError as exc:
            problems.append(f"{mode} client: {exc}")
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.mark.asyncio
async def test_turn_ids_are_fresh_per_prompt(tmp_path: Path) -> None:
    # docs/decisions.md#turn-ids and "a later independent occurrence uses a new id": the same
    # failure twice in one session gives two incidents, each under its own turn's id.
    async with spawn_adapter(tmp_path, "rate_limit") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "one")
        # Turn 2 of every scenario succeeds; a new session of the same process replays turn 1.
        other = await adapter.new_session()
        await adapter.prompt(other, "two")
        first_ids = adapter.prompt_uuids(session)
        other_ids = adapter.prompt_uuids(other)
    ids = [record["id"] for _, record in adapter.records()]
    assert ids == [f"{first_ids[0]}:error", f"{other_ids[0]}:error"]
    assert len(set(ids)) == 2
    assert all(UUID4.match(i.removesuffix(":error")) for i in ids)
    assert uuid.UUID(first_ids[0]).version == 4
