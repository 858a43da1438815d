"""The kind AIR groups its mode picker by (`_meta.jetbrains.air.kind`, the reference's
`buildAvailableModes`): on each session mode and mode option value, for an AIR client only;
and on a child session's mode option, named as the root's picker names it."""

from __future__ import annotations

import pytest

from fsm import air_client
from fsm.air.meta import mode_kind_meta
from fsm.air.subagent_config import hook_configuration

AIR = air_client({"jetbrains": {"air": {}}})  # any AIR client: no capability needed
PLAIN = air_client(None)


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("default", "standard"),
        ("acceptEdits", "standard"),
        ("plan", "plan"),
        ("auto", "auto_review"),
        ("bypassPermissions", "full_access"),
    ],
)
def test_each_offered_mode_has_its_kind(mode: str, kind: str) -> None:
    assert mode_kind_meta(mode) == {"jetbrains": {"air": {"version": 1, "kind": kind}}}
    assert AIR.mode_meta(mode) == mode_kind_meta(mode)


@pytest.mark.parametrize("mode", ["dontAsk", "", "Plan", "standard"])
def test_a_mode_the_reference_does_not_offer_has_no_kind(mode: str) -> None:
    assert mode_kind_meta(mode) is None and AIR.mode_meta(mode) is None


def test_a_client_that_is_not_air_gets_no_kind() -> None:
    assert all(PLAIN.mode_meta(m) is None for m in ("default", "plan", "auto"))


def test_a_childs_mode_option_names_the_kind_of_a_mode_the_root_offers() -> None:
    modes = [("plan", "Plan", "Explore and plan; change nothing")]
    hook = {"agent_id": "a1", "permission_mode": "plan", "hook_event_name": "SubagentStart"}
    configured = hook_configuration(hook, modes=modes, mode_meta=AIR.mode_meta)
    assert configured is not None
    _, options = configured
    assert options[0]["options"] == [
        {
            "value": "plan",
            "name": "Plan",
            "description": "Explore and plan; change nothing",
            "_meta": {"jetbrains": {"air": {"version": 1, "kind": "plan"}}},
        }
    ]
    # A mode the root does not offer is named by its id alone, as the reference does.
    odd = hook_configuration(
        {**hook, "permission_mode": "dontAsk"}, modes=modes, mode_meta=AIR.mode_meta
    )
    assert odd is not None and odd[1][0]["options"] == [{"value": "dontAsk", "name": "dontAsk"}]
