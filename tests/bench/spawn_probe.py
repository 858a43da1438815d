"""`python -m tests.bench.spawn_probe [--agent ours|floor] [--no-session]`: instructions from
spawn to the answer to `initialize`, and on to the first `session/new` answered, counted by
valgrind, so the figures do not stretch with the machine's load as wall-clock times do.

Each agent (`python -m adapter`, and the floor, `python -m tests.bench.floor_agent`) runs as a
real process on stdio under `valgrind --tool=callgrind` (its scripted Claude children run
natively). The count is split where the agent first writes to stdout (its answer to
`initialize`): a wrapper run before the agent's module (`-c`, then the module as `-m` would run
it) dumps callgrind's count right after that `os.write`, through a client request from a tiny
library compiled here with `gcc` against valgrind's `callgrind.h` (without them, the split is
`callgrind_control --dump` once the client has read the answer, which also counts whatever the
agent did meanwhile). A `callgrind_control --dump` once the first `session/new` is answered
gives the second figure: the answer to `initialize` written -> the first `session/new`
answered (what the agent does after its answer, what the first session imports and does,
Claude's process started and its own `initialize` answered; the floor starts no Claude).
Unlike `tests.bench.initialize_probe` (in one process, without stdio), this is the path the
benchmark's start-up phase times. Needs `valgrind` on PATH; each agent takes about half a
minute of CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench.delta_probe import _dump, _total, callgrind, dumps_in_order
from tests.bench.startup import OPT_IN

__all__ = ["main"]

MARKER_C = """
#include <valgrind/callgrind.h>
void claude_acp_mark(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""
# Runs the agent's module as `-m` would, after wrapping `os.write` (asyncio's pipe transport
# writes through it) so that the first write to stdout dumps callgrind's count.
WRAPPER = """
import ctypes, os, runpy, sys
mark = ctypes.CDLL(sys.argv[1]).claude_acp_mark
write, written = os.write, []
def marking_write(fd, data):
    count = write(fd, data)
    if fd == 1 and not written:
        written.append(True)
        mark(b"the first answer written")
    return count
os.write = marking_write
module = sys.argv[2]
sys.argv = [module, *sys.argv[3:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""

AGENTS: dict[str, tuple[str, str]] = {
    "ours": ("-m", "adapter"),
    "floor": ("-m", "tests.bench.floor_agent"),
}


def _marker(scratch: Path) -> Path | None:
    """The client-request library, compiled into `scratch`; None without gcc or the header."""
    source, library = scratch / "mark.c", scratch / "mark.so"
    source.write_text(MARKER_C, encoding="utf-8")
    try:
        built = subprocess.run(
            ["gcc", "-shared", "-fPIC", "-O1", "-o", str(library), str(source)],
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    return library if built.returncode == 0 else None


async def _count(agent: str, *, session: bool, keep: Path | None = None) -> list[int]:
    """The instructions of each step: spawn -> initialize (and -> the first session/new)."""
    from adapter.scripted_claude import write_launcher
    from tests.bench.agents import ROOT
    from tests.bench.rpc import spawn

    with tempfile.TemporaryDirectory(prefix="claude-acp-spawn-probe-") as scratch:
        tmp = Path(scratch)
        out = tmp / "callgrind.out"
        marker = _marker(tmp)
        module = AGENTS[agent][1]
        run = ["-m", module] if marker is None else ["-c", WRAPPER, str(marker), module]
        argv = [*callgrind(out), sys.executable, *run]
        launcher = write_launcher(tmp / "bin", scenario="success")
        config = tmp / "claude-config"
        config.mkdir()
        folder = tmp / "success"
        folder.mkdir()
        err = tmp / "err"
        env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(config)}
        process = await spawn(argv, env=env, cwd=ROOT, stderr_path=err)
        steps = 1
        try:
            await process.request(
                "initialize",
                {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
                timeout=600,
            )
            if marker is None:
                await _dump(process.pid)
            if session:
                await process.request(
                    "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=600
                )
                await _dump(process.pid)
                steps = 2
        except Exception:
            print(err.read_text(encoding="utf-8", errors="replace")[-3000:], file=sys.stderr)
            raise
        finally:
            await process.close(timeout=600)
        dumps = dumps_in_order(tmp)
        if len(dumps) < steps:
            raise SystemExit(f"expected {steps} callgrind dumps, found {len(dumps)}")
        if keep is not None:  # for callgrind_annotate
            keep.mkdir(parents=True, exist_ok=True)
            for step, dump in enumerate(dumps[:steps], 1):
                shutil.copyfile(dump, keep / f"callgrind.{agent}.{step}")
        return [_total(dump) for dump in dumps[:steps]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.spawn_probe", description=__doc__)
    parser.add_argument("--agent", choices=sorted(AGENTS), action="append", help="default: both")
    parser.add_argument(
        "--no-session", action="store_true", help="stop after the answer to initialize"
    )
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="copy each dump to DIR/callgrind.AGENT.STEP"
    )
    args = parser.parse_args(argv)
    counts: dict[str, list[int]] = {}
    for agent in args.agent or ["ours", "floor"]:
        counts[agent] = asyncio.run(_count(agent, session=not args.no_session, keep=args.keep))
        shown = ", then ".join(f"{count / 1e6:,.1f} M" for count in counts[agent])
        steps = "initialize answered" + ("" if args.no_session else ", -> first session/new")
        print(f"{agent}: spawn -> {steps}: {shown}")
    if "ours" in counts and "floor" in counts:
        gap = counts["ours"][0] - counts["floor"][0]
        print(f"ours - floor to the answer to initialize: {gap / 1e6:+,.1f} M instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
