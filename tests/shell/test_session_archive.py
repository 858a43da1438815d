"""`adapter.claude.session_archive` on transcripts written by hand: which name decides, a torn
last line, a sidecar, several copies, idempotence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapter.claude.session_archive import archive, archived_name, copies

SID = "0b6c5e2a-0000-4000-8000-000000000001"


@pytest.fixture(autouse=True)
def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK's own title lookup reads the process environment, as the adapter's listing does.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))


def _write(config: Path, folder: str, lines: list[Any], tail: str = "") -> Path:
    path = config / "projects" / folder / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(line) + "\n" for line in lines)
    path.write_text(body + tail, encoding="utf-8")
    return path


PROMPT: dict[str, Any] = {
    "type": "user",
    "sessionId": SID,
    "cwd": "/repo",
    "message": {"role": "user", "content": "Fix the flaky test"},
}


def _last(path: Path, count: int = 2) -> list[dict[str, object]]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [json.loads(line) for line in lines[-count:]]


def test_a_prompt_titled_session_is_archived_once(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    path = _write(tmp_path, "-repo", [PROMPT])
    assert archived_name(path, SID) == ("Fix the flaky test", False)
    assert archive(SID, env) is True
    size = path.stat().st_size
    assert archive(SID, env) is True and path.stat().st_size == size
    assert archived_name(path, SID) == ("[archived] Fix the flaky test", True)
    assert [r.get("type") for r in _last(path)] == ["custom-title", "agent-name"]


def test_the_last_agent_name_decides_over_the_custom_title(tmp_path: Path) -> None:
    archived = {"type": "custom-title", "customTitle": "[archived] Old", "sessionId": SID}
    renamed = {"type": "agent-name", "agentName": "New", "sessionId": SID}
    path = _write(tmp_path, "-repo", [PROMPT, archived, renamed])
    assert archived_name(path, SID) == ("New", False)


def test_a_first_prompt_with_the_prefix_does_not_archive(tmp_path: Path) -> None:
    prompt = {**PROMPT, "message": {"role": "user", "content": "[archived] notes please"}}
    path = _write(tmp_path, "-repo", [prompt])
    assert archived_name(path, SID) == ("notes please", False)


def test_a_torn_last_line_is_closed_and_every_copy_and_sidecar_follow(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    torn = _write(tmp_path, "-repo", [PROMPT], tail='{"type":"assist')
    other = _write(tmp_path, "-elsewhere", [PROMPT])
    sidecar = other.parent / SID / "custom-title.json"
    sidecar.parent.mkdir()
    sidecar.write_text(json.dumps({"customTitle": "Named"}), encoding="utf-8")
    empty = tmp_path / "projects" / "-empty" / f"{SID}.jsonl"
    empty.parent.mkdir()
    empty.touch()
    assert sorted(copies(SID, env)) == sorted([torn, other])
    assert archive(SID, env)
    assert '{"type":"assist\n' in torn.read_text(encoding="utf-8")
    assert _last(torn)[1]["agentName"] == "[archived] Fix the flaky test"
    assert _last(other)[1]["agentName"] == "[archived] Named"
    assert json.loads(sidecar.read_text(encoding="utf-8")) == {"customTitle": "[archived] Named"}
    assert empty.stat().st_size == 0


def test_unknown_and_non_uuid_ids_find_nothing(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    _write(tmp_path, "-repo", [PROMPT])
    assert archive("00000000-0000-4000-8000-000000000000", env) is False
    assert archive("*", env) is False and copies("../x", env) == []
