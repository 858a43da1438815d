"""JetBrains AIR's skill paths: which commands carry `kind`/`skillPath`, which are looked up on
disk, and the `Skill` tool call's `skill` (the reference's `getAvailableSlashCommands` and
`toolUseMeta`)."""

from __future__ import annotations

from fsm import air_client, skill_command_meta, skill_tool_meta

AIR = air_client({"jetbrains": {"air": {}}})  # any AIR client: no capability needed
PLAIN = air_client(None)
PATH = "/repo/.claude/skills/deploy/SKILL.md"


def test_an_air_skill_command_names_its_file_or_only_its_kind() -> None:
    assert AIR.command_meta("deploy", listed=True, path=PATH) == {
        "jetbrains": {"air": {"version": 1, "kind": "skill", "skillPath": PATH}}
    }
    assert AIR.command_meta("simplify", listed=True, path=None) == {
        "jetbrains": {"air": {"version": 1, "kind": "skill"}}
    }
    assert AIR.command_meta("review", listed=False, path=None) is None
    # An MCP prompt is never a skill, whatever is found.
    assert AIR.command_meta("srv:p (MCP)", listed=True, path=PATH) is None
    assert skill_command_meta(listed=False, path=None) is None


def test_a_client_that_is_not_air_gets_no_skill_meta_and_nothing_is_looked_up() -> None:
    assert PLAIN.command_meta("deploy", listed=True, path=PATH) is None
    assert not PLAIN.probes_skill("deploy", builtin=False, listed_path=None)
    assert not PLAIN.skill_paths and AIR.skill_paths


def test_only_unlisted_non_builtin_commands_are_looked_up_on_disk() -> None:
    assert AIR.probes_skill("deploy", builtin=False, listed_path=None)
    assert not AIR.probes_skill("deploy", builtin=False, listed_path=PATH)
    assert not AIR.probes_skill("compact", builtin=True, listed_path=None)
    assert not AIR.probes_skill("srv:p (MCP)", builtin=False, listed_path=None)


def test_the_skill_tool_call_keeps_its_other_meta() -> None:
    meta = {"claudeCode": {"toolName": "Skill"}}
    assert skill_tool_meta(meta, "deploy", PATH) == {
        "claudeCode": {"toolName": "Skill"},
        "jetbrains": {"air": {"version": 1, "skill": {"name": "deploy", "path": PATH}}},
    }
    assert skill_tool_meta(None, "simplify", None) == {
        "jetbrains": {"air": {"version": 1, "skill": {"name": "simplify"}}}
    }
