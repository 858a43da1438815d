"""What Claude Code keeps of a session's subagents: each one's transcript
`<project>/<session>/subagents/agent-<id>.jsonl`, beside its `agent-<id>.meta.json` that names
the Agent call that launched it (`toolUseId`) and its type, description and name. A load's
replay reads them (`adapter.session.load_replay`), and so does a live session whose Claude
resumes an agent that ran before it was loaded (`fsm.NativeSubagents.restore`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from adapter.claude.session_store import find_transcript
from fsm import fork_directive, subagent_launches

__all__ = ["SubagentFile", "subagent_files", "subagents_of_session", "with_launchers"]

_META_LIMIT = 64 * 1024


@dataclass(frozen=True, slots=True)
class SubagentFile:
    agent_id: str
    transcript: Path
    name: str | None = None
    kind: str | None = None  # `agentType`
    description: str | None = None
    # The agent whose transcript holds the launch call; None: the session's own (or unknown).
    launcher: str | None = None


def _text(meta: Mapping[str, object], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) else None


def subagent_files(transcript: Path) -> dict[str, SubagentFile]:
    """The subagents of the session whose transcript is `transcript`, by the Agent call that
    launched each. An unreadable or damaged sidecar leaves its subagent out."""
    folder = transcript.parent / transcript.stem / "subagents"
    found: dict[str, SubagentFile] = {}
    try:
        sidecars = sorted(folder.glob("agent-*.meta.json"))
    except OSError:
        return found
    for sidecar in sidecars:
        try:
            with sidecar.open("rb") as file:
                meta = json.loads(file.read(_META_LIMIT))
        except (OSError, ValueError):
            continue
        launch = meta.get("toolUseId") if isinstance(meta, dict) else None
        if not isinstance(launch, str):
            continue
        agent_id = sidecar.name[len("agent-") : -len(".meta.json")]
        found[launch] = SubagentFile(
            agent_id=agent_id,
            transcript=sidecar.with_name(f"agent-{agent_id}.jsonl"),
            name=_text(meta, "name"),
            kind=_text(meta, "agentType"),
            description=_text(meta, "description"),
        )
    return found


def subagents_of_session(
    session_id: str, cwd: str, env: Mapping[str, str]
) -> dict[str, SubagentFile]:
    """`subagent_files` of the session's own transcript; none when it has none. Blocking."""
    transcript = find_transcript(session_id=session_id, cwd=cwd, env=env)
    return with_launchers(subagent_files(transcript)) if transcript is not None else {}


def _launches_in(transcript: Path, owner: str) -> set[str]:
    """The Agent and Task calls the agent `owner` made in its transcript (read line by line,
    whole: the SDK's readers give only the chain after the last compaction). What a fork
    child inherited before its directive message is its parent's, not its own."""
    found: set[str] = set()
    try:
        with transcript.open("rb") as file:
            for line in file:
                fork = b"<fork-boilerplate>" in line
                if b'"tool_use"' not in line and not fork:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                if fork and fork_directive([record]) is not None:
                    found.clear()
                    continue
                agent = record.get("agentId")
                if record.get("type") != "assistant" or agent not in (None, owner):
                    continue
                message = record.get("message")
                if isinstance(message, dict):
                    found.update(subagent_launches(message.get("content")))
    except OSError:
        pass
    return found


def with_launchers(files: dict[str, SubagentFile]) -> dict[str, SubagentFile]:
    """`files` with the agent that made each launch call, when an agent's transcript holds
    it (`subagentLineage`: docs/reference-adapter.md#subagent-launches). Blocking."""
    out = dict(files)
    for found in files.values():
        for launch in _launches_in(found.transcript, found.agent_id):
            if launch in out and out[launch].agent_id != found.agent_id:
                out[launch] = replace(out[launch], launcher=found.agent_id)
    return out
