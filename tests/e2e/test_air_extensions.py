"""The JetBrains AIR extension set, end to end through the stdio agent, for three clients: AIR
declaring the set, AIR declaring only sessionFailure, and a plain client. Each capability's
exact frames go to the clients it is for and to no other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import OPT_IN, Adapter, AdapterPool

AIR_SET: dict[str, Any] = {
    "jetbrains": {
        "air": {
            "version": 1,
            "capabilities": ["sessionFailure", "planFile", "loadReplayEnd", "diffPatch"],
        }
    }
}
CLIENTS = {"air_set": AIR_SET, "air_sf": OPT_IN, "plain": None}


def requests(adapter: Adapter, method: str) -> list[dict[str, Any]]:
    return [m["params"] for m in adapter.incoming() if m.get("method") == method]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("kind", list(CLIENTS))
async def test_the_permission_heading_goes_to_every_air_client(
    adapters: AdapterPool, tmp_path: Path, kind: str
) -> None:
    meta = CLIENTS[kind]
    async with adapters.session_adapter(
        tmp_path, "air_permission", client_meta=meta, capable=meta is not None
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "run the tests")
        asked = requests(adapter, "session/request_permission")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert [a["toolCall"]["title"] for a in asked] == ["npm test --watch=false", "Write notes.md"]
    headings = [a.get("_meta") for a in asked]
    if meta is None:
        assert headings == [None, None]
        return
    assert headings == [
        {
            "jetbrains": {
                "air": {
                    "version": 1,
                    "permission": {
                        "version": 1,
                        "title": "npm  test\t--watch=false",  # a command, verbatim
                        "description": "Reason: Needed to verify\nthe change.",
                        "defaultToNo": True,
                    },
                }
            }
        },
        {
            "jetbrains": {
                "air": {"version": 1, "permission": {"version": 1, "title": "Write notes.md"}}
            }
        },
    ]
    # defaultToNo: the decline first, as for every client.
    assert asked[0]["options"][0]["kind"] == "reject_once"
