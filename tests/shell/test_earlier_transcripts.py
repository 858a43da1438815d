"""`session_store.earlier_transcripts`: which transcripts a load replays before a cleared
session's continuation (the whole agent's view is tests/shell/test_plan_clear_load.py)."""

from __future__ import annotations

import uuid
from pathlib import Path

from adapter.claude import session_links, session_store
from adapter.claude.sdk_compat import sanitize_path


def _transcript(config: Path, cwd: Path, claude_id: str) -> Path:
    path = config / "projects" / sanitize_path(str(cwd)) / f"{claude_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n", encoding="utf-8")
    return path


def test_every_context_left_behind_comes_first_oldest_first(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    config, cwd = tmp_path / "config", tmp_path
    acp_id, middle, current = (str(uuid.uuid4()) for _ in range(3))
    assert session_links.relink(acp_id, middle, env)
    assert session_links.relink(acp_id, current, env)
    first = _transcript(config, cwd, acp_id)
    second = _transcript(config, cwd, middle)
    now = _transcript(config, cwd, current)
    assert session_store.locate(acp_id, str(cwd), env).transcript == now
    assert session_store.earlier_transcripts(acp_id, str(cwd), now, env) == [first, second]


def test_no_link_or_a_fallback_to_the_acp_transcript_replays_nothing_twice(
    tmp_path: Path,
) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    config, cwd = tmp_path / "config", tmp_path
    plain, cleared, continuation = (str(uuid.uuid4()) for _ in range(3))
    own = _transcript(config, cwd, plain)
    assert session_store.earlier_transcripts(plain, str(cwd), own, env) == []
    # Linked, but the continuation wrote nothing yet: `locate` falls back to the ACP id's own.
    assert session_links.relink(cleared, continuation, env)
    fallback = _transcript(config, cwd, cleared)
    assert session_store.locate(cleared, str(cwd), env).transcript == fallback
    assert session_store.earlier_transcripts(cleared, str(cwd), fallback, env) == []
