"""`python -m tests.bench.sessions [--runs N] [--reference]`: session/resume, session/fork and
session/load latency, written to `tests/bench/results/SESSIONS.md` (`python -m tests.bench` runs
the same measurement as its `sessions` phase, into BENCHMARKS.md).

One run of one agent: a first agent process creates a session and prompts it once (so Claude
has a transcript), and exits; a second, fresh process then `session/resume`s that session (no
replay; a Claude process is started on it) and `session/fork`s it (the transcript copied under
a new id, a Claude process resumed on the copy), and prompts the fork once to show the fork
works; a third fresh process `session/load`s the original session (its short history replayed,
a Claude process resumed on it). The three requests are timed from request written to response
read. Agents take turns run
by run after one discarded warm-up each, all on the scripted Claude (`agents.py`), so Claude's
own start-up is the same for every agent. Only run the reference when the machine is quiet:
on a loaded 2-core box the ratio mostly measures the neighbours.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.agents import (
    DEFAULT_REFERENCE_VERSION,
    ROOT,
    AgentSpec,
    install_reference,
    our_agent,
    reference_agent,
    write_scenario_launcher,
)
from tests.bench.procfs import load_average
from tests.bench.rpc import spawn
from tests.bench.stats import paired_ratios, summarize

__all__ = ["SessionSample", "run_once", "run_sessions"]

RESULTS = ROOT / "tests" / "bench" / "results" / "SESSIONS.md"
_PROMPT = [{"type": "text", "text": "What is in this folder?"}]


@dataclass(slots=True)
class SessionSample:
    agent: str
    load: float
    resume_s: float | None = None
    fork_s: float | None = None
    load_s: float | None = None
    errors: list[str] = field(default_factory=list)


async def _first_session(spec: AgentSpec, tmp: Path, env: dict[str, str]) -> str:
    cwd = str(tmp / "success")
    agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr-1.log")
    try:
        await agent.request("initialize", {"protocolVersion": 1}, timeout=60)
        new = await agent.request("session/new", {"cwd": cwd, "mcpServers": []}, timeout=60)
        session_id = str(new.result["sessionId"])
        await agent.request(
            "session/prompt", {"sessionId": session_id, "prompt": _PROMPT}, timeout=60
        )
        return session_id
    finally:
        await agent.close()


async def probe_session(scratch: Path) -> tuple[dict[str, str], str]:
    """For a probe of our agent in `scratch`: the scripted Claude's launch environment there,
    and the id of a first session that has answered a prompt (its folder: `success`)."""
    (scratch / "success").mkdir()
    (scratch / "config").mkdir()
    launcher = write_scenario_launcher(scratch)
    env = {
        "CLAUDE_CODE_EXECUTABLE": str(launcher),
        "CLAUDE_CONFIG_DIR": str(scratch / "config"),
    }
    return env, await _first_session(our_agent(), scratch, env)


async def run_once(spec: AgentSpec, launcher: Path) -> SessionSample:
    sample = SessionSample(agent=spec.name, load=load_average())
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-sessions-{spec.name}-") as dir_:
        tmp = Path(dir_)
        (tmp / "success").mkdir()
        (tmp / "config").mkdir()
        env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(tmp / "config")}
        try:
            session_id = await _first_session(spec, tmp, env)
        except Exception as exc:  # a failed run is reported, never fatal to the benchmark
            sample.errors.append(f"first process: {type(exc).__name__}: {exc}")
            return sample
        params = {"sessionId": session_id, "cwd": str(tmp / "success"), "mcpServers": []}
        agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr-2.log")
        try:
            await agent.request("initialize", {"protocolVersion": 1}, timeout=60)
            resumed = await agent.request("session/resume", params, timeout=60)
            sample.resume_s = resumed.seconds
            forked = await agent.request("session/fork", params, timeout=60)
            sample.fork_s = forked.seconds
            fork_id = forked.result.get("sessionId")
            answer = await agent.request(
                "session/prompt", {"sessionId": fork_id, "prompt": _PROMPT}, timeout=60
            )
            if answer.result.get("stopReason") != "end_turn" or fork_id == session_id:
                sample.errors.append(f"the fork did not work: {answer.result}")
        except Exception as exc:  # a failed run is reported, never timed as if it were right
            sample.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            await agent.close()
        agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr-3.log")
        try:
            await agent.request("initialize", {"protocolVersion": 1}, timeout=60)
            loaded = await agent.request("session/load", params, timeout=60)
            sample.load_s = loaded.seconds
            if agent.notifications == 0:
                sample.errors.append("session/load replayed nothing")
        except Exception as exc:
            sample.errors.append(f"load: {type(exc).__name__}: {exc}")
        finally:
            await agent.close()
    return sample


async def run_sessions(
    specs: list[AgentSpec], runs: int, launcher: Path, *, progress: bool = True
) -> list[SessionSample]:
    """`run_once` for each agent in turn, run by run, after one discarded warm-up each."""
    for spec in specs:
        await run_once(spec, launcher)  # warm-up, discarded
    samples: list[SessionSample] = []
    for run in range(runs):
        for spec in specs:
            sample = await run_once(spec, launcher)
            samples.append(sample)
            if not progress:
                continue
            print(
                f"run {run + 1}/{runs} {spec.name}: resume {sample.resume_s} "
                f"fork {sample.fork_s} load {sample.load_s} {' '.join(sample.errors)}",
                flush=True,
            )
    return samples


def _report(samples: list[SessionSample], names: list[str], runs: int) -> str:
    lines = [
        "# session/resume and session/fork latency",
        "",
        f"`python -m tests.bench.sessions --runs {runs}`; milliseconds, median [q1-q3]; "
        f"load average during the runs: {min(s.load for s in samples):.1f}-"
        f"{max(s.load for s in samples):.1f} on this 2-core machine.",
        "",
        "| agent | session/resume | session/fork | session/load | failed runs |",
        "|---|---|---|---|---|",
    ]
    by_agent = {n: [s for s in samples if s.agent == n] for n in names}
    for name, own in by_agent.items():
        resume = summarize([s.resume_s for s in own if s.resume_s is not None and not s.errors])
        fork = summarize([s.fork_s for s in own if s.fork_s is not None and not s.errors])
        load = summarize([s.load_s for s in own if s.load_s is not None and not s.errors])
        failed = sum(1 for s in own if s.errors)
        lines.append(
            f"| {name} | {resume.fmt(1000)} | {fork.fmt(1000)} | {load.fmt(1000)} | {failed} |"
        )
    if "reference" in by_agent:
        ours, ref = by_agent["ours"], by_agent["reference"]
        for what in ("resume_s", "fork_s", "load_s"):
            ratios = paired_ratios(
                [getattr(s, what) for s in ours], [getattr(s, what) for s in ref]
            )
            lines.append(f"\nours/reference {what[:-2]}: median {summarize(ratios).fmt(1, 2)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.sessions", description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--reference", action="store_true", help="also run the reference")
    parser.add_argument("--reference-version", default=DEFAULT_REFERENCE_VERSION)
    args = parser.parse_args(argv)
    specs = [our_agent()]
    if args.reference:
        specs.append(reference_agent(install_reference(args.reference_version)))
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-launcher-") as scratch:
        launcher = write_scenario_launcher(Path(scratch))
        samples = asyncio.run(run_sessions(specs, args.runs, launcher))
    report = _report(samples, [s.name for s in specs], args.runs)
    RESULTS.write_text(report, encoding="utf-8")
    print(report)
    return 1 if any(s.errors for s in samples) else 0


if __name__ == "__main__":
    sys.exit(main())
