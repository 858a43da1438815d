"""`session/list` after deleting: does a folder that had sessions deleted list
as fast as one that never had? The `listing` phase of `python -m tests.bench`, and on its own
`python -m tests.bench.listing [--sessions N] [--lists L]` (prints its section).

One agent process (ours; the reference is not run here) makes two project folders: `kept`,
with N sessions, and `deleted`, with 2N sessions of which N are then deleted
(`session/delete`), so both list N. Each session is prompted once (Claude Code writes its
transcript) and closed (its scripted Claude stops). Then `session/list` of each folder is
timed L times, alternating, request written to response read. A deleted session that left
anything the listing reads (a marker, a stray transcript) would show as a slower `deleted`
listing or a count above N.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.agents import ROOT, AgentSpec, our_agent, write_scenario_launcher
from tests.bench.procfs import load_average
from tests.bench.rpc import Agent, spawn
from tests.bench.stats import summarize

__all__ = ["ListingSample", "listing_section", "run_listing"]

_PROMPT = [{"type": "text", "text": "What is in this folder?"}]


@dataclass(slots=True)
class ListingSample:
    agent: str
    load: float
    sessions: int  # what each folder should list
    kept_s: list[float] = field(default_factory=list)  # `session/list` of the `kept` folder
    deleted_s: list[float] = field(default_factory=list)  # of the `deleted` folder
    delete_s: list[float] = field(default_factory=list)  # each `session/delete`
    listed: tuple[int, int] = (0, 0)  # what the two listings held (kept, deleted)
    load_end: float = 0.0
    errors: list[str] = field(default_factory=list)


async def _sessions(agent: Agent, cwd: Path, count: int) -> list[str]:
    """`count` sessions in `cwd`, each prompted once, then closed."""
    cwd.mkdir(parents=True, exist_ok=True)
    made = []
    for _ in range(count):
        new = await agent.request("session/new", {"cwd": str(cwd), "mcpServers": []}, timeout=60)
        session_id = str(new.result["sessionId"])
        await agent.request(
            "session/prompt", {"sessionId": session_id, "prompt": _PROMPT}, timeout=60
        )
        await agent.request("session/close", {"sessionId": session_id}, timeout=60)
        made.append(session_id)
    return made


async def _list(agent: Agent, cwd: Path) -> tuple[float, int]:
    reply = await agent.request("session/list", {"cwd": str(cwd)}, timeout=60)
    return reply.seconds, len(reply.result.get("sessions") or [])


async def run_listing(
    spec: AgentSpec, launcher: Path, *, sessions: int = 30, lists: int = 20
) -> ListingSample:
    sample = ListingSample(agent=spec.name, load=load_average(), sessions=sessions)
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-listing-{spec.name}-") as dir_:
        tmp = Path(dir_)
        (tmp / "config").mkdir()
        env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(tmp / "config")}
        agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr.log")
        try:
            await agent.request("initialize", {"protocolVersion": 1}, timeout=60)
            kept, deleted = tmp / "kept" / "success", tmp / "deleted" / "success"
            await _sessions(agent, kept, sessions)
            doomed = (await _sessions(agent, deleted, 2 * sessions))[:sessions]
            for session_id in doomed:
                reply = await agent.request("session/delete", {"sessionId": session_id})
                sample.delete_s.append(reply.seconds)
            await _list(agent, kept)  # warm-up: page cache, first imports
            await _list(agent, deleted)
            for _ in range(lists):
                seconds, kept_count = await _list(agent, kept)
                sample.kept_s.append(seconds)
                seconds, deleted_count = await _list(agent, deleted)
                sample.deleted_s.append(seconds)
                sample.listed = (kept_count, deleted_count)
        except Exception as exc:  # a failed run is reported, never fatal to the benchmark
            sample.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            await agent.close()
    sample.load_end = load_average()
    return sample


def listing_section(samples: list[ListingSample]) -> list[str]:
    if not samples:
        return []
    lines = [
        "## `session/list` after deleting",
        "",
        "One agent process; folder `kept` has N sessions, folder `deleted` had 2N of which N "
        "were deleted, so both list N (each session prompted once, then closed). "
        "`session/list` of each, alternating; median [IQR] in ms, request written to "
        "response read (`tests/bench/listing.py`).",
        "",
        "| agent | N | list `kept` (ms) | list `deleted` (ms) | deleted/kept | listed | "
        "`session/delete` (ms) | load average |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |",
    ]
    for s in samples:
        if s.errors:
            lines.append(f"| {s.agent} | {s.sessions} | failed: {' '.join(s.errors)[:160]} |")
            continue
        kept, deleted = summarize(s.kept_s), summarize(s.deleted_s)
        ratio = deleted.median / kept.median if kept.median else float("nan")
        lines.append(
            f"| {s.agent} | {s.sessions} | {kept.fmt(1000, 1)} | {deleted.fmt(1000, 1)} | "
            f"{ratio:.2f} | {s.listed[0]} / {s.listed[1]} | "
            f"{summarize(s.delete_s).fmt(1000, 1)} | {s.load:.1f} -> {s.load_end:.1f} |"
        )
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.listing", description=__doc__)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--lists", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-launcher-") as scratch:
        launcher = write_scenario_launcher(Path(scratch))
        sample = asyncio.run(
            run_listing(our_agent(), launcher, sessions=args.sessions, lists=args.lists)
        )
    print("\n".join(listing_section([sample])))
    return 1 if sample.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
