"""Small statistics: median with quartiles and range, and paired ratios."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Summary", "paired_ratios", "summarize"]


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    median: float
    q1: float
    q3: float
    low: float
    high: float

    def fmt(self, scale: float = 1.0, digits: int = 0) -> str:
        """`median [q1-q3]` after multiplying by `scale` (e.g. 1000 for ms)."""
        if self.n == 0:
            return "-"

        def f(x: float) -> str:
            return f"{x * scale:,.{digits}f}"

        if self.n < 4:
            return f"{f(self.median)} ({f(self.low)}-{f(self.high)})"
        return f"{f(self.median)} [{f(self.q1)}-{f(self.q3)}]"


def summarize(values: Sequence[float]) -> Summary:
    data = sorted(values)
    if not data:
        return Summary(0, float("nan"), float("nan"), float("nan"), float("nan"), float("nan"))
    if len(data) == 1:
        x = data[0]
        return Summary(1, x, x, x, x, x)
    q1, _, q3 = statistics.quantiles(data, n=4, method="inclusive")
    return Summary(len(data), statistics.median(data), q1, q3, data[0], data[-1])


def paired_ratios(
    numerators: Sequence[float | None], denominators: Sequence[float | None]
) -> list[float]:
    """Run-by-run ratios of two interleaved series (runs where either is missing are left out)."""
    return [
        a / b
        for a, b in zip(numerators, denominators, strict=False)
        if a is not None and b is not None and b > 0
    ]
