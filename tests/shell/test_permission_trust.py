"""Whose settings may loosen permissions (`adapter/claude/permission_settings.py`,
`adapter/claude/managed_settings.py`, the mode pickers that start from them): a repository's
committed settings never start a session that asks less than Manual, the user's own settings
do, the two opt-outs take bypass away, the managed policy's environment reaches the adapter's
own, and bad files give a clear log line and Manual. The last tests go through the whole agent
in process (`agent_in_process`, the scripted Claude logging the argv and control requests that
reached it); the user's own bypass default reaching Claude Code's process is end to end
(tests/e2e/test_permission_trust.py)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import RequestError

from adapter.agent.opening import opening_for
from adapter.claude import client_options
from adapter.claude.managed_settings import apply_managed_env
from adapter.claude.permission_settings import PermissionSettings, permission_settings
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.claude.settings_reader import SettingsReader
from adapter.controls.pickers import SessionConfig
from tests.support.shell_harness import WAIT, InProcessAgent, agent_in_process

ESCALATING = ("bypassPermissions", "acceptEdits", "auto")
# Where bypass is offered at all: not as root outside a sandbox (Claude Code refuses it there).
SANDBOXED = {"IS_SANDBOX": "1"}


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(the session's folder, the user's config folder, the launch environment)."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    config = tmp_path / "config"
    config.mkdir()
    return project, config, {"CLAUDE_CONFIG_DIR": str(config)}


def _write(path: Path, settings: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = settings if isinstance(settings, str) else json.dumps(settings)
    path.write_text(text, encoding="utf-8")


def _mode(mode: Any) -> dict[str, Any]:
    return {"permissions": {"defaultMode": mode}}


def _policy(project: Path, env: dict[str, str], managed: Path | None = None) -> PermissionSettings:
    # As a session opens: its reader says in the log what it could not use.
    reader = SettingsReader(str(project), env, managed or project / "no-managed")
    return permission_settings(reader.read())


def _config(policy: PermissionSettings, *, bypass_offered: bool = True) -> SessionConfig:
    return SessionConfig.initial(
        SANDBOXED,
        policy.default_mode,
        auto_allowed=not policy.auto_disabled,
        bypass_offered=not policy.bypass_disabled and bypass_offered,
    )


@pytest.mark.parametrize("mode", ESCALATING)
def test_an_escalating_mode_from_the_repository_starts_in_manual(
    folders: tuple[Path, Path, dict[str, str]], mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    project, _, env = folders
    _write(project / ".claude" / "settings.json", _mode(mode))
    with caplog.at_level(logging.INFO, logger="adapter.claude.permission_settings"):
        policy = _policy(project, env)
        _policy(project, env)  # a second session in the same folder: said once
    assert policy.default_mode == "default"
    assert _config(policy).mode == "default"
    said = [r for r in caplog.records if mode in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.INFO
    assert "settings.json" in said[0].getMessage()


@pytest.mark.parametrize("mode", ESCALATING)
def test_the_users_own_escalating_mode_is_honoured(
    folders: tuple[Path, Path, dict[str, str]], mode: str
) -> None:
    project, config, env = folders
    _write(config / "settings.json", _mode(mode))
    policy = _policy(project, env)
    assert policy.default_mode == mode
    assert _config(policy).mode == mode


@pytest.mark.parametrize(
    ("mode", "honoured"), [("acceptEdits", True), ("auto", False), ("bypassPermissions", False)]
)
def test_the_local_file_may_accept_edits_but_not_grant_auto_or_bypass(
    folders: tuple[Path, Path, dict[str, str]], mode: str, honoured: bool
) -> None:
    # As the SDK's filterEscalatingDefaultMode and Claude Code's own trust policy decide.
    project, _, env = folders
    _write(project / ".claude" / "settings.local.json", _mode(mode))
    assert _policy(project, env).default_mode == (mode if honoured else "default")


def test_a_repository_mode_over_the_users_own_still_starts_in_manual(
    folders: tuple[Path, Path, dict[str, str]],
) -> None:
    # The project outranks the user's file; its ignored escalation must not fall through to
    # anything more permissive than Manual either.
    project, config, env = folders
    _write(config / "settings.json", _mode("acceptEdits"))
    _write(project / ".claude" / "settings.json", _mode("bypassPermissions"))
    assert _policy(project, env).default_mode == "default"


@pytest.mark.parametrize("mode", ["plan", "default", "manual"])
def test_a_repository_may_ask_for_more_caution(
    folders: tuple[Path, Path, dict[str, str]], mode: str
) -> None:
    project, config, env = folders
    _write(config / "settings.json", _mode("acceptEdits"))
    _write(project / ".claude" / "settings.json", _mode(mode))
    assert _policy(project, env).default_mode == {"manual": "default"}.get(mode, mode)


def test_the_managed_tier_may_set_any_mode(
    folders: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    project, _, env = folders
    _write(project / ".claude" / "settings.json", _mode("plan"))
    _write(tmp_path / "managed" / "managed-settings.json", _mode("acceptEdits"))
    assert _policy(project, env, tmp_path / "managed").default_mode == "acceptEdits"


@pytest.mark.parametrize("bad", [5, None, ["acceptEdits"], {"mode": "auto"}, "yolo", ""])
def test_a_default_mode_of_the_wrong_type_or_unknown_is_manual_and_said(
    folders: tuple[Path, Path, dict[str, str]], bad: Any, caplog: pytest.LogCaptureFixture
) -> None:
    project, config, env = folders
    _write(config / "settings.json", _mode(bad))
    with caplog.at_level(logging.WARNING, logger="adapter.claude.permission_settings"):
        policy = _policy(project, env)
    assert policy.default_mode == "default"
    assert _config(policy).mode == "default"
    assert any("not a permission mode" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '"acceptEdits"', "\xff"])
def test_a_settings_file_that_is_not_a_json_object_is_said_and_starts_in_manual(
    folders: tuple[Path, Path, dict[str, str]], text: str, caplog: pytest.LogCaptureFixture
) -> None:
    project, _, env = folders
    path = project / ".claude" / "settings.json"
    if text == "\xff":
        path.write_bytes(b"\xff\xfe{")
    else:
        _write(path, text)
    with caplog.at_level(logging.WARNING, logger="adapter.claude.settings_files"):
        policy = _policy(project, env)
    # Not the `auto` a session with no settings would start in: the file may have named one.
    assert policy.default_mode == "default"
    assert any(str(path) in r.getMessage() for r in caplog.records)


def test_a_broken_file_loses_nothing_the_other_files_say(
    folders: tuple[Path, Path, dict[str, str]],
) -> None:
    project, config, env = folders
    _write(config / "settings.json", _mode("acceptEdits"))
    _write(project / ".claude" / "settings.json", "{broken")
    _write(project / ".claude" / "settings.local.json", {"permissions": {"allow": ["Read"]}})
    assert _policy(project, env).default_mode == "acceptEdits"
    # ... and the files are left as they were.
    assert (project / ".claude" / "settings.json").read_text("utf-8") == "{broken"


@pytest.mark.parametrize("tier", ["user", "project", "local", "managed"])
def test_disable_bypass_in_any_tier_takes_bypass_away(
    folders: tuple[Path, Path, dict[str, str]], tmp_path: Path, tier: str
) -> None:
    project, config, env = folders
    where = {
        "user": config / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
        "managed": tmp_path / "managed" / "managed-settings.json",
    }[tier]
    _write(where, {"permissions": {"disableBypassPermissionsMode": "disable"}})
    # Even the user's own bypass default gives way: Manual, and bypass is not on the list.
    _write(
        config / "settings.json",
        {
            "permissions": {
                "defaultMode": "bypassPermissions",
                **({"disableBypassPermissionsMode": "disable"} if tier == "user" else {}),
            }
        },
    )
    policy = _policy(project, env, tmp_path / "managed")
    config_ = _config(policy)
    assert policy.bypass_disabled
    assert "bypassPermissions" not in config_.modes
    assert config_.mode == "default"
    assert "bypassPermissions" not in [m.id for m in config_.mode_state().available_modes]
    with pytest.raises(RequestError):
        config_.check_mode("bypassPermissions")
    with pytest.raises(RequestError):
        config_.check_option("mode", "bypassPermissions")


def test_without_an_opt_out_bypass_is_offered(folders: tuple[Path, Path, dict[str, str]]) -> None:
    project, _, env = folders
    policy = _policy(project, env)
    assert not policy.bypass_disabled
    assert "bypassPermissions" in _config(policy).modes


def test_the_hosts_opt_out_takes_bypass_away(folders: tuple[Path, Path, dict[str, str]]) -> None:
    project, _, env = folders
    options = client_options.parse({"options": {"allowDangerouslySkipPermissions": False}})
    assert options.allow_bypass is False
    start = opening_for(
        session_id="s",
        cwd=str(project),
        servers=[],
        settings=RuntimeSettings(env={**env, **SANDBOXED}),
        client_options=options,
    )
    assert "bypassPermissions" not in start.config.modes
    kept = opening_for(
        session_id="s",
        cwd=str(project),
        servers=[],
        settings=RuntimeSettings(env={**env, **SANDBOXED}),
        client_options=client_options.parse({"options": {"allowDangerouslySkipPermissions": True}}),
    )
    assert "bypassPermissions" in kept.config.modes


def test_the_hosts_opt_out_must_be_a_boolean() -> None:
    with pytest.raises(RequestError) as refused:
        client_options.parse({"options": {"allowDangerouslySkipPermissions": "no"}})
    assert "allowDangerouslySkipPermissions" in json.dumps(refused.value.data)


def test_the_plan_exit_offers_no_bypass_once_it_is_taken_away() -> None:
    from adapter.controls.plan_exit import plan_choices

    config = _config(PermissionSettings(bypass_disabled=True))
    choices = plan_choices(config.modes, plan="Do it", before_plan="bypassPermissions")
    assert "bypassPermissions" not in [c.mode for c in choices]
    offered = plan_choices(_config(PermissionSettings()).modes, plan="Do it")
    assert "bypassPermissions" in [c.mode for c in offered]  # the check above can fail


@pytest.mark.parametrize("before_plan", [None, "bypassPermissions"])
@pytest.mark.parametrize("bypass_disabled", [False, True])
def test_a_client_keyed_by_kind_gets_one_plan_exit_option_of_each_kind(
    before_plan: str | None, bypass_disabled: bool
) -> None:
    # docs/decisions.md#plan-exit-option-kinds: manual edits, the preferred mode keeping the
    # context, keep planning; the reference's full list has a kind twice.
    from adapter.controls.plan_exit import plan_choices

    modes = _config(PermissionSettings(bypass_disabled=bypass_disabled)).modes
    full = plan_choices(modes, plan="Do it", percent_used=42, before_plan=before_plan)
    assert [c.kind for c in full].count("allow_always") >= 2  # the check below can fail
    one = plan_choices(
        modes, plan="Do it", percent_used=42, before_plan=before_plan, one_per_kind=True
    )
    assert [c.kind for c in one] == ["allow_once", "allow_always", "reject_once"]
    preferred = next(c for c in full if c.kind == "allow_always" and not c.clears_context)
    assert [c.option_id for c in one] == ["exit-plan-default", preferred.option_id, "reject"]
    assert not any(c.clears_context for c in one)


def test_the_managed_environment_reaches_the_adapters_own(tmp_path: Path) -> None:
    managed = tmp_path / "managed"
    _write(managed / "managed-settings.json", {"env": {"POLICY_A": "1", "SHARED": "base"}})
    _write(managed / "managed-settings.d" / "20-more.json", {"env": {"SHARED": "drop-in"}})
    environ = {"SHARED": "user", "OTHER": "kept"}
    applied = apply_managed_env(environ, managed)
    assert environ == {"SHARED": "drop-in", "OTHER": "kept", "POLICY_A": "1"}
    assert set(applied) == {"POLICY_A", "SHARED"}


@pytest.mark.parametrize("text", ["{not json", '{"env": ["A=1"]}', '{"env": {"A": 1}}'])
def test_a_bad_managed_file_is_said_and_changes_nothing(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    _write(tmp_path / "managed-settings.json", text)
    environ = {"KEPT": "1"}
    with caplog.at_level(logging.WARNING, logger="adapter.claude"):
        assert apply_managed_env(environ, tmp_path) == ()
    assert environ == {"KEPT": "1"}
    assert any("managed-settings.json" in r.getMessage() for r in caplog.records)


def test_an_unreadable_managed_file_takes_bypass_away_and_is_said(
    folders: tuple[Path, Path, dict[str, str]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A path that cannot be read as a file, whoever runs the test (root reads any file).
    project, config, env = folders
    managed = tmp_path / "managed"
    (managed / "managed-settings.json").mkdir(parents=True)
    _write(config / "settings.json", _mode("acceptEdits"))
    environ = {"KEPT": "1"}
    with caplog.at_level(logging.WARNING, logger="adapter.claude"):
        policy = _policy(project, env, managed)
        assert apply_managed_env(environ, managed) == ()
    assert policy.bypass_disabled and policy.default_mode == "acceptEdits"
    assert environ == {"KEPT": "1"}
    assert any("cannot be read" in r.getMessage() for r in caplog.records)


def test_a_managed_tier_that_is_not_json_takes_bypass_away(
    folders: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    # What an unreadable policy forbade is not known: bypass is treated as forbidden. The
    # user's own mode still counts (nothing lost).
    project, config, env = folders
    _write(tmp_path / "managed" / "managed-settings.json", "{not json")
    _write(config / "settings.json", _mode("acceptEdits"))
    policy = _policy(project, env, tmp_path / "managed")
    assert policy.bypass_disabled and policy.default_mode == "acceptEdits"


# --- through the whole agent, in process ----------------------------------------------------


def _claude_log(tmp_path: Path) -> list[dict[str, Any]]:
    """What reached the scripted Claude (`agent_in_process` has it log beside the test)."""
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def _permission_modes(tmp_path: Path) -> list[str | None]:
    """The `--permission-mode` of every Claude Code started, in order."""
    found = []
    for entry in _claude_log(tmp_path):
        if entry["kind"] == "argv":
            argv = entry["argv"]
            index = argv.index("--permission-mode") if "--permission-mode" in argv else -1
            found.append(argv[index + 1] if index >= 0 else None)
    return found


def _switches(tmp_path: Path) -> list[str]:
    return [
        e["request"]["mode"]
        for e in _claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == "set_permission_mode"
    ]


def _folder(tmp_path: Path, name: str, settings: dict[str, Any] | None) -> Path:
    folder = tmp_path / name
    (folder / ".claude").mkdir(parents=True)
    if settings is not None:
        _write(folder / ".claude" / "settings.json", settings)
    return folder


async def _new(
    adapter: InProcessAgent, cwd: Path, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"cwd": str(cwd), "mcpServers": []}
    if meta is not None:
        params["_meta"] = meta
    answer: dict[str, Any] = await adapter.request("session/new", params)
    return answer


def _offered(answer: dict[str, Any]) -> list[str]:
    return [m["id"] for m in answer["modes"]["availableModes"]]


@pytest.mark.asyncio
async def test_a_repositorys_escalating_mode_starts_the_session_and_claude_in_manual(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "success", env=SANDBOXED) as adapter:
        answers = []
        for mode in ESCALATING:
            folder = _folder(tmp_path, f"repo-{mode}", _mode(mode))
            answers.append(await _new(adapter, folder))
        said = adapter.stderr()
    assert [a["modes"]["currentModeId"] for a in answers] == ["default"] * 3
    assert all("bypassPermissions" in _offered(a) for a in answers)  # still the user's choice
    # Claude Code was told Manual: a host flag would have skipped its own trust policy.
    assert _permission_modes(tmp_path) == ["default"] * 3
    for mode in ESCALATING:
        assert said.count(f"ignoring permissions.defaultMode {mode!r}") == 1


@pytest.mark.asyncio
async def test_both_opt_outs_take_bypass_away_and_refuse_a_later_switch(tmp_path: Path) -> None:
    disabled = {"permissions": {"disableBypassPermissionsMode": "disable"}}
    host_opt_out = {"claudeCode": {"options": {"allowDangerouslySkipPermissions": False}}}
    async with agent_in_process(tmp_path, "success", env=SANDBOXED) as adapter:
        by_settings = await _new(adapter, _folder(tmp_path, "managed-repo", disabled))
        by_host = await _new(adapter, _folder(tmp_path, "plain", None), host_opt_out)
        refusals = []
        for answer in (by_settings, by_host):
            session = answer["sessionId"]
            for call in (
                adapter.conn.set_session_mode(session_id=session, mode_id="bypassPermissions"),
                adapter.conn.set_config_option(
                    config_id="mode", session_id=session, value="bypassPermissions"
                ),
            ):
                with pytest.raises(acp.RequestError) as refused:
                    await asyncio.wait_for(call, WAIT)
                refusals.append(refused.value.code)
        # A session without an opt-out still offers it: the assertions above can fail.
        plain = await _new(adapter, _folder(tmp_path, "plain-too", None))
    assert "bypassPermissions" not in _offered(by_settings)
    assert "bypassPermissions" not in _offered(by_host)
    for answer in (by_settings, by_host):
        [mode_option] = [o for o in answer["configOptions"] if o["id"] == "mode"]
        assert "bypassPermissions" not in [o["value"] for o in mode_option["options"]]
    assert refusals == [-32602] * 4
    assert "bypassPermissions" in _offered(plain)
    assert "bypassPermissions" not in _switches(tmp_path)
