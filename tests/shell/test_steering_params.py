"""`_session/steering`'s parameters, in process (`adapter.agent.steering.guard`): what reaches
the session and what is refused before it, as `session/prompt` refuses it
(docs/decisions.md#empty-and-placeholder-input)."""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError

from adapter.agent.steering import STEER, guard


class _Agent:
    def __init__(self) -> None:
        self.steered: list[tuple[str, list[Any], bool]] = []

    async def steer(
        self, session_id: str, prompt: list[Any], *, prompt_required: bool
    ) -> dict[str, Any]:
        self.steered.append((session_id, prompt, prompt_required))
        return {"outcome": "injected"}


async def _other(method: str, params: Any, is_notification: bool) -> Any:
    return {"routed": method}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "prompt",
    [
        [],
        [{"type": "text", "text": ""}],
        [{"type": "text", "text": " \n\t"}, {"type": "text", "text": "  "}],
    ],
    ids=["no-blocks", "empty-text", "blank-texts"],
)
async def test_an_empty_steer_is_refused_and_reaches_nobody(prompt: list[Any]) -> None:
    agent = _Agent()
    routed = guard(agent)(_other)
    with pytest.raises(RequestError) as caught:
        await routed(STEER, {"sessionId": "s1", "prompt": prompt}, False)
    assert caught.value.code == -32602
    assert agent.steered == []


@pytest.mark.asyncio
async def test_a_steer_with_words_reaches_the_session() -> None:
    agent = _Agent()
    routed = guard(agent)(_other)
    params = {
        "sessionId": "s1",
        "prompt": [{"type": "text", "text": " "}, {"type": "text", "text": "use tabs"}],
        "_meta": {"steering": {"idleBehavior": "promptRequired"}},
    }
    assert await routed(STEER, params, False) == {"outcome": "injected"}
    [(session_id, blocks, required)] = agent.steered
    assert (session_id, [b.text for b in blocks], required) == ("s1", [" ", "use tabs"], True)
    # Any other method passes through untouched.
    assert await routed("_session/other", {}, False) == {"routed": "_session/other"}
