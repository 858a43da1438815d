"""Streamed tool input: what the turn view spends per `input_json_delta`, in process.

`python -m tests.bench.tool_input [--deltas N] [--runs R]` prints the figures (a benchmark, not
a test: nothing here asserts a speed). One message streams a Write whose `content` arrives as
N deltas of 12 characters (quotes and escapes among them), after a `file_path` field and before
a last field, then a Bash call of 40 short fields; for comparison the same view takes N text
deltas of the same size. The figures are the median over R runs of microseconds per delta,
and the view's updates per kind (the refinements: one per completed field).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from typing import Any

from adapter.view.turn_view import TurnView

__all__ = ["main", "per_delta"]

_PIECE = 'ab \\"c\\n, {}'  # 12 characters of a JSON string's inside


def _events(deltas: int, text: bool) -> list[dict[str, Any]]:
    start = {"type": "message_start", "message": {"id": "m1", "model": "claude-x"}}
    if text:
        block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
        delta = {"type": "text_delta", "text": _PIECE}
        pieces = [{"type": "content_block_delta", "index": 0, "delta": delta}] * deltas
        return [start, block, *pieces]
    write = {"type": "tool_use", "id": "t1", "name": "Write", "input": {}}
    bash = {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}

    def piece(index: int, text: str) -> dict[str, Any]:
        delta = {"type": "input_json_delta", "partial_json": text}
        return {"type": "content_block_delta", "index": index, "delta": delta}

    body = [piece(0, _PIECE)] * (deltas - 3)
    fields = [piece(1, f'{"{" if i == 0 else " "}"f{i}": "value {i}",') for i in range(40)]
    return [
        start,
        {"type": "content_block_start", "index": 0, "content_block": write},
        piece(0, '{"file_path": "/w/src/new.py",'),
        piece(0, ' "content": "'),
        *body,
        piece(0, '", "mode": "w"}'),
        {"type": "content_block_start", "index": 1, "content_block": bash},
        *fields,
        piece(1, ' "last": 1}'),
    ]


def per_delta(deltas: int, *, text: bool) -> tuple[float, Counter[str]]:
    """Microseconds per delta for one streamed message, and its updates by kind."""
    events = _events(deltas, text)
    view = TurnView(cwd="/w", live=True)
    kinds: Counter[str] = Counter()
    started = time.perf_counter()
    for event in events:
        for update in view.stream_event(event, None):
            kinds[update["sessionUpdate"]] += 1
    elapsed = time.perf_counter() - started
    return elapsed / (len(events) - 1) * 1e6, kinds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.tool_input", description=__doc__)
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    for text in (False, True):
        samples = [per_delta(args.deltas, text=text) for _ in range(args.runs)]
        median = statistics.median(us for us, _ in samples)
        what = "text deltas" if text else "tool input deltas"
        print(f"{what}: {median:.2f} us per delta (median of {args.runs}); {dict(samples[0][1])}")


if __name__ == "__main__":
    main()
