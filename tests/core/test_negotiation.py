"""`fsm/wire/negotiation.py` as tables (docs/decisions.md#negotiation): which capability
declarations opt in to the sessionFailure records and which to the `agent_error` updates. A
version must be an integer >= 1 (a float only if it is one), never a boolean or a string;
anything malformed means legacy, never an error. One malformed opt-in still goes through a real
adapter in `tests/e2e/test_agent_error.py`.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from fsm.air.client import ADVERTISED, IMPLEMENTED, advertisement, air_client
from fsm.wire.negotiation import (
    Dialects,
    agent_error_negotiated,
    keys_options_by_kind,
    negotiate,
    session_failure_negotiated,
)


def _air(version: object = 1, capabilities: object = ("sessionFailure",)) -> dict[str, Any]:
    air: dict[str, Any] = {"version": version, "capabilities": capabilities}
    if isinstance(capabilities, tuple):
        air["capabilities"] = list(capabilities)
    return {"jetbrains": {"air": air}}


SESSION_FAILURE: list[tuple[str, object, bool]] = [
    ("opt-in", _air(), True),
    ("a later version", _air(version=3), True),
    ("a whole float", _air(version=1.0), True),
    ("among other capabilities", _air(capabilities=("other", 1, "sessionFailure")), True),
    ("version 0", _air(version=0), False),
    ("a negative version", _air(version=-1), False),
    ("a fractional version", _air(version=1.5), False),
    ("an infinite version", _air(version=math.inf), False),
    ("a NaN version", _air(version=math.nan), False),
    ("a boolean version", _air(version=True), False),
    ("a string version", _air(version="1"), False),
    ("no version", {"jetbrains": {"air": {"capabilities": ["sessionFailure"]}}}, False),
    ("the name in another case", _air(capabilities=("sessionfailure",)), False),
    ("capabilities not a list", _air(capabilities="sessionFailure"), False),
    ("no capabilities", {"jetbrains": {"air": {"version": 1}}}, False),
    ("air not an object", {"jetbrains": {"air": ["sessionFailure"]}}, False),
    ("jetbrains not an object", {"jetbrains": "air"}, False),
    ("no jetbrains", {"air": _air()["jetbrains"]["air"]}, False),
    ("meta not an object", ["jetbrains"], False),
    ("no meta", None, False),
]

AGENT_ERROR: list[tuple[str, object, bool]] = [
    ("opt-in", {"agentError": {"version": 1}}, True),
    ("a later version", {"agentError": {"version": 2}}, True),
    ("a whole float", {"agentError": {"version": 2.0}}, True),
    ("beside sessionFailure", {**_air(), "agentError": {"version": 1}}, True),
    ("a string version", {"agentError": {"version": "1"}}, False),
    ("version 0", {"agentError": {"version": 0}}, False),
    ("a boolean version", {"agentError": {"version": True}}, False),
    ("a fractional version", {"agentError": {"version": 1.5}}, False),
    ("no version", {"agentError": {}}, False),
    ("a boolean opt-in", {"agentError": True}, False),
    ("a list opt-in", {"agentError": [1]}, False),
    ("under jetbrains instead", {"jetbrains": {"agentError": {"version": 1}}}, False),
    ("meta not an object", "agentError", False),
    ("no meta", None, False),
]


@pytest.mark.parametrize(
    ("meta", "on"), [c[1:] for c in SESSION_FAILURE], ids=[c[0] for c in SESSION_FAILURE]
)
def test_session_failure_negotiated(meta: object, on: bool) -> None:
    assert session_failure_negotiated(meta) is on
    assert negotiate(meta).session_failure is on


@pytest.mark.parametrize(
    ("meta", "on"), [c[1:] for c in AGENT_ERROR], ids=[c[0] for c in AGENT_ERROR]
)
def test_agent_error_negotiated(meta: object, on: bool) -> None:
    assert agent_error_negotiated(meta) is on
    assert negotiate(meta).agent_error is on


def test_either_dialect_makes_the_client_capable_and_neither_is_legacy() -> None:
    assert negotiate(_air()) == Dialects(session_failure=True)
    assert negotiate({"agentError": {"version": 1}}) == Dialects(agent_error=True)
    assert negotiate({**_air(), "agentError": {"version": 1}}).capable
    assert not negotiate({"agentError": {"version": "1"}}).capable
    assert not negotiate(None).capable


def test_the_advertisement_goes_to_air_clients_only_as_a_fresh_copy() -> None:
    # docs/decisions.md#advertising: AIR gets version 1 and what is implemented, sessionFailure
    # first; any other client gets nothing under `_meta.jetbrains`.
    first = advertisement(air_client({"jetbrains": {"air": {}}}))
    assert first is not None
    first["jetbrains"]["air"]["capabilities"].append("mutated")
    first["jetbrains"]["air"]["goal"]["actions"].append("mutated")
    again = advertisement(air_client(_air()))
    goal = {"version": 1, "controlMethod": "_session/goal", "actions": ["set", "clear"]}
    declared = {"version": 1, "capabilities": list(ADVERTISED), "goal": goal}
    assert again == {"jetbrains": {"air": declared}}
    assert IMPLEMENTED[0] == "sessionFailure"
    plain: tuple[object, ...] = (None, {}, {"jetbrains": {}}, {"jetbrains": {"air": 1}}, [])
    for meta in plain:
        assert advertisement(air_client(meta)) is None


@pytest.mark.parametrize(
    ("name", "by_kind"),
    [
        ("CodeCompanion.nvim", True),
        ("codecompanion", True),
        ("  CODECOMPANION ", True),
        ("zed", False),
        ("agent-shell", False),
        ("My CodeCompanion fork", False),
        ("", False),
        (None, False),
        (7, False),
        (["CodeCompanion"], False),
    ],
)
def test_which_clients_key_permission_options_by_kind(name: object, by_kind: bool) -> None:
    # docs/decisions.md#plan-exit-option-kinds: the client's own name says it; anything that is
    # not a name is a client that reads option names.
    assert keys_options_by_kind(name) is by_kind
