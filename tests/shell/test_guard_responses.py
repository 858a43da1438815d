"""The stdin guard's rule for the client's responses to our requests: the
`acp` connection sees exactly a result or an error object, never both, never neither."""

from __future__ import annotations

from typing import Any

import pytest

from adapter.wire.guard_rules import MALFORMED_RESPONSES, judge


@pytest.mark.parametrize(
    "reply",
    [
        {"result": {"outcome": {"outcome": "selected", "optionId": "allow"}}},
        {"result": None},
        {"error": {"code": -32000, "message": "no"}},
    ],
)
def test_a_well_formed_response_passes_unchanged(reply: dict[str, Any]) -> None:
    message = {"jsonrpc": "2.0", "id": 3, **reply}
    assert judge(message, initialized=True) == (message, None, None)


@pytest.mark.parametrize(
    "reply",
    [
        {"result": {"outcome": {"outcome": "selected", "optionId": "allow"}}, "error": {}},
        {},
        {"error": "allow"},
        {"error": None},
        {"error": {"code": "1", "message": "no"}},
    ],
)
def test_a_malformed_response_becomes_an_error_for_the_same_request(
    reply: dict[str, Any],
) -> None:
    passed, answer, warning = judge({"jsonrpc": "2.0", "id": 3, **reply}, initialized=True)
    assert answer is None and warning is None  # the waiting request logs it, once
    assert passed is not None and passed["id"] == 3 and "result" not in passed
    assert passed["error"]["code"] == -32600
    assert passed["error"]["data"]["reason"] in MALFORMED_RESPONSES
