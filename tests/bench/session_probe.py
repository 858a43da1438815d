"""`python -m tests.bench.session_probe`: the agent's instructions from a session request to its
answer, counted by valgrind, so the figure does not stretch with the machine's load as wall
times do.

A first agent process (run natively) creates a session and prompts it once, so that Claude has
a transcript. Then fresh agent processes run under `valgrind --tool=callgrind` (their scripted
Claude children run natively), each `initialize`d first: one answers `session/new`, one
`session/resume` and then `session/fork` of the session, one `session/load`. `callgrind_control
--dump` just before each request is written and just after its answer is read splits the count,
so each figure is one request's own instructions, the imports its first use of the session side
costs included, and the wait for Claude not (a process waiting executes nothing).

`--runs N` repeats the measurement (the counts barely move between runs of the same code).
Needs `valgrind` on PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.agents import ROOT, our_agent
from tests.bench.delta_probe import _dump, _total, callgrind, dumps_in_order
from tests.bench.rpc import spawn
from tests.bench.sessions import probe_session

__all__ = ["main"]

REQUESTS = ("session/new", "session/resume", "session/fork", "session/load")


async def _counted(
    scratch: Path, env: dict[str, str], name: str, requests: list[tuple[str, dict[str, Any]]]
) -> list[int]:
    """Run `requests` in one agent under callgrind; the instructions of each."""
    out = scratch / f"callgrind-{name}"
    out.mkdir()
    argv = [*callgrind(out / "callgrind.out"), *our_agent().argv]
    agent = await spawn(argv, env=env, cwd=ROOT, stderr_path=scratch / f"stderr-{name}.log")
    try:
        await agent.request("initialize", {"protocolVersion": 1}, timeout=600)
        for method, params in requests:
            await _dump(agent.pid)
            await agent.request(method, params, timeout=600)
        await _dump(agent.pid)
    finally:
        await agent.close(timeout=600)
    # Each dump is numbered in order; the first covers the start-up and `initialize`.
    dumps = dumps_in_order(out)
    if len(dumps) < len(requests) + 1:
        raise SystemExit(f"expected {len(requests) + 1} callgrind dumps, found {len(dumps)}")
    return [_total(dump) for dump in dumps[1 : len(requests) + 1]]


async def _probe() -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="claude-acp-session-probe-") as dir_:
        scratch = Path(dir_)
        env, session_id = await probe_session(scratch)
        cwd = str(scratch / "success")
        params = {"sessionId": session_id, "cwd": cwd, "mcpServers": []}
        counts: dict[str, int] = {}
        (counts["session/new"],) = await _counted(
            scratch, env, "new", [("session/new", {"cwd": cwd, "mcpServers": []})]
        )
        counts["session/resume"], counts["session/fork"] = await _counted(
            scratch, env, "resume", [("session/resume", params), ("session/fork", params)]
        )
        (counts["session/load"],) = await _counted(scratch, env, "load", [("session/load", params)])
        return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.session_probe", description=__doc__
    )
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    for run in range(args.runs):
        counts = asyncio.run(_probe())
        shown = ", ".join(f"{m} {counts[m] / 1e6:,.1f} M" for m in REQUESTS)
        print(f"run {run + 1}: {shown}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
