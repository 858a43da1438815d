"""Claude asking, as the scripted Claude plays it for tests/shell/test_questions.py and
tests/shell/test_permission_cards.py: a Claude Code whose init lists the unanswered annotations,
and permission requests carrying the CLI's own facts (a blocked path, a display name, the MCP
server of a tool).
"""

from __future__ import annotations

from adapter.scripted_claude.asking_scenarios import TWO_QUESTIONS
from adapter.scripted_claude.steps import Question, RawFrame, Reply, Result, Scenario

__all__ = ["SCENARIOS"]

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
)
