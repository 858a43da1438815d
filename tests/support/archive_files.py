"""What a deleted or archived session leaves on disk: shared by the in-process and end-to-end tests
of AIR's session delete (test_air_session_delete.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.harness import Adapter


def transcript(adapter: Adapter, session_id: str) -> Path:
    (found,) = adapter.transcripts_of(session_id)
    return found


def last_records(path: Path, count: int = 2) -> list[dict[str, Any]]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [json.loads(line) for line in lines[-count:]]


def archived_records(session_id: str, title: str) -> list[dict[str, Any]]:
    stored = f"[archived] {title}"
    return [
        {"type": "custom-title", "customTitle": stored, "sessionId": session_id},
        {"type": "agent-name", "agentName": stored, "sessionId": session_id},
    ]
