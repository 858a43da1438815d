"""A client's slips do not reach Claude (docs/decisions.md#empty-and-placeholder-input), through
the real stdio agent and the scripted Claude (which logs its environment and every user message
it receives): a placeholder credential in the adapter's environment or in a client's
`_meta.claudeCode.options.env` never reaches Claude Code's environment, and is said once on
stderr without its value; a prompt with no content is -32602 and Claude receives nothing.

Only what needs the real processes stays here: placeholder credentials never reaching Claude Code.
The rest is played in process: tests/shell/test_client_slips.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.handshake import LOG_ENV, LOG_ENV_NAMES
from tests.support.harness import TIMEOUT, spawn_adapter
from tests.support.scripted_log import claude_log

CREDENTIALS = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
# A made-up token of the real shape: a credential that was set, which must still pass.
REAL_TOKEN = "sk-ant-oat01-made-up-but-real-looking-0123456789"


def _envs(tmp_path: Path) -> list[dict[str, str | None]]:
    return [e["values"] for e in claude_log(tmp_path) if e["kind"] == "env"]


@pytest.mark.asyncio
async def test_placeholder_credentials_never_reach_claude_code(tmp_path: Path) -> None:
    env = {
        LOG_ENV: str(tmp_path / "claude-log.jsonl"),
        LOG_ENV_NAMES: ",".join(CREDENTIALS),
        # As CodeCompanion's Claude preset starts the agent when the user set no token.
        "CLAUDE_CODE_OAUTH_TOKEN": "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY}",
        "ANTHROPIC_AUTH_TOKEN": "",
    }
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        # A client's own options: a placeholder goes, a real value still reaches Claude Code.
        params = {
            "cwd": str(adapter.workdir),
            "mcpServers": [],
            "_meta": {
                "claudeCode": {
                    "options": {
                        "env": {
                            "ANTHROPIC_API_KEY": "$ANTHROPIC_API_KEY",
                            "ANTHROPIC_AUTH_TOKEN": REAL_TOKEN,
                        }
                    }
                }
            },
        }
        await asyncio.wait_for(adapter.conn._conn.send_request("session/new", params), TIMEOUT)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    first, second = _envs(tmp_path)
    assert first == dict.fromkeys(CREDENTIALS)
    assert second == {**dict.fromkeys(CREDENTIALS), "ANTHROPIC_AUTH_TOKEN": REAL_TOKEN}
    said = adapter.stderr_path.read_text("utf-8", "replace")
    for name in CREDENTIALS:
        assert said.count(f"ignoring {name} from the adapter's environment") == 1
    assert "${ANTHROPIC_API_KEY}" not in said and "$ANTHROPIC_API_KEY" not in said
    assert REAL_TOKEN not in said
