"""The model picker as the client sees it and the models Claude was started with: shared by the
in-process and end-to-end tests of a model typed in the chat (test_model_following.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.harness import Adapter


def log_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"), **extra}


def claude_entries(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def picked_models(adapter: Adapter) -> list[str]:
    """The model each `config_option_update` shows, in order."""
    models = []
    for update in adapter.updates("config_option_update"):
        for option in update["configOptions"]:
            if option["id"] == "model":
                models.append(option["currentValue"])
    return models
