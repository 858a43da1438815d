"""A prompted session's transcript on disk, as Claude Code writes it: one user line and the
assistant's answer, in the folder's project directory under `tmp_path / "claude-config"`."""

from __future__ import annotations

import json
from pathlib import Path


def write_prompted_transcript(tmp_path: Path, session_id: str) -> tuple[Path, Path]:
    """Write a prompted session `session_id` for a new folder `tmp_path / "project"`:
    (that folder, the transcript)."""
    from adapter.claude.sdk_compat import sanitize_path

    folder = tmp_path / "project"
    folder.mkdir()
    transcripts = tmp_path / "claude-config" / "projects" / sanitize_path(str(folder))
    transcripts.mkdir(parents=True)
    entries = [
        {
            "type": "user",
            "uuid": "5a1d6c2e-8f0b-4d3a-9c7e-2b4f6a8d0c1e",
            "parentUuid": None,
            "sessionId": session_id,
            "cwd": str(folder),
            "timestamp": "2026-12-05T05:00:00.000Z",
            "message": {"role": "user", "content": "hello"},
        },
        {
            "type": "assistant",
            "uuid": "7c3e9a1b-2d4f-4e6a-8b0c-1d3f5a7c9e2b",
            "parentUuid": "5a1d6c2e-8f0b-4d3a-9c7e-2b4f6a8d0c1e",
            "sessionId": session_id,
            "cwd": str(folder),
            "timestamp": "2026-12-05T05:00:01.000Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "text", "text": "hi"}],
            },
        },
    ]
    transcript = transcripts / f"{session_id}.jsonl"
    transcript.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return folder, transcript
