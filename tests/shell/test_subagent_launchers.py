"""Which agent made each launch call, read from the subagents' own transcripts
(`adapter.claude.subagent_files.with_launchers`), so a restored agent can go under the agent
that launched it (`fsm.NativeSubagents.restore`): the session's own launches have none, an
agent's have it, and what a fork child inherited before its directive is not its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adapter.claude.subagent_files import subagent_files, with_launchers


def _launch(call: str, agent: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use", "id": call, "name": "Agent", "input": {}}]},
    }
    if agent is not None:
        record["agentId"] = agent
    return record


def _agent(folder: Path, agent: str, launch: str, records: list[dict[str, Any]]) -> None:
    (folder / f"agent-{agent}.meta.json").write_text(json.dumps({"toolUseId": launch}))
    lines = [json.dumps(record) for record in records] + ["not json"]
    (folder / f"agent-{agent}.jsonl").write_text("\n".join(lines) + "\n")


def test_each_launch_names_the_agent_whose_transcript_made_it(tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(json.dumps(_launch("toolu_lead")) + "\n")
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    directive = {
        "type": "user",
        "message": {
            "content": [
                {
                    "type": "text",
                    "text": "<fork-boilerplate>…</fork-boilerplate>\nYour directive: go",
                }
            ]
        },
    }
    _agent(folder, "lead", "toolu_lead", [_launch("toolu_helper", "lead")])
    _agent(folder, "helper", "toolu_helper", [])
    # A fork child: a copy of the launching message (the session's call) first, then its own.
    _agent(folder, "fork", "toolu_fork", [_launch("toolu_lead"), directive, _launch("toolu_x")])
    _agent(folder, "x", "toolu_x", [])
    found = with_launchers(subagent_files(transcript))
    assert {launch: f.launcher for launch, f in found.items()} == {
        "toolu_lead": None,
        "toolu_helper": "lead",
        "toolu_fork": None,
        "toolu_x": "fork",
    }
