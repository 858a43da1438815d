"""Scenarios in which Claude turns to the user with a question (AskUserQuestion): one question
with two options, and two questions of which one takes several answers. Turn 2 of each is a
plain reply, so a test can check the session goes on.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import Permission, Question, Reply, Result, Scenario

__all__ = ["ASKING_SCENARIOS", "ONE_QUESTION", "TWO_QUESTIONS"]

ONE_QUESTION: dict[str, object] = {
    "questions": [
        {
            "question": "Which database should the app use?",
            "header": "Database",
            "multiSelect": False,
            "options": [
                {"label": "Postgres", "description": "Relational, the team knows it"},
                {"label": "SQLite", "description": "A file, nothing to run"},
            ],
        }
    ]
}

TWO_QUESTIONS: dict[str, object] = {
    "questions": [
        ONE_QUESTION["questions"][0],  # type: ignore[index]
        {
            "question": "Which features come first?",
            "header": "Features",
            "multiSelect": True,
            "options": [
                {"label": "Sign-in"},
                {"label": "Search", "preview": "A search box on every page"},
                {"label": "Export"},
            ],
        },
    ]
}

_FALLBACK = "Before I start: which database should the app use, Postgres or SQLite?"

_DEPLOY = {"command": "./deploy.sh", "description": "Deploy to production"}

ASKING_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="permission_hints",
        description="Bash permissions with the CLI's hints: default_to_no, then a matched "
        "ask rule, then suppress_always_allow_rule.",
        turns=(
            (
                Permission(
                    tool_name="Bash", input=_DEPLOY, result="", hints={"default_to_no": True}
                ),
                Result(),
            ),
            (
                Permission(
                    tool_name="Bash",
                    input=_DEPLOY,
                    result="",
                    hints={"matched_ask_rule": {"toolName": "Bash", "ruleContent": "./deploy.sh"}},
                ),
                Result(),
            ),
            (
                Permission(
                    tool_name="Bash",
                    input=_DEPLOY,
                    result="",
                    hints={"suppress_always_allow_rule": True, "default_to_no": True},
                ),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="ask_question",
        description="Claude asks one question (AskUserQuestion), then says what it heard.",
        turns=(
            (Question(input=ONE_QUESTION, fallback=_FALLBACK), Result()),
            (Reply(), Result()),
        ),
    ),
    Scenario(
        name="ask_questions",
        description="Claude asks two questions, one of them multi-select, then says what it heard.",
        turns=(
            (Question(input=TWO_QUESTIONS, fallback=_FALLBACK), Result()),
            (Reply(), Result()),
        ),
    ),
)
