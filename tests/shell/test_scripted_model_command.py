"""The scripted Claude keeps a typed `/model` as Claude Code 2.1.332 keeps it: a meta caveat, its
command markers in place of the prompt's text, then its output as a `system/local_command`
entry; any other prompt as it was sent. (What a load of such a transcript shows:
tests/shell/test_replay_marker_frames.py, tests/real_claude/test_model_typed.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from adapter.scripted_claude.transcript import Transcript


def _entries(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_typed_model_command_is_kept_as_markers_and_output(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    transcript = Transcript(path, session_id="s", cwd=str(tmp_path))
    transcript.append_prompt("u1", "/model opus")
    transcript.append_prompt("u2", [{"type": "text", "text": "/modelling is fun"}])
    transcript.close()
    caveat, command, output, other = _entries(path)
    # As the bundled CLI 2.1.332 keeps it (tests/real_claude/test_model_typed.py loads one).
    assert caveat["isMeta"] is True and caveat["type"] == "user"
    assert str(caveat["message"]["content"]).startswith("<local-command-caveat>")  # type: ignore[index]
    assert command["uuid"] == "u1" and command["message"] == {
        "role": "user",
        "content": "<command-name>/model</command-name>\n            <command-message>model"
        "</command-message>\n            <command-args>opus</command-args>",
    }
    assert command["parentUuid"] == caveat["uuid"]
    assert output["parentUuid"] == "u1"
    assert (output["type"], output["subtype"], output["level"]) == (
        "system",
        "local_command",
        "info",
    )
    assert output["content"] == "<local-command-stdout>Set model to opus</local-command-stdout>"
    assert "message" not in output
    assert other["message"] == {
        "role": "user",
        "content": [{"type": "text", "text": "/modelling is fun"}],
    }
    # Resumed, the fake counts the typed command as the prompt it was (its scripts follow).
    assert Transcript(path, session_id="s", cwd=str(tmp_path)).prompt_count == 2
