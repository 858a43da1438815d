"""`python -m tests.bench.delta_probe [--deltas N] [--cprofile FILE | --py-spy FILE]`: the
agent's instructions per streamed text delta, counted by valgrind, so the figure does not
stretch with the machine's load as CPU seconds do.

The agent (`python -m adapter`) runs under `valgrind --tool=callgrind` (its scripted Claude
children run natively): `initialize`, `session/new` in a folder whose scripted Claude answers
one prompt with N text deltas (default 10,000; `delta_probe_N`, a scenario of this module), the
prompt, and the agent's exit. `callgrind_control --dump` just before the prompt is written and
just after its answer is read splits the count: the prompt's instructions divided by N are the
cost of one delta (Claude's frame read, the core fed, the chunk written; the turn's own few
frames are lost in N). Every delta must arrive as one chunk, or the run is refused.

`--cprofile FILE` runs the same prompt under `python -m cProfile` instead and writes its stats
to FILE (the functions called per delta and how often); `--py-spy FILE` samples it with py-spy
(installed beside this interpreter) into collapsed stacks. Needs `valgrind` on PATH otherwise.
The scripted Claude imports this module to find the scenario: standard library only at import.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["main", "scenario_named"]

_PREFIX = "delta_probe_"
_COLLECTED = re.compile(r"Collected\s*:\s*([0-9]+)")
PROMPT = [{"type": "text", "text": "Explain the change."}]


def scenario_named(name: str, **_: Any) -> Any:
    """`delta_probe_N`: one answer streamed as N text deltas of one word each."""
    if not name.startswith(_PREFIX) or not name[len(_PREFIX) :].isdigit():
        return None
    from adapter.scripted_claude.steps import Result, Scenario, Text

    count = int(name[len(_PREFIX) :])
    return Scenario(
        name=name,
        description=f"One answer streamed as {count:,} deltas (the delta probe).",
        turns=((Text(text="word " * count, deltas=count), Result()),),
    )


async def _run(argv: list[str], deltas: int, scratch: Path, *, mark: Any = None) -> tuple[int, str]:
    from adapter.scripted_claude import write_launcher
    from tests.bench.agents import ROOT
    from tests.bench.rpc import spawn

    name = f"{_PREFIX}{deltas}"
    launcher = write_launcher(scratch / "bin", scenario=name, modules="tests.bench.delta_probe")
    config = scratch / "claude-config"
    config.mkdir(exist_ok=True)
    folder = scratch / name
    folder.mkdir()
    err = scratch / "err"
    env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(config)}
    agent = await spawn(argv, env=env, cwd=ROOT, stderr_path=err)
    try:
        await agent.request("initialize", {"protocolVersion": 1}, timeout=600)
        new = await agent.request(
            "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=600
        )
        if mark is not None:
            await mark(agent.pid)
        await agent.request(
            "session/prompt",
            {"sessionId": new.result["sessionId"], "prompt": PROMPT},
            timeout=3600,
        )
        chunks = agent.chunks
        if mark is not None:
            await mark(agent.pid)
    except Exception:
        print(err.read_text(encoding="utf-8", errors="replace")[-3000:], file=sys.stderr)
        raise
    finally:
        await agent.close(timeout=600)
    return chunks, err.read_text(encoding="utf-8", errors="replace")


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


def callgrind(out: Path | str) -> list[str]:
    """The start of an argv that runs the rest under callgrind, each process's counts written
    to `out`.<pid> (numbered `.1`, `.2`, … after it for each dump asked for)."""
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "--dump-instr=no"]


def dumps_in_order(folder: Path) -> list[Path]:
    """The numbered callgrind dumps in `folder`, in the order they were written."""
    return sorted(folder.glob("callgrind.out.*.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))


def _total(dump: Path) -> int:
    for line in dump.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no total in {dump}")


async def _count(deltas: int) -> tuple[int, int]:
    """Instructions up to the prompt, and for the prompt alone (request to answer)."""
    with tempfile.TemporaryDirectory(prefix="claude-acp-delta-probe-") as scratch:
        out = Path(scratch) / "callgrind.out"
        argv = [*callgrind(out), sys.executable, "-m", "adapter"]
        chunks, _ = await _run(argv, deltas, Path(scratch), mark=_dump)
        dumps = sorted(Path(scratch).glob("callgrind.out.*.*"))
        if chunks != deltas:
            raise SystemExit(f"{deltas:,} deltas came as {chunks:,} chunks")
        if len(dumps) < 2:
            raise SystemExit(f"expected two callgrind dumps, found {len(dumps)}")
        return _total(dumps[0]), _total(dumps[1])


async def _profile(deltas: int, prefix: list[str], out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="claude-acp-delta-probe-") as scratch:
        chunks, _ = await _run([*prefix, "-m", "adapter"], deltas, Path(scratch))
    print(f"{deltas:,} deltas -> {chunks:,} chunks; profile in {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.delta_probe", description=__doc__)
    parser.add_argument("--deltas", type=int, default=10_000, help="deltas in the answer")
    parser.add_argument("--cprofile", type=Path, help="profile the answer into this file")
    parser.add_argument(
        "--py-spy", type=Path, help="sample the answer with py-spy (collapsed stacks)"
    )
    args = parser.parse_args(argv)
    if args.cprofile is not None:
        prefix = [sys.executable, "-m", "cProfile", "-o", str(args.cprofile.resolve())]
        asyncio.run(_profile(args.deltas, prefix, args.cprofile))
        return 0
    if args.py_spy is not None:
        spy = str(Path(sys.executable).with_name("py-spy"))
        out = str(args.py_spy.resolve())
        prefix = [spy, "record", "--format", "raw", "-r", "1000", "-o", out, "--", sys.executable]
        asyncio.run(_profile(args.deltas, prefix, args.py_spy))
        return 0
    before, prompt = asyncio.run(_count(args.deltas))
    print(f"up to the prompt (spawn, initialize, session/new): {before / 1e6:,.1f} M instructions")
    print(f"the prompt, {args.deltas:,} deltas: {prompt / 1e6:,.1f} M instructions")
    print(f"per delta: {prompt / args.deltas:,.0f} instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
