"""The kind of each mode (`_meta.jetbrains.air.kind`), through the agent in process: an AIR
client finds it on every mode of `session/new` and every value of the mode option, also after
a mode change; a plain client finds no AIR key on either."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import OPT_IN
from tests.support.shell_harness import agent_in_process

KINDS = {
    "default": "standard",
    "acceptEdits": "standard",
    "plan": "plan",
    "auto": "auto_review",
    "bypassPermissions": "full_access",
}


async def _opened(tmp_path: Path, client_meta: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The `session/new` result and each `config_option_update` after a mode change."""
    async with agent_in_process(
        tmp_path, "success", client_meta=client_meta, capable=client_meta is not None
    ) as adapter:
        session = await adapter.new_session()
        await adapter.request("session/set_mode", {"sessionId": session, "modeId": "plan"})
    opened = [m["result"] for m in adapter.incoming() if "modes" in (m.get("result") or {})]
    updates = [
        m["params"]["update"]
        for m in adapter.incoming()
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "config_option_update"
    ]
    return [*opened, *updates]


def _kinds(shown: dict[str, Any]) -> list[tuple[str, Any]]:
    """(mode, its `_meta`) of the modes and of the mode option's values a message shows."""
    found = [
        (m["id"], m.get("_meta")) for m in (shown.get("modes") or {}).get("availableModes", [])
    ]
    for option in shown.get("configOptions", []):
        if option["id"] == "mode":
            found += [(v["value"], v.get("_meta")) for v in option["options"]]
    return found


@pytest.mark.asyncio
async def test_an_air_client_finds_each_modes_kind(tmp_path: Path) -> None:
    shown = await _opened(tmp_path, OPT_IN)
    assert len(shown) >= 2  # the opening and the option update of the mode change
    for message in shown:
        kinds = _kinds(message)
        assert kinds and {mode for mode, _ in kinds} <= set(KINDS)
        assert all(
            meta == {"jetbrains": {"air": {"version": 1, "kind": KINDS[mode]}}}
            for mode, meta in kinds
        )
    # Both lists: the modes and the option's values.
    assert len(_kinds(shown[0])) == 2 * len(shown[0]["modes"]["availableModes"])


@pytest.mark.asyncio
async def test_a_plain_client_finds_no_kind(tmp_path: Path) -> None:
    shown = await _opened(tmp_path, None)
    assert shown and all(_kinds(message) for message in shown)
    assert all(meta is None for message in shown for _, meta in _kinds(message))
