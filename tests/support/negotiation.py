"""What both tiers' negotiation tests share (tests/shell/test_protocol.py in process,
tests/e2e/test_protocol.py over stdio for what only raw text can carry): raw `clientCapabilities`
text, the advertisement an AIR client is owed, and the verdict on which mode the agent chose
from one failed turn (docs/decisions.md#negotiation and #advertising).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import acp

from fsm.air.client import ADVERTISED, air_client
from tests.support.failure_rows import has_key

__all__ = [
    "ADVERTISEMENT",
    "advertisement_problem",
    "air_json",
    "initialize_json",
    "mode_chosen",
    "opt_in_json",
]

ADVERTISEMENT = {
    "version": 1,
    "capabilities": list(ADVERTISED),
    # Every AIR client is told how to set a goal (docs/client-authors.md).
    "goal": {"version": 1, "controlMethod": "_session/goal", "actions": ["set", "clear"]},
}


def initialize_json(capabilities_json: str) -> str:
    """`initialize` params as raw text around raw `clientCapabilities`."""
    return f'{{"protocolVersion":{acp.PROTOCOL_VERSION},"clientCapabilities":{capabilities_json}}}'


def air_json(air_json_text: str) -> str:
    return f'{{"_meta":{{"jetbrains":{{"air":{air_json_text}}}}}}}'


def opt_in_json(version_json: str, capabilities_json: str = '["sessionFailure"]') -> str:
    return air_json(f'{{"version":{version_json},"capabilities":{capabilities_json}}}')


def advertisement_problem(init: dict[str, Any], capabilities_json: str) -> str | None:
    """What is wrong with `initialize`'s answer to `capabilities_json` (None: nothing): an AIR
    client (`_meta.jetbrains.air` an object) is told the advertisement, any other client not."""
    if "error" in init:
        return f"initialize failed: {init['error']}"
    advertised = (init["result"].get("_meta") or {}).get("jetbrains", {}).get("air")
    declared = json.loads(capabilities_json).get("_meta")
    if advertised != (ADVERTISEMENT if air_client(declared).air else None):
        return f"wrong advertisement: {init['result'].get('_meta')}"
    return None


def mode_chosen(answer: dict[str, Any], frames: Iterable[dict[str, Any]]) -> str:
    """ "legacy" or "capable" from a rate-limited prompt's `answer` and the frames the client
    got; anything else says what was wrong."""
    records = any(has_key(frame, "sessionFailure") for frame in frames)
    if "error" in answer and not records:
        error = answer["error"]
        if error["code"] == -32603 and error.get("data") == {"errorKind": "rate_limit"}:
            return "legacy"
        return f"legacy with an unexpected error: {error}"
    meta = answer.get("result", {}).get("_meta") or {}
    record = meta.get("jetbrains", {}).get("air", {}).get("sessionFailure")
    if record is not None and record["category"] == "limit":
        return "capable"
    return f"neither: {answer}"
