"""API failures as the real Claude Code CLI reports them, and what each client mode receives.

Every row is one HTTP answer of the Messages API double, repeated as often as the CLI asks
(`CLAUDE_CODE_MAX_RETRIES=2`), and states what the real CLI 2.1.332 makes of it (the error kind
on its `<synthetic>` message, whether it sends `api_retry` frames) and what the contract and
docs/decisions.md require a client to get for that kind. The real CLI's quirks, mapped here so an
upgrade that changes them fails a test:

- a 529 is retried as `overloaded`, but the final error kind is `server_error` (category service);
- a plain 400 ends as kind `unknown` (category service, `["retry"]`), and is resent up to 6
  times with beta features removed, without any `api_retry` frame;
- the credit-balance 400 is `billing_error` (limit, no action), not retried;
- a reset connection is retried without an HTTP status ("Reconnecting…", category connection)
  and ends as `server_error` (service);
- a stream cut mid-way is retried, and after the last retry the CLI falls back to a plain
  (non-streamed) request, whose JSON answer ends the turn normally.

Titles are the CLI's own words: the text of the `<synthetic>` message it wrote to its transcript.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import acp
import pytest

from tests.real_claude.api_double import (
    Answer,
    ApiError,
    CutStream,
    MessagesApiDouble,
    Reply,
    Reset,
    bad_request,
    credit_balance_too_low,
    internal_error,
    overloaded,
    rate_limited,
    unauthorized,
)
from tests.real_claude.support import (
    Turn,
    assert_broken_then,
    load,
    prompt_uuids,
    run_turn,
    transcript_entries,
)
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

RETRIES = 2  # CLAUDE_CODE_MAX_RETRIES in support.cli_env


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    reply: Reply
    # The category of the api_retry warnings (docs/decisions.md#retry-progress), or None when the
    # CLI does not retry or the retries publish nothing (401).
    warnings: str | None
    with_status: bool  # "Retrying Claude…" (an HTTP status) or "Reconnecting to Claude…"
    error_kind: str  # the CLI's error kind on its synthetic message (legacy errorKind)
    category: str
    actions: list[str]
    title_prefix: str  # how the CLI 2.1.332 words it
    legacy_code: int = -32603
    requests: int = RETRIES + 1


ROWS = (
    Row(
        "401",
        unauthorized(),
        None,
        True,
        "authentication_failed",
        "access",
        ["login"],
        "Invalid API key · Fix external API key",
        legacy_code=-32000,
    ),
    Row(
        "429",
        rate_limited(),
        "limit",
        True,
        "rate_limit",
        "limit",
        ["retry"],
        "API Error: Request rejected (429) · This request would exceed the rate limit",
    ),
    Row(
        "529",
        overloaded(),
        "service",
        True,
        "server_error",
        "service",
        ["retry"],
        "API Error: Repeated 529 Overloaded errors.",
    ),
    Row(
        "500",
        internal_error(),
        "service",
        True,
        "server_error",
        "service",
        ["retry"],
        "API Error: 500 Internal server error.",
    ),
    Row(
        "400",
        bad_request(),
        None,
        True,
        "unknown",
        "service",
        ["retry"],
        "API Error: 400 messages.0.content: Input should be a valid list",
        requests=6,
    ),
    Row(
        "credit",
        credit_balance_too_low(),
        None,
        True,
        "billing_error",
        "limit",
        [],
        "Credit balance is too low",
        requests=1,
    ),
    Row(
        "reset",
        Reset(),
        "connection",
        False,
        "server_error",
        "service",
        ["retry"],
        "API Error: Connection dropped (ECONNRESET).",
    ),
)


def _synthetic_text(adapter: Adapter, session_id: str) -> str:
    """The words of the last `<synthetic>` message the CLI wrote to its transcript."""
    texts = [
        "".join(b.get("text", "") for b in e["message"]["content"] if isinstance(b, dict))
        for e in transcript_entries(adapter, session_id)
        if e.get("type") == "assistant" and e.get("message", {}).get("model") == "<synthetic>"
    ]
    assert texts, "the CLI wrote no synthetic error message"
    return texts[-1]


def _warnings(turn_id: str, category: str, with_status: bool) -> list[tuple[str, dict[str, Any]]]:
    verb = "Retrying" if with_status else "Reconnecting to"
    return [
        (
            "session_info_update",
            {
                "id": f"{turn_id}:error",
                "revision": attempt,
                "category": category,
                "severity": "warning",
                "title": f"{verb} Claude, attempt {attempt} of {RETRIES}.",
                "actions": [],
            },
        )
        for attempt in range(1, RETRIES + 1)
    ]


def _check_capable(row: Row, turn: Turn, turn_id: str, title: str) -> None:
    assert turn.response.stop_reason == "end_turn"
    warnings = _warnings(turn_id, row.warnings, row.with_status) if row.warnings else []
    terminal = {
        "id": f"{turn_id}:error",
        "revision": len(warnings) + 1,
        "category": row.category,
        "severity": "error",
        "title": title,
        "actions": row.actions,
    }
    assert turn.records() == [*warnings, ("prompt_response", terminal)]
    # docs/decisions.md#capable-clients: the words that became the title are not also agent text.
    assert title not in "".join(turn.texts())


def _check_legacy(row: Row, turn: Turn, title: str) -> None:
    error = turn.error
    assert error.code == row.legacy_code
    if row.legacy_code == -32603:
        assert error.data == {"errorKind": row.error_kind}
    assert turn.records() == []
    # docs/decisions.md#legacy-clients: Claude's error prose stays in the transcript as agent text.
    assert title in "".join(turn.texts())


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
async def test_api_failure(
    adapter: Adapter, double: MessagesApiDouble, mode: str, row: Row
) -> None:
    double.script(otherwise=row.reply)
    turn = await run_turn(adapter, f"Trigger {row.name}")

    assert len(double.messages()) == row.requests
    title = _synthetic_text(adapter, turn.session_id)
    assert title.startswith(row.title_prefix)
    if row.name == "529":  # the CLI names the gateway it talked to
        assert title.endswith(f"check your inference gateway ({double.base_url[7:]}).")
    (turn_id,) = prompt_uuids(adapter, turn.session_id)
    if mode == "capable":
        _check_capable(row, turn, turn_id, title)
    else:
        _check_legacy(row, turn, title)

    # The session survives the failure: the same Claude process answers the next prompt.
    double.script(Answer("Back to normal."))
    after = await run_turn(adapter, "Again, please.", turn.session_id)
    assert after.response.stop_reason == "end_turn"
    assert "".join(after.texts()) == "Back to normal."
    assert after.records() == []


async def test_stream_cut_midway_is_retried_then_answered_by_a_plain_request(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    answer = "Answered without streaming."
    double.script(*[CutStream("Half an ans")] * (RETRIES + 1), Answer(answer))
    turn = await run_turn(adapter, "Cut me off")

    # Every retry streams; after the last one the CLI asks once more, without streaming, and
    # the double answers with a plain JSON message.
    assert [r.body["stream"] for r in double.messages()] == [True] * (RETRIES + 1) + [False]
    assert turn.response.stop_reason == "end_turn"
    assert_broken_then(turn, answer)
    (turn_id,) = prompt_uuids(adapter, turn.session_id)
    expected = _warnings(turn_id, "connection", False) if mode == "capable" else []
    # The warnings stay as they were: recovery publishes nothing (spec: "Internal recovery").
    assert turn.records() == expected


async def test_an_error_between_successes_is_tied_to_its_own_turn(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    double.script(Answer("First."))
    first = await run_turn(adapter, "One")
    double.script(otherwise=ApiError(529, "overloaded_error", "Overloaded"))
    second = await run_turn(adapter, "Two", first.session_id)
    uuids = prompt_uuids(adapter, first.session_id)
    assert len(uuids) == 2
    if mode == "capable":
        ids = {record["id"] for _, record in second.records()}
        assert ids == {f"{uuids[1]}:error"}
    else:
        assert isinstance(second.answer, acp.RequestError)


async def test_a_replayed_failure_other_than_a_usage_limit_is_its_words(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    double.script(otherwise=overloaded())
    failed = await run_turn(adapter, "Overload me")
    words = _synthetic_text(adapter, failed.session_id)
    double.script(Answer("Recovered."))
    await run_turn(adapter, "And now?", failed.session_id)
    assert failed.cwd is not None

    replay = await load(adapter, failed.session_id, failed.cwd)
    # docs/decisions.md#replaying-stored-messages: only usage limits become typed records on replay;
    # every other stored message, Claude's error words included, replays as its transcript text, for
    # every client.
    assert replay.records() == []
    assert "".join(replay.texts()) == words + "Recovered."
