"""`python -m tests.bench.spawn_probe [--agent ours|floor] [--no-session]`: instructions from
spawn to the answer to `initialize`, and on to the first `session/new` answered, counted by
valgrind, so the figures do not stretch with the machine's load as wall-clock times do.

Each agent (`python -m adapter`, and the floor, `python -m tests.bench.floor_agent`) runs as a
real process on stdio under `valgrind --tool=callgrind` (its scripted Claude children run
natively). `callgrind_control --dump` right after the answer to `initialize` is read splits the
count: the first dump is spawn -> `initialize` answered (interpreter start, imports, stdio, the
answer), the second `initialize` answered -> the first `session/new` answered (what the first
session imports and does, Claude's process started and its own `initialize` answered; the floor
starts no Claude). Unlike `tests.bench.initialize_probe` (in one process, without stdio), this
is the path the benchmark's start-up phase times. Needs `valgrind` on PATH; each agent takes
about half a minute of CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["main"]

OPT_IN: dict[str, Any] = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}
AGENTS = {
    "ours": ("-m", "adapter"),
    "floor": ("-m", "tests.bench.floor_agent"),
}


async def _dump(pid: int) -> None:
    """Have callgrind write what it counted so far (and count afresh)."""
    done = await asyncio.create_subprocess_exec(
        "callgrind_control",
        "--dump",
        str(pid),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    if await done.wait() != 0:
        raise SystemExit("callgrind_control --dump failed")


def _total(dump: Path) -> int:
    for line in dump.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no total in {dump}")


async def _count(agent: str, *, session: bool, keep: Path | None = None) -> list[int]:
    """The instructions of each step: spawn -> initialize (and -> the first session/new)."""
    from adapter.scripted_claude import write_launcher
    from tests.bench.agents import ROOT
    from tests.bench.rpc import spawn

    with tempfile.TemporaryDirectory(prefix="claude-acp-spawn-probe-") as scratch:
        tmp = Path(scratch)
        out = tmp / "callgrind.out"
        argv = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}.%p",
            "--dump-instr=no",
            sys.executable,
            *AGENTS[agent],
        ]
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
        dumps = sorted(tmp.glob("callgrind.out.*.*"))
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
