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

`--runs N` repeats the measurement. Needs `valgrind` and `gcc` with valgrind's headers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.agents import ROOT, our_agent, write_scenario_launcher
from tests.bench.delta_probe import _total
from tests.bench.rpc import spawn
from tests.bench.sessions import _first_session
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
    scratch: Path, env: dict[str, str], marker: Path, method: str, params: dict[str, Any]
) -> int:
    """One fresh agent under callgrind: the instructions from the answer to `initialize`
    written to the Claude of `method` spawned."""
    out = scratch / f"callgrind-{method.replace('/', '-')}"
    out.mkdir()
    argv = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}/callgrind.out.%p",
        "--dump-instr=no",
        sys.executable,
        "-c",
        WRAPPER,
        str(marker),
    ]
    agent = await spawn(argv, env=env, cwd=ROOT, stderr_path=out / "stderr.log")
    try:
        await agent.request("initialize", {"protocolVersion": 1}, timeout=600)
        await agent.request(method, params, timeout=600)
    finally:
        await agent.close(timeout=600)
    # Numbered in order: start -> the answer written, -> Claude spawned, then the rest at exit.
    dumps = sorted(out.glob("callgrind.out.*.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
    if len(dumps) < 2:
        raise SystemExit(f"{method}: expected callgrind dumps at the answer and the spawn")
    return _total(dumps[1])


async def _probe() -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="claude-acp-opening-probe-") as dir_:
        scratch = Path(dir_)
        (scratch / "success").mkdir()
        (scratch / "config").mkdir()
        marker = _marker(scratch)
        if marker is None:
            raise SystemExit("needs gcc and valgrind/callgrind.h")
        launcher = write_scenario_launcher(scratch)
        env = {
            "CLAUDE_CODE_EXECUTABLE": str(launcher),
            "CLAUDE_CONFIG_DIR": str(scratch / "config"),
        }
        session_id = await _first_session(our_agent(), scratch, env)
        cwd = str(scratch / "success")
        resumed = {"sessionId": session_id, "cwd": cwd, "mcpServers": []}
        params = {"session/new": {"cwd": cwd, "mcpServers": []}}
        return {
            method: await _counted(scratch, env, marker, method, params.get(method, resumed))
            for method in REQUESTS
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.opening_probe", description=__doc__
    )
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    for run in range(args.runs):
        counts = asyncio.run(_probe())
        shown = ", ".join(f"{m} {counts[m] / 1e6:,.1f} M" for m in REQUESTS)
        print(f"run {run + 1}: initialize answered -> Claude spawned: {shown}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
