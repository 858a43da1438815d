"""docs/decisions.md#secrets end to end: the scripted Claude's `hostile_error` prose (carrying
the adapter's own `ANTHROPIC_API_KEY` value, of no known shape) reaches neither a frame, in any
client mode (legacy agent text included), nor a log line; model prose of a successful answer is
not rewritten. The masking itself is tested in process in `tests/shell/test_secret_masking.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import spawn_adapter

# --- end to end -------------------------------------------------------------------------------

API_KEY = "Zq8vLmNopRstUvwXy"  # no known shape: masked because it is the adapter's own key


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_claude_error_prose_leaks_no_secret_to_any_frame_or_log_line(
    tmp_path: Path, capable: bool
) -> None:
    env = {"ANTHROPIC_API_KEY": API_KEY, "HOME": "/home/alice"}
    async with spawn_adapter(tmp_path, "hostile_error", capable=capable, env=env) as adapter:
        session = await adapter.new_session()
        failed = await adapter.prompt(session, "hello")
        ok = await adapter.prompt(session, "the password is hunter2-hostile, keep it")
    assert isinstance(ok, PromptResponse) and ok.stop_reason == "end_turn"
    # Legacy clients keep Claude's error prose as agent text: masked, words kept.
    if not capable:
        assert not isinstance(failed, PromptResponse)
        prose = [t for t in adapter.agent_texts() if "API Error: 500" in t]
        assert prose and "Please try again later." in prose[0]
        assert "with key ***" in prose[0]  # Claude did echo the key: it was masked
    frames = [json.dumps(f.message) for f in adapter.frames if f.direction == "incoming"]
    log = adapter.stderr()
    for secret in (API_KEY, "sk-ant-api03-Xq9vT2mB7nK4pL8sR1wE6yU3iO0aZ5cV", "/home/alice"):
        for frame in frames:
            if "Scripted reply to:" in frame:
                continue  # model prose of a successful answer (the user's own words) is verbatim
            assert secret not in frame, (secret, frame)
        assert secret not in log, secret
    # Model prose of a successful answer is not rewritten.
    assert "Scripted reply to: the password is hunter2-hostile, keep it" in adapter.agent_texts()
