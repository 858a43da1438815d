"""The end-to-end tables checked in process: every fault scenario of the scripted Claude has its
row in `tests/support/fault_rows.py` or its own test, named below (an exclusion that gains a row
fails too), the failure matrix covers every failure scenario, and the stdout frame check refuses
what is not one JSON-RPC frame.
"""

from __future__ import annotations

import pytest

from adapter.scripted_claude import SCENARIOS
from adapter.scripted_claude.faults import FAULT_SCENARIOS
from tests.support.failure_rows import FAILURE_SCENARIOS, ROWS
from tests.support.fault_rows import FAULTS
from tests.support.frame_check import check_frame

# Fault scenarios with a test of their own instead of a row of `FAULTS`.
TESTED_ELSEWHERE = {
    "die_after_result",  # tests/e2e/test_claude_faults.py: answered before the death
    "hostile_error",  # tests/shell/test_redaction.py, tests/e2e/test_secrets.py
    "rate_limit_every_turn",  # tests/e2e/test_memory.py
    "large_message",  # tests/e2e/test_large_messages.py
    "ignore_sigterm",  # tests/e2e/test_signals.py
    # tests/e2e/test_start_failures.py: each answers session/new in Claude Code's words.
    "startup_proxy_invalid",
    "startup_gateway_signin_required",
    "startup_org_pin_mismatch",
    "startup_cwd_unavailable",
}


def test_every_fault_scenario_has_a_row_or_a_test_of_its_own() -> None:
    covered = {f.scenario for f in FAULTS}
    faults = {s.name for s in FAULT_SCENARIOS}
    assert len(covered) == len(FAULTS) and covered <= set(SCENARIOS)
    # Exactly: a stale exclusion (the scenario gained a row, or is gone) fails as well.
    assert (covered & faults) | TESTED_ELSEWHERE == faults
    assert TESTED_ELSEWHERE.isdisjoint(covered)


def test_the_failure_matrix_covers_every_failure_scenario() -> None:
    scenarios = [row.scenario for row in ROWS]
    assert len(set(scenarios)) == len(scenarios)
    assert set(scenarios) >= FAILURE_SCENARIOS
    assert set(scenarios) <= set(SCENARIOS)


def test_check_frame_rejects_what_is_not_a_frame() -> None:
    for bad in (
        "[SandboxDebug] not JSON",
        '{"jsonrpc":"2.0"}',
        '{"jsonrpc":"1.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
        '{"jsonrpc":"2.0","id":1,"method":"x","result":{}}',
        '{"jsonrpc":"2.0","id":1,"result":NaN}',
        "[]",
    ):
        with pytest.raises((AssertionError, ValueError)):
            check_frame(bad)
    check_frame('{"jsonrpc":"2.0","method":"session/update","params":{}}')
    check_frame('{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}')
