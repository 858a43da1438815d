"""Where a skill's SKILL.md is (`adapter.claude.skill_files`), as the reference's
`resolveSkillPath` finds it, and Claude Code's own list of skill files."""

from __future__ import annotations

from pathlib import Path

from adapter.claude.skill_files import listed_skill_files, resolve_skill_path


def _skill(path: Path, front: str | None) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(front if front is not None else "just text\n", encoding="utf-8")
    return str(path)


def test_the_project_comes_before_home_and_claude_before_agents(tmp_path: Path) -> None:
    cwd, home = tmp_path / "repo", tmp_path / "home"
    in_home = _skill(home / ".claude/skills/deploy/SKILL.md", None)
    assert resolve_skill_path("deploy", str(cwd), home=str(home)) == in_home
    agents = _skill(cwd / ".agents/skills/deploy/SKILL.md", "---\nname: deploy\n---\n")
    assert resolve_skill_path("deploy", str(cwd), home=str(home)) == agents
    claude = _skill(cwd / ".claude/skills/deploy/SKILL.md", "---\ndescription: x\n---\n")
    assert resolve_skill_path("deploy", str(cwd), home=str(home)) == claude


def test_a_folder_whose_file_declares_another_name_is_passed_over(tmp_path: Path) -> None:
    cwd, home = tmp_path / "repo", tmp_path / "home"
    _skill(cwd / ".claude/skills/deploy/SKILL.md", "---\nname: other\n---\n")
    renamed = _skill(cwd / ".claude/skills/ship-it/SKILL.md", "---\nname: 'deploy' # why\n---\n")
    assert resolve_skill_path("deploy", str(cwd), home=str(home)) == renamed
    # The scan goes by declared name: `other` is found in the `deploy` folder.
    other = resolve_skill_path("other", str(cwd), home=str(home))
    assert other == str(cwd / ".claude/skills/deploy/SKILL.md")
    # A prompt command of that name is no skill: only its own folder may answer for it.
    _skill(cwd / ".claude/commands/other.md", "text")
    assert resolve_skill_path("other", str(cwd), home=str(home)) is None


def test_scoped_skills_are_found_in_their_folder_and_the_plugins(tmp_path: Path) -> None:
    cwd, home = tmp_path / "repo", tmp_path / "home"
    plugin = _skill(
        home / ".claude/plugins/marketplaces/official/plugins/tools/skills/lint/SKILL.md", None
    )
    assert resolve_skill_path("tools:lint", str(cwd), home=str(home)) == plugin
    scoped = _skill(cwd / "tools/.claude/skills/lint/SKILL.md", None)
    assert resolve_skill_path("tools:lint", str(cwd), home=str(home)) == scoped


def test_names_that_would_leave_their_folder_are_refused(tmp_path: Path) -> None:
    cwd, home = tmp_path / "repo", tmp_path / "home"
    _skill(cwd / ".claude/skills/x/SKILL.md", None)
    _skill(tmp_path / "SKILL.md", None)
    for name in ("..", "a/b", "a\\b", "../x", "/abs:x", "..:x", "", "s:"):
        assert resolve_skill_path(name, str(cwd), home=str(home)) is None, name
    assert resolve_skill_path("x", "", home=str(home)) is None


def test_claude_codes_list_keeps_skills_and_skills_without_a_file() -> None:
    usage = {
        "skills": {
            "skillFrontmatter": [
                {"name": "deploy", "path": "/repo/.claude/skills/deploy/SKILL.md"},
                {"name": "notes", "path": "/repo/.claude/commands/notes.md"},
                {"name": "simplify"},
                {"path": "/no/name/SKILL.md"},
                "junk",
            ]
        }
    }
    assert listed_skill_files(usage) == {
        "deploy": "/repo/.claude/skills/deploy/SKILL.md",
        "simplify": None,
    }
    assert listed_skill_files({"skills": None}) == {}
    assert listed_skill_files(None) == {}
