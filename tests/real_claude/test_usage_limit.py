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

from tests.real_claude.api_double import MessagesApiDouble, subscription_limit
from tests.real_claude.support import load, prompt_uuids, real_adapter, run_turn
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
        title = texts
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
