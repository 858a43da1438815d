"""Which settings problems a session warns about (docs/decisions.md#settings-warned-once): each
once, again only when the file changed and is still broken, or after it was usable and broke
again."""

from __future__ import annotations

from fsm import SettingsProblem, SettingsWarnings

USER = "/home/u/.claude/settings.json"
MANAGED = "/etc/claude-code/managed-settings.json"
READ = (USER, MANAGED)


def _bad(path: str = MANAGED, why: str = "is not JSON", version: str = "v1") -> SettingsProblem:
    return SettingsProblem(path=path, why=why, version=version)


def test_a_problem_is_warned_about_once_however_often_it_is_read() -> None:
    warnings = SettingsWarnings()
    assert warnings.heard(READ, [_bad()]) == (_bad(),)
    for _ in range(3):
        assert warnings.heard(READ, [_bad()]) == ()


def test_a_file_changed_and_still_broken_is_warned_about_again() -> None:
    warnings = SettingsWarnings()
    warnings.heard(READ, [_bad()])
    assert warnings.heard(READ, [_bad(version="v2")]) == (_bad(version="v2"),)
    assert warnings.heard(READ, [_bad(version="v2")]) == ()
    # Broken another way (no longer readable at all): a new problem too.
    unreadable = _bad(why="cannot be read (Permission denied)", version="")
    assert warnings.heard(READ, [unreadable]) == (unreadable,)


def test_a_file_fixed_and_broken_again_is_warned_about_again() -> None:
    warnings = SettingsWarnings()
    warnings.heard(READ, [_bad()])
    assert warnings.heard(READ, []) == ()  # fixed (or gone): nothing to say
    assert warnings.heard(READ, [_bad()]) == (_bad(),)  # the same bytes, broken again


def test_a_read_of_other_files_forgets_nothing() -> None:
    warnings = SettingsWarnings()
    warnings.heard(READ, [_bad()])
    # A read that did not look at the managed file says nothing about it being fixed.
    assert warnings.heard([USER], []) == ()
    assert warnings.heard(READ, [_bad()]) == ()


def test_problems_of_several_files_are_each_their_own() -> None:
    warnings = SettingsWarnings()
    user = _bad(path=USER, why="is not a JSON object")
    assert warnings.heard(READ, [_bad(), user]) == (_bad(), user)
    assert warnings.heard(READ, [user]) == ()  # the managed file was fixed; the user's was said
    assert warnings.heard(READ, [_bad(), user]) == (_bad(),)


def test_each_session_warns_for_itself() -> None:
    first, second = SettingsWarnings(), SettingsWarnings()
    assert first.heard(READ, [_bad()]) == (_bad(),)
    assert second.heard(READ, [_bad()]) == (_bad(),)
