"""`python -m tests.bench.opening_probe`: the agent's instructions from its answer to
`initialize` written to its first session's Claude spawned, counted by valgrind, so the figure
does not stretch with the machine's load as wall times do.

What a fresh process does between answering `initialize` and spawning the Claude of the session
request that follows at once (as the benchmark sends it) is what a client waits for on top of
Claude's own start-up: what serving does after its first answer, then the request's own work
before the spawn (`adapter.agent.opening` spawns first and builds the session while Claude
starts; docs/performance.md). A first agent process (run natively) creates a session and
prompts it once, so that Claude has a transcript. Then for each of `session/new`,
`session/resume`, `session/load` and `session/fork` a fresh agent runs under `valgrind
--tool=callgrind` (its scripted Claude natively), is `initialize`d and sent that one request as
soon as the answer is read. A wrapper around the agent's module dumps callgrind's count through
a client request (a tiny library compiled with gcc, as `spawn_probe` does) when the answer to
`initialize` is written (the first `os.write` to stdout) and when Claude's process is started
(`subprocess.Popen._execute_child`): the second dump is the figure. (Counting from the request's
read instead would count what serving does after the answer only when the request happened to
be read before it.)

`--pause SECONDS` is a client that leaves the agent idle that long after the answer before it
sends the request (an editor may): the figure is then counted from the request read (the first
`os.read` of stdin after the answer) to the spawn, what the client waits for, after whatever the
agent did in the idle moment (`WorkAhead.when_quiet`, started by serving). Under callgrind
everything runs tens of times slower: give the idle moment a few seconds.

`--runs N` repeats the measurement. Needs `valgrind` and `gcc` with valgrind's headers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.agents import ROOT
from tests.bench.delta_probe import _total, callgrind, dumps_in_order
from tests.bench.rpc import spawn
from tests.bench.sessions import probe_session
from tests.bench.spawn_probe import _marker

__all__ = ["main"]

REQUESTS = ("session/new", "session/resume", "session/load", "session/fork")

# Runs the agent's module as `-m adapter` would, with `os.write` (which asyncio's pipe transport
# writes through) and `subprocess.Popen._execute_child` (which Claude's process is started
# through, as `tests/shell/test_spawn_imports.py` notes it) wrapped to dump callgrind's count at
# the answer to `initialize` and at Claude's spawn.
WRAPPER = """
import ctypes, os, runpy, sys
mark = ctypes.CDLL(sys.argv[1]).claude_acp_mark
seen = set()
write = os.write
def marking_write(fd, data):
    count = write(fd, data)
    if fd == 1 and "answered" not in seen:
        seen.add("answered")
        mark(b"the answer to initialize written")
    return count
os.write = marking_write
read = os.read
def marking_read(fd, size):
    data = read(fd, size)
    if fd == 0 and data and "answered" in seen and "read" not in seen:
        seen.add("read")
        mark(b"the request read")
    return data
if sys.argv[2] == "pause":
    os.read = marking_read
from adapter.lean_imports import prepare_imports
prepare_imports()
import subprocess
execute_child = subprocess.Popen._execute_child
def marking_execute_child(*args, **kwargs):
    if "answered" in seen and "spawned" not in seen:
        seen.add("spawned")
        mark(b"Claude spawned")
    return execute_child(*args, **kwargs)
subprocess.Popen._execute_child = marking_execute_child
sys.argv = ["adapter"]
runpy.run_module("adapter", run_name="__main__", alter_sys=True)
"""


async def _counted(
    scratch: Path,
    env: dict[str, str],
    marker: Path,
    method: str,
    params: dict[str, Any],
    pause: float = 0.0,
) -> int:
    """One fresh agent under callgrind: the instructions from the answer to `initialize`
    written (with a `pause`, from the request read) to the Claude of `method` spawned."""
    out = scratch / f"callgrind-{method.replace('/', '-')}"
    out.mkdir()
    argv = [
        *callgrind(out / "callgrind.out"),
        sys.executable,
        "-c",
        WRAPPER,
        str(marker),
        "pause" if pause else "at once",
    ]
    agent = await spawn(argv, env=env, cwd=ROOT, stderr_path=out / "stderr.log")
    try:
        await agent.request("initialize", {"protocolVersion": 1}, timeout=600)
        await asyncio.sleep(pause)
        await agent.request(method, params, timeout=600)
    finally:
        await agent.close(timeout=600)
    # Numbered in order: start -> the answer written, (-> the request read,) -> Claude spawned,
    # then the rest at exit.
    dumps = dumps_in_order(out)
    spawned = 2 if pause else 1
    if len(dumps) <= spawned:
        raise SystemExit(f"{method}: expected callgrind dumps at the answer and the spawn")
    return _total(dumps[spawned])


async def _probe(pause: float) -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="claude-acp-opening-probe-") as dir_:
        scratch = Path(dir_)
        marker = _marker(scratch)
        if marker is None:
            raise SystemExit("needs gcc and valgrind/callgrind.h")
        env, session_id = await probe_session(scratch)
        cwd = str(scratch / "success")
        resumed = {"sessionId": session_id, "cwd": cwd, "mcpServers": []}
        params = {"session/new": {"cwd": cwd, "mcpServers": []}}
        return {
            method: await _counted(scratch, env, marker, method, params.get(method, resumed), pause)
            for method in REQUESTS
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.opening_probe", description=__doc__
    )
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--pause", type=float, default=0.0, metavar="SECONDS")
    args = parser.parse_args(argv)
    start = f"request read after {args.pause:g} s idle" if args.pause else "initialize answered"
    for run in range(args.runs):
        counts = asyncio.run(_probe(args.pause))
        shown = ", ".join(f"{m} {counts[m] / 1e6:,.1f} M" for m in REQUESTS)
        print(f"run {run + 1}: {start} -> Claude spawned: {shown}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
