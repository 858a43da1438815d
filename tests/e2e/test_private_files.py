"""The files the agent writes hold the user's words: private, never through a link, never another
user's. Each test runs the real stdio agent with the scripted Claude."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.support.raw_agent import RawAgent

NOBODY = 65534  # another user, simulated by handing a file to this uid (needs root)


def _serve_one_session(tmp: Path, *args: str) -> RawAgent:
    """Run the agent with `args` through initialize, one session and the end of input."""
    agent = RawAgent(tmp, args=args)
    try:
        agent.initialize()
        agent.new_session()
        agent.close_stdin()
        agent.read_to_end()
        assert agent.wait() == 0
    finally:
        agent.close()
    return agent


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("flag", ["--trace", "--log-file"])
def test_a_new_file_is_private(flag: str, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    old_umask = os.umask(0o022)  # the usual umask, which would make a plain open 0644
    try:
        _serve_one_session(tmp_path, flag, str(target))
    finally:
        os.umask(old_umask)
    assert _mode(target) == 0o600
    assert target.stat().st_size > 0


def test_existing_world_readable_files_are_tightened(tmp_path: Path) -> None:
    trace, log_file = tmp_path / "trace.jsonl", tmp_path / "adapter.log"
    trace.write_text("an old trace\n")
    log_file.write_text("an old log line\n")
    for path in (trace, log_file):
        path.chmod(0o644)
    _serve_one_session(tmp_path, "--trace", str(trace), "--log-file", str(log_file))
    assert _mode(trace) == 0o600 and _mode(log_file) == 0o600
    # The trace is rewritten at each start, the log appended to.
    assert "an old trace" not in trace.read_text()
    assert json.loads(trace.read_text().splitlines()[0])["message"]["method"] == "initialize"
    assert log_file.read_text().startswith("an old log line\n")


@pytest.mark.parametrize(("flag", "what"), [("--trace", "trace"), ("--log-file", "log")])
def test_a_link_is_refused_and_the_agent_still_serves(flag: str, what: str, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("PRECIOUS CONTENT\n")
    link = tmp_path / "link"
    link.symlink_to(victim)
    agent = _serve_one_session(tmp_path, flag, str(link))
    assert victim.read_text() == "PRECIOUS CONTENT\n"
    assert link.is_symlink()
    stderr = agent.stderr_path.read_text()
    refusals = [line for line in stderr.splitlines() if "not writing" in line]
    assert refusals == [
        f"claude-acp: not writing the {what} to {link}: it is a symbolic link; serving without it"
    ]


@pytest.mark.parametrize("flag", ["--trace", "--log-file"])
def test_a_dangling_link_creates_nothing(flag: str, tmp_path: Path) -> None:
    target = tmp_path / "created-by-the-link"
    link = tmp_path / "dangling"
    link.symlink_to(target)
    agent = _serve_one_session(tmp_path, flag, str(link))
    assert not target.exists() and link.is_symlink()
    assert "it is a symbolic link; serving without it" in agent.stderr_path.read_text()


@pytest.mark.parametrize(("flag", "what"), [("--trace", "trace"), ("--log-file", "log")])
def test_another_users_file_is_never_written(flag: str, what: str, tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.txt"
    theirs.write_text("their words\n")
    theirs.chmod(0o666)  # even a file they left writable for everyone
    try:
        os.chown(theirs, NOBODY, NOBODY)
    except PermissionError:
        pytest.skip("handing a file to another uid needs root on this machine")
    agent = _serve_one_session(tmp_path, flag, str(theirs))
    assert theirs.read_text() == "their words\n"
    assert _mode(theirs) == 0o666 and theirs.stat().st_uid == NOBODY
    assert (
        f"claude-acp: not writing the {what} to {theirs}: it belongs to another user; "
        "serving without it" in agent.stderr_path.read_text()
    )


def test_a_hard_link_to_another_file_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("PRECIOUS CONTENT\n")
    alias = tmp_path / "alias"
    os.link(victim, alias)
    agent = _serve_one_session(tmp_path, "--trace", str(alias))
    assert victim.read_text() == "PRECIOUS CONTENT\n"
    assert "it has another name (a hard link); serving without it" in agent.stderr_path.read_text()


def test_session_markers_are_private(tmp_path: Path) -> None:
    sessions = tmp_path / "claude-config" / "claude-acp" / "sessions"
    agent = RawAgent(tmp_path)
    try:
        agent.initialize()
        session_id = agent.new_session()
    finally:
        agent.close()
    marker = sessions / f"{session_id}.json"
    assert _mode(sessions) == 0o700 and _mode(marker) == 0o600
    assert json.loads(marker.read_text())["cwd"] == os.path.realpath(agent.workdir)


def test_a_linked_marker_folder_is_not_written_into(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    markers = tmp_path / "claude-config" / "claude-acp"
    markers.mkdir(parents=True)
    (markers / "sessions").symlink_to(elsewhere)
    agent = RawAgent(tmp_path)
    try:
        agent.initialize()
        session_id = agent.new_session()  # the session itself is not refused
    finally:
        agent.close()
    assert list(elsewhere.iterdir()) == []
    assert f"not recording session {session_id} for a later load: it is a symbolic link" in (
        agent.stderr_path.read_text()
    )
