"""Claude asking, as the scripted Claude plays it for tests/shell/test_questions.py and
tests/shell/test_permission_cards.py: a Claude Code whose init lists the unanswered annotations,
and permission requests carrying the CLI's own facts (a blocked path, a display name, the MCP
server of a tool).
"""

from __future__ import annotations

from adapter.scripted_claude.asking_scenarios import TWO_QUESTIONS
from adapter.scripted_claude.steps import Permission, Question, RawFrame, Reply, Result, Scenario

__all__ = ["BLOCKED_PATH", "CAT_HOSTS", "SCENARIOS", "SCREENSHOT"]

BLOCKED_PATH = "/etc/hosts"
CAT_HOSTS = {"command": "cat /etc/hosts", "description": "Read the hosts file"}
SCREENSHOT = {"action": "screenshot", "region": [0, 0, 640, 480]}

_FALLBACK = "Before I start: which database should the app use, Postgres or SQLite?"


def _init(capabilities: list[str]) -> RawFrame:
    return RawFrame(
        frame={
            "type": "system",
            "subtype": "init",
            "session_id": "scripted",
            "uuid": "00000000-0000-4000-8000-0000000a5c00",
            "capabilities": capabilities,
        }
    )


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="ask_questions_unanswered",
        description="A Claude Code whose init lists ask_user_question_unanswered_v1 asks two "
        "questions, then says what it heard.",
        turns=(
            (
                _init(["ask_user_question_unanswered_v1"]),
                Question(input=TWO_QUESTIONS, fallback=_FALLBACK),
                Result(),
            ),
            (Reply(), Result()),
        ),
    ),
    Scenario(
        name="permission_facts",
        description="Claude Code asks about a command reaching a path outside the project "
        "(blocked_path), then a computer-use tool (display_name, mcp_server).",
        turns=(
            (
                Permission(
                    tool_name="Bash",
                    input=CAT_HOSTS,
                    result="127.0.0.1 localhost",
                    hints={"blocked_path": BLOCKED_PATH},
                ),
                Permission(
                    tool_name="mcp__computer-use__screenshot",
                    input=SCREENSHOT,
                    result="captured",
                    hints={
                        "display_name": "Take a\nscreenshot",
                        "mcp_server": {"name": "computer-use", "source": "sdk"},
                    },
                ),
                Result(),
            ),
        ),
    ),
)
