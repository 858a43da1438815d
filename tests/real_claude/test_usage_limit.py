"""A subscription's usage limit, as the real Claude Code CLI reports it, live and replayed.

The CLI words a usage limit itself only for a subscription login: here a dummy
`CLAUDE_CODE_OAUTH_TOKEN` (no API key), and a 429 carrying the `anthropic-ratelimit-unified-*`
headers. It then writes a `<synthetic>` "You've hit your 5-hour limit · resets …" message, error
kind `rate_limit`, which the adapter must recognise by its text as a quota failure (limit, no
action), and restore on `session/load` under the same id (spec: "History replay").
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.real_claude.api_double import (
    Answer,
    MessagesApiDouble,
    subscription_limit,
    subscription_warning,
)
from tests.real_claude.support import load, prompt_uuids, real_adapter, run_turn, wait_until
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def adapter(
    mode: str, double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Adapter]:
    async with real_adapter(
        tmp_path_factory.mktemp(f"subscriber-{mode}"),
        double,
        capable=mode == "capable",
        ANTHROPIC_API_KEY="",
        CLAUDE_CODE_OAUTH_TOKEN="sk-ant-oat01-real-claude-tier-dummy-token-000000000000",
    ) as running:
        yield running


async def test_usage_limit_live_and_replayed(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    double.script(otherwise=subscription_limit(int(time.time()) + 3 * 3600))
    turn = await run_turn(adapter, "Use my subscription")

    assert len(double.messages()) == 1  # a usage limit is not retried
    assert double.messages()[0].headers.get("Authorization", "").startswith("Bearer sk-ant-oat01")
    (turn_id,) = prompt_uuids(adapter, turn.session_id)
    texts = "".join(turn.texts())
    if mode == "capable":
        assert turn.response.stop_reason == "end_turn"
        (carrier, record), *rest = turn.records()
        assert rest == []
        title = record["title"]
        assert title.startswith("You've hit your 5-hour limit · resets ")
        assert (carrier, record) == (
            "prompt_response",
            {
                "id": f"{turn_id}:error",
                "revision": 1,
                "category": "limit",
                "severity": "error",
                "title": title,
                "actions": [],
            },
        )
        assert title not in texts
    else:
        assert turn.error.code == -32603
        assert turn.error.data == {"errorKind": "rate_limit"}
        assert texts.startswith("You've hit your 5-hour limit · resets ")
        # Live, the words end their line before the failed answer (a client that appends its
        # error block must not glue it to them); the transcript keeps the words alone.
        assert texts.endswith("\n")
        title = texts.removesuffix("\n")
        assert turn.records() == []

    # session/load of the transcript the CLI wrote restores the failure (capable) or its words.
    assert turn.cwd is not None
    replay = await load(adapter, turn.session_id, turn.cwd)
    replayed = [r for carrier, r in replay.records() if carrier == "session_info_update"]
    users = "".join(str(u["content"].get("text", "")) for u in replay.updates("user_message_chunk"))
    assert "Use my subscription" in users
    if mode == "capable":
        assert [{k: v for k, v in r.items() if k != "revision"} for r in replayed] == [
            {
                "id": f"{turn_id}:error",
                "category": "limit",
                "severity": "error",
                "title": title,
                "actions": [],
            }
        ]
        assert title not in "".join(replay.texts())
    else:
        assert replayed == []
        assert "".join(replay.texts()) == title


async def test_warning_then_limit_then_reset_then_the_next_answer(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    # docs/decisions.md#early-limit-warning and #limit-that-resets against the real CLI: its
    # rate_limit_event frames come from the headers. The reset must still lie ahead when the limit
    # is reported: the two real-CLI turns before it take seconds on a loaded machine, and a window
    # whose reset has passed warns nothing.
    reset = int(time.time()) + 20
    double.script(
        Answer("Nearly there.", headers=subscription_warning(reset, 0.92)),
        subscription_limit(reset),
        Answer("Back again."),
    )
    first = await run_turn(adapter, "How far am I?")
    second = await run_turn(adapter, "And now?", first.session_id)
    warnings = [r for c, r in first.records() if r["severity"] == "warning"]
    if mode == "capable":
        assert first.response.stop_reason == "end_turn"
        [warning] = warnings
        assert warning["category"] == "limit" and warning["actions"] == []
        assert warning["title"].startswith("You've used 92% of your 5-hour limit \u00b7 resets ")
        [(carrier, failure)] = second.records()
        assert carrier == "prompt_response"
        assert failure["title"].startswith("You've hit your 5-hour limit \u00b7 resets ")

        def reset_revisions() -> list[dict[str, object]]:
            return [
                r for _, r in adapter.records() if r["id"] == failure["id"] and r["revision"] == 2
            ]

        # The reset comes by itself, at the time the headers named (a bound, not a speed).
        await wait_until(lambda: bool(reset_revisions()), timeout=120)
        [revised] = reset_revisions()
        assert revised["actions"] == ["retry"]
        assert (
            revised["title"] == failure["title"] + " \u00b7 The limit has reset; you can retry now."
        )
    else:
        assert warnings == [] and second.error.code == -32603
        await wait_until(lambda: time.time() > reset + 0.5, timeout=120)
    third = await run_turn(adapter, "Once more.", first.session_id)
    assert third.response.stop_reason == "end_turn"
    assert "Back again." in "".join(third.texts())
    # Every usage_update after a rate_limit_event carries the windows: the 5-hour window's
    # status is in `unifiedWindows` (the event's own `status` is the overall one).
    infos = [
        u["params"]["update"]["_meta"]["_claude/rateLimit"]
        for u in [*first.frames, *second.frames]
        if u.get("params", {}).get("update", {}).get("sessionUpdate") == "usage_update"
        and "_claude/rateLimit" in u["params"]["update"].get("_meta", {})
    ]
    statuses = [(i.get("unifiedWindows") or {}).get("five_hour", i).get("status") for i in infos]
    assert statuses[0] == "allowed_warning" and "rejected" in statuses
