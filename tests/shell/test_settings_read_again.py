"""Settings read again mid-session (docs/decisions.md#settings-read-again), in the shell: a
prompt reads the settings files again and hands the core the idle compaction's policy when it
changed; nothing else the session opened with moves (its modes, its pickers)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import anyio
import pytest

from adapter.claude.idle_settings import idle_policy
from adapter.claude.settings_reader import SettingsReader
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
    files = SettingsReader(str(tmp_path), {}).read()
    assert idle_policy(files, {}).disabled_by == "the autoCompactEnabled setting"


def _settings_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.getMessage().startswith("Claude Code settings")
    ]


async def test_a_broken_managed_file_is_warned_about_once_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # docs/decisions.md#settings-warned-once: read at every prompt, said once; again when the
    # file changed and is still broken, and when it broke again after it was fixed.
    from adapter.claude import managed_settings

    managed = tmp_path / "managed"
    managed.mkdir()
    policy = managed / "managed-settings.json"
    policy.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(managed_settings, "managed_folder", lambda: managed)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    caplog.set_level(logging.WARNING)

    async def prompts(session: object, runtime: object, tg: object, count: int) -> None:
        for _ in range(count):
            box = await prompt_in_background(session, runtime, tg)  # type: ignore[arg-type]
            await session.claude.on_message(result_message(), {}, EPOCH)  # type: ignore[attr-defined]
            await answer_of(box)

    async with session_with_fakes() as (session, _, runtime, _), anyio.create_task_group() as tg:
        await prompts(session, runtime, tg, 3)
        said = [f"Claude Code settings {policy} is not JSON; ignoring it"]
        assert _settings_warnings(caplog) == said
        policy.write_text("[1, 2]", encoding="utf-8")  # changed, still broken
        await prompts(session, runtime, tg, 2)
        said.append(f"Claude Code settings {policy} is not a JSON object; ignoring it")
        assert _settings_warnings(caplog) == said
        policy.write_text("{}", encoding="utf-8")  # fixed
        await prompts(session, runtime, tg, 1)
        policy.write_text("[1, 2]", encoding="utf-8")  # broken again, as it was before
        await prompts(session, runtime, tg, 2)
        said.append(said[-1])
        assert _settings_warnings(caplog) == said


def test_the_opening_and_the_pickers_share_the_sessions_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A model change reads the settings again (the effort nobody chose): a broken user file
    # the opening warned about is not said again there.
    from adapter.agent.opening import opening_for
    from adapter.claude.runtime_settings import RuntimeSettings

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    (tmp_path / "settings.json").write_text("{oops", encoding="utf-8")
    caplog.set_level(logging.WARNING)
    start = opening_for(session_id="s", cwd=str(tmp_path), servers=[], settings=RuntimeSettings())
    assert len(_settings_warnings(caplog)) == 1
    start.config.settings_tiers()
    assert start.config.settings_reader is not None
    start.config.settings_reader.read()
    assert len(_settings_warnings(caplog)) == 1
