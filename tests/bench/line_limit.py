"""`python -m tests.bench.line_limit`: the agent's peak memory (VmHWM) for one long JSON-RPC
line, under and over the line limit (CLAUDE_ACP_MAX_LINE_BYTES). Writes
`tests/bench/results/LINE_LIMIT.md`.

Memory, not time: the agent reads a line of N bytes through a bounded buffer, so a line over
the limit costs about the limit (it is dropped as it streams in), and one under it a small
multiple of its size (the bytes, their text, the parsed value). Before the guard, an 80 MB line
cost about 313 MB and a 160 MB one about 533 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.bench.procfs import status_kib

ROOT = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024
TIMEOUT = 300.0


@dataclass(frozen=True, slots=True)
class LineSample:
    limit: int
    line_bytes: int
    baseline_kib: int  # VmHWM after initialize, before the long line
    peak_kib: int  # VmHWM after the long line was answered
    code: int | None  # the JSON-RPC error code it got, None for a result

    @property
    def growth_mib(self) -> float:
        return (self.peak_kib - self.baseline_kib) / 1024


def _read_answer(process: subprocess.Popen[bytes], want: str, buffer: list[bytes]) -> dict:  # type: ignore[type-arg]
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + TIMEOUT
    while True:
        data = b"".join(buffer)
        while b"\n" in data:
            line, _, data = data.partition(b"\n")
            buffer[:] = [data]
            message = json.loads(line)
            if message.get("id") == want or (want == "big" and message.get("id") is None):
                return dict(message)
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError(f"no answer to {want}")
        chunk = os.read(fd, MIB)
        if not chunk:
            raise EOFError("the agent ended")
        buffer[:] = [data + chunk]


def measure(limit: int, line_bytes: int, tmp: Path) -> LineSample:
    """Start the agent with `limit`, send one `initialize` line of `line_bytes`, and read its
    VmHWM once the line was answered (and a probe after it)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CLAUDE_ACP_MAX_LINE_BYTES": str(limit),
        "CLAUDE_CONFIG_DIR": str(tmp / "claude-config"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "adapter"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=str(ROOT),
        env=env,
    )
    assert process.stdin is not None
    buffer: list[bytes] = [b""]
    try:
        init = {"jsonrpc": "2.0", "id": "init", "method": "initialize"}
        process.stdin.write(json.dumps({**init, "params": {"protocolVersion": 1}}).encode() + b"\n")
        process.stdin.flush()
        _read_answer(process, "init", buffer)
        baseline = status_kib(process.pid, "VmHWM") or 0
        head = (
            b'{"jsonrpc":"2.0","id":"big","method":"initialize","params":{"protocolVersion":1,"x":"'
        )
        tail = b'"}}\n'
        filler = line_bytes - len(head) - len(tail) + 1
        process.stdin.write(head)
        block = b"a" * MIB
        while filler > 0:
            process.stdin.write(block[: min(MIB, filler)])
            filler -= MIB
        process.stdin.write(tail)
        process.stdin.flush()
        answer = _read_answer(process, "big", buffer)
        probe = {**init, "id": "probe", "params": {"protocolVersion": 1}}
        process.stdin.write(json.dumps(probe).encode() + b"\n")
        process.stdin.flush()
        _read_answer(process, "probe", buffer)
        peak = status_kib(process.pid, "VmHWM") or 0
        code = answer["error"]["code"] if "error" in answer else None
        return LineSample(limit, line_bytes, baseline, peak, code)
    finally:
        process.stdin.close()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _markdown(samples: list[LineSample]) -> str:
    rows = [
        "| limit | line | answer | VmHWM before | VmHWM after | growth | growth / limit |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in samples:
        answer = "result" if s.code is None else str(s.code)
        rows.append(
            f"| {s.limit / MIB:.0f} MiB | {s.line_bytes / MIB:.0f} MiB | {answer} "
            f"| {s.baseline_kib / 1024:.1f} MiB | {s.peak_kib / 1024:.1f} MiB "
            f"| {s.growth_mib:.1f} MiB | {s.growth_mib * MIB / s.limit:.2f} |"
        )
    return "# Line limit: the agent's peak memory for one long line\n\n" + (
        (__doc__ or "").split("\n\n", 1)[1] + "\n" + "\n".join(rows) + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.line_limit", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    cases = [(50, 40), (50, 80), (50, 160), (8, 6), (8, 160)]
    samples: list[LineSample] = []
    with tempfile.TemporaryDirectory(prefix="claude-acp-line-") as scratch:
        for limit, size in cases:
            sample = measure(limit * MIB, size * MIB, Path(scratch))
            print(f"limit {limit} MiB, line {size} MiB: +{sample.growth_mib:.1f} MiB", flush=True)
            samples.append(sample)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "LINE_LIMIT.md").write_text(_markdown(samples), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
