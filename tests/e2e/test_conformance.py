"""`claude-acp conformance` on our own adapter's logs: every demo run checks clean, and the test
harness applies the same rules to every adapter it spawns. The rules themselves are tested in
process in `tests/shell/test_conformance_rules.py`.
"""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.conformance import check_file
from adapter.demo.runner import play
from adapter.scripted_claude import DEFAULT_SCENARIO
from tests.support.conformance_frames import IN, info, record, write_log
from tests.support.harness import ROOT, Frame, conformance_violations, spawn_adapter

# -- our own adapter's logs ----------------------------------------------------------------

DEMOS: dict[str, list[str]] = {
    "default": [],
    "rate_limit": ["rate_limit"],
    "model_fallback": ["model_fallback"],
    "crash_mid_turn": ["crash_mid_turn"],
    "legacy": ["--legacy"],
    "coding_turn": ["coding_turn"],
}


async def _write_demo_log(args: list[str], log: Path) -> tuple[int, str]:
    """One demo run, played by the demo's own client code in this process (`play`, what
    `claude-acp demo [SCENARIO] [--legacy] --log FILE` runs past its arguments) against its
    own adapter subprocess: a demo process per run would only add a Python start."""
    scenario = next((a for a in args if not a.startswith("--")), DEFAULT_SCENARIO)
    err = io.StringIO()
    with log.open("w", encoding="utf-8") as file:
        status = await asyncio.wait_for(
            play(scenario, out=io.StringIO(), err=err, capable="--legacy" not in args, log=file),
            120,
        )
    return status, err.getvalue()


async def _write_demo_logs(folder: Path) -> dict[str, tuple[int, str]]:
    runs = [_write_demo_log(args, folder / f"{name}.log") for name, args in DEMOS.items()]
    return dict(zip(DEMOS, await asyncio.gather(*runs), strict=True))


@pytest.fixture(scope="module")
def demo_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict[str, Any]]]:
    """Every demo run at once (each is a few seconds of subprocesses), then checked by the CLI."""
    folder = tmp_path_factory.mktemp("demo-logs")
    for name, (status, stderr) in asyncio.run(_write_demo_logs(folder)).items():
        assert status == 0, (name, stderr)
    reports: dict[str, tuple[int, dict[str, Any]]] = {}
    for name in DEMOS:
        checked = subprocess.run(
            [sys.executable, "-m", "adapter", "conformance", str(folder / f"{name}.log"), "--json"],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        reports[name] = (checked.returncode, json.loads(checked.stdout))
    return reports


Failure = tuple[int, str, str, list[str], str]  # revision, severity, category, actions, carrier
EXPECTED: dict[str, list[Failure]] = {
    # The two retry warnings were updated in place by the terminal error: one entry.
    "default": [(3, "error", "limit", ["retry"], "prompt_response")],
    "rate_limit": [(1, "error", "limit", ["retry"], "prompt_response")],
    "model_fallback": [(1, "warning", "unknown", [], "session_info_update")],
    "crash_mid_turn": [(1, "error", "connection", ["new_session"], "prompt_response")],
    "legacy": [],
    "coding_turn": [],
}


@pytest.mark.parametrize("name", list(DEMOS))
def test_our_demo_logs_are_clean(
    demo_reports: dict[str, tuple[int, dict[str, Any]]], name: str
) -> None:
    status, report = demo_reports[name]
    assert report["violations"] == [] and status == 0
    failures = [
        (e["revision"], e["severity"], e["category"], e["actions"], e["carrier"])
        for e in report["transcript"]
        if e["kind"] == "failure"
    ]
    assert failures == EXPECTED[name]
    kinds = [e["kind"] for e in report["transcript"]]
    assert kinds.count("user") == 2
    if name == "legacy":
        assert report["records"] == 0 and "rejected" in kinds


@pytest.mark.asyncio
async def test_harness_transcript_uses_the_same_rules(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "retry_then_rate_limit") as adapter:
        session = await adapter.new_session()
        answer_ = await adapter.prompt(session, "hello")
    assert isinstance(answer_, PromptResponse)
    view = adapter.transcript()
    [failure] = view.failures()
    assert (failure.revision, failure.severity, failure.carrier) == (3, "error", "prompt_response")
    assert [e.kind for e in view.session_entries(session)] == ["user", "failure"]
    # The same frames, written as a log, check clean.
    path = tmp_path / "wire.log"
    write_log(path, [(f.direction, f.message) for f in adapter.frames], "chevrons")
    assert check_file(path).violations == []


@pytest.mark.asyncio
async def test_harness_fails_a_test_whose_frames_break_the_rules(tmp_path: Path) -> None:
    # Every adapter the harness spawns is checked when it closes: an off-spec frame in its
    # recording fails the test, unless the test says why it is off-spec on purpose.
    smuggled = Frame(IN, info(record(retryable=True), session="s"))
    with pytest.raises(AssertionError, match="record-extra-key"):
        async with spawn_adapter(tmp_path / "checked") as adapter:
            await adapter.new_session()
            adapter.frames.append(smuggled)
    async with spawn_adapter(tmp_path / "exempt", off_spec="a hand-made bad frame") as adapter:
        await adapter.new_session()
        adapter.frames.append(smuggled)
    assert conformance_violations(adapter.frames) != []
