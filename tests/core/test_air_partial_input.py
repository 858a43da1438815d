"""Who is shown a streaming tool call's input as it stands (`AirClient.partial_input`, the
reference renderer's `toolCall` and `partialRefinement`): every client but an AIR one, which
gets `rawInput` once the input is complete, whatever it declared."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import air_client

_AIR_METAS: list[Any] = [
    {"jetbrains": {"air": {}}},
    {"jetbrains": {"air": {"version": 1, "capabilities": ["rawInputRendering"]}}},
    {"jetbrains": {"air": {"version": "x"}}},  # malformed: still an AIR client
]


@pytest.mark.parametrize("meta", _AIR_METAS)
def test_an_air_client_gets_no_partial_input(meta: Any) -> None:
    assert air_client(meta).partial_input is False


@pytest.mark.parametrize(
    "meta", [None, {}, {"jetbrains": {"air": None}}, {"terminal_output": True}]
)
def test_any_other_client_gets_the_input_as_it_streams(meta: Any) -> None:
    assert air_client(meta).partial_input is True
