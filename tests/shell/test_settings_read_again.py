"""Settings read again mid-session (docs/decisions.md#settings-read-again), in the shell: a
prompt reads the settings files again and hands the core the idle compaction's policy when it
changed; nothing else the session opened with moves (its modes, its pickers)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from adapter.claude.idle_settings import idle_policy
from fsm import IdlePolicy
from tests.support.shell_harness import (
    EPOCH,
    answer_of,
    prompt_in_background,
    result_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _policy(session: object) -> IdlePolicy:
    machine = session.core.idle.machine  # type: ignore[attr-defined]
    assert machine is not None
    return machine.policy  # type: ignore[no-any-return]


async def test_a_prompt_reads_the_settings_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    user = tmp_path / "settings.json"
    async with session_with_fakes() as (session, _, runtime, _), anyio.create_task_group() as tg:
        modes, mode = session.controls.config.modes, session.controls.config.mode
        assert _policy(session).disabled_by is None
        user.write_text(
            json.dumps(
                {
                    "idleCompaction": False,
                    # Never read again mid-session: the mode stays what the session opened in.
                    "permissions": {"defaultMode": "bypassPermissions"},
                }
            ),
            encoding="utf-8",
        )
        box = await prompt_in_background(session, runtime, tg)
        assert _policy(session).disabled_by == "the idleCompaction setting"
        await session.claude.on_message(result_message(), {}, EPOCH)
        await answer_of(box)
        user.write_text(json.dumps({"env": {"CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS": "400000"}}))
        box = await prompt_in_background(session, runtime, tg)
        assert _policy(session) == IdlePolicy(min_tokens=400_000)
        await session.claude.on_message(result_message(), {}, EPOCH)
        await answer_of(box)
        assert (session.controls.config.modes, session.controls.config.mode) == (modes, mode)


def test_the_managed_tier_counts_over_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapter.claude import managed_settings

    managed = tmp_path / "managed"
    managed.mkdir()
    (managed / "managed-settings.json").write_text(json.dumps({"autoCompactEnabled": False}))
    monkeypatch.setattr(managed_settings, "managed_folder", lambda: managed)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    (tmp_path / "settings.json").write_text(json.dumps({"autoCompactEnabled": True}))
    assert idle_policy(str(tmp_path), {}).disabled_by == "the autoCompactEnabled setting"
