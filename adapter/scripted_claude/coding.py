"""Scenarios of everyday coding turns: streamed answers, every tool's card, the plan.

Paths in tool input and results may hold `{cwd}`, which the player replaces with the session's
folder (Claude Code always names files by absolute path). `coding_turn` is the demo's whole
coding turn; the others are what the end-to-end tests and the benchmark drive.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import (
    ApiRetry,
    AssistantError,
    BrokenStream,
    RawFrame,
    Result,
    Scenario,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)

__all__ = ["CODING_SCENARIOS", "LONG_STREAM_DELTAS", "ORIGINAL_APP", "OVERLOADED", "TINY_PNG"]

LONG_STREAM_DELTAS = 100_000
OVERLOADED = "API Error: Repeated 529 Overloaded errors \u00b7 check status.claude.com"
# A 1x1 transparent PNG.
TINY_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
    "rkJggg=="
)
ORIGINAL_APP = 'def greet(name):\n    return "Hello " + name\n\n\nprint(greet("world"))\n'
_APP = "{cwd}/src/app.py"


def _todos(*states: str) -> dict[str, object]:
    items = ("Read the greeting code", "Use an f-string", "Run the tests")
    active = ("Reading the greeting code", "Switching to an f-string", "Running the tests")
    return {
        "todos": [
            {"content": c, "status": s, "activeForm": a}
            for c, s, a in zip(items, states, active, strict=True)
        ]
    }


_READ = ToolUse(
    name="Read",
    input={"file_path": _APP, "offset": 1, "limit": 5},
    result='     1\tdef greet(name):\n     2\t    return "Hello " + name\n',
)
_EDIT = ToolUse(
    name="Edit",
    input={
        "file_path": _APP,
        "old_string": '    return "Hello " + name',
        "new_string": '    return f"Hello {name}"',
    },
    result="The file {cwd}/src/app.py has been updated.",
    tool_use_result={
        "filePath": _APP,
        "oldString": '    return "Hello " + name',
        "newString": '    return f"Hello {name}"',
        "originalFile": ORIGINAL_APP,
        "structuredPatch": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2}],
    },
)
_BASH = ToolUse(
    name="Bash",
    input={"command": "python -m pytest -q", "description": "Run the tests"},
    result="..\n2 passed in 0.01s",
)
_ANSWER = (
    "I switched `greet` to an f-string, which reads better and avoids the concatenation; "
    "the two tests still pass."
)

CODING_TURN = (
    Thinking(thinking="The user wants the greeting tidied. Read it first, then edit.", pace=0.02),
    ToolUse(name="TodoWrite", input=_todos("in_progress", "pending", "pending"), result="ok"),
    _READ,
    ToolUse(
        name="Grep",
        input={"pattern": "greet\\(", "path": "{cwd}/src", "glob": "*.py"},
        result="src/app.py",
    ),
    ToolUse(name="TodoWrite", input=_todos("completed", "in_progress", "pending"), result="ok"),
    _EDIT,
    ToolUse(name="TodoWrite", input=_todos("completed", "completed", "in_progress"), result="ok"),
    _BASH,
    ToolUse(name="TodoWrite", input=_todos("completed", "completed", "completed"), result="ok"),
    Text(text=_ANSWER, pace=0.03),
    Result(),
)

_TASK = "toolu_01task000000000000000000"
EVERY_TOOL = (
    _READ,
    ToolUse(
        name="Write",
        input={"file_path": "{cwd}/src/new.py", "content": "x = 1\n"},
        result="File created successfully at: {cwd}/src/new.py",
        tool_use_result={"type": "create", "filePath": "{cwd}/src/new.py", "content": "x = 1\n"},
    ),
    _EDIT,
    ToolUse(
        name="MultiEdit",
        input={
            "file_path": _APP,
            "edits": [
                {"old_string": "greet", "new_string": "welcome", "replace_all": True},
                {"old_string": "world", "new_string": "there"},
            ],
        },
        result="Applied 2 edits to {cwd}/src/app.py",
    ),
    ToolUse(
        name="NotebookEdit",
        input={"notebook_path": "{cwd}/nb.ipynb", "cell_id": "c1", "new_source": "print(1)"},
        result="Updated cell c1",
    ),
    _BASH,
    ToolUse(name="BashOutput", input={"bash_id": "shell_1"}, result="still running"),
    ToolUse(name="KillShell", input={"shell_id": "shell_1"}, result="Shell shell_1 killed"),
    ToolUse(name="Grep", input={"pattern": "TODO", "path": "{cwd}/src"}, result="src/app.py:3"),
    ToolUse(name="Glob", input={"pattern": "**/*.py", "path": "{cwd}"}, result="src/app.py"),
    ToolUse(name="LS", input={"path": "{cwd}/src"}, result="- app.py\n- new.py"),
    ToolUse(
        name="WebFetch",
        input={"url": "https://example.com/docs", "prompt": "Summarize the docs"},
        result="The docs say hello.",
    ),
    ToolUse(name="WebSearch", input={"query": "python f-strings"}, result="PEP 498 (url)"),
    ToolUse(
        name="Task",
        input={"description": "Survey the tests", "prompt": "Find every test of greet"},
        result=None,
        id=_TASK,
    ),
    Text(text="Looking at the tests for greet.", parent=_TASK),
    ToolUse(
        name="Grep",
        input={"pattern": "def test_", "path": "{cwd}/tests"},
        result="tests/test_app.py:1",
        parent=_TASK,
    ),
    ToolResult(id=_TASK, result="One test covers greet."),
    ToolUse(name="ExitPlanMode", input={"plan": "1. Edit app.py\n2. Run tests"}, result="ok"),
    ToolUse(name="mcp__github__create_issue", input={"title": "Bug"}, result="Created #7"),
    ToolUse(name="FancyNewTool", input={"x": 1}, result="done"),
    ToolUse(
        name="Read",
        input={"file_path": "{cwd}/missing.py"},
        result="File does not exist.",
        is_error=True,
    ),
    ToolUse(
        name="Read",
        input={"file_path": "{cwd}/logo.png"},
        result=(
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": TINY_PNG},
            },
        ),
    ),
    Text(text="Every tool ran."),
    Result(),
)

_SID = "00000000-0000-0000-0000-000000000000"


def _event(event: object) -> RawFrame:
    return RawFrame(frame={"type": "stream_event", "uuid": "u", "session_id": _SID, "event": event})


BAD_INPUT = (
    _event({"type": "content_block_delta", "delta": "not a delta"}),
    _event({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}}),
    _event({"type": "message_start"}),  # truncated: no message
    _event("garbage"),
    RawFrame(
        frame={
            "type": "assistant",
            "session_id": _SID,
            "uuid": "u2",
            "parent_tool_use_id": None,
            "message": {
                "id": "msg_01odd",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "hologram", "data": 1},
                    {"type": "text", "text": "Still here."},
                ],
            },
        }
    ),
    ToolUse(name="Edit", input={"file_path": 42, "old_string": None}, result="bad input"),
    ToolUse(name="Grep", input=["not", "a", "dict"], result="nothing"),  # type: ignore[arg-type]
    ToolUse(
        name="Edit",
        input={"file_path": "{cwd}/logo.png", "old_string": "a", "new_string": "b"},
        result="ok",
        tool_use_result={"filePath": "{cwd}/logo.png", "originalFile": "\x89PNG\x00\x00binary"},
    ),
    ToolUse(
        name="Edit",
        input={"file_path": "{cwd}/gone.py", "old_string": "a", "new_string": "b"},
        result="File does not exist.",
        is_error=True,
    ),
    Text(text="The answer survives bad input."),
    Result(),
)

CODING_SCENARIOS = (
    Scenario(
        name="coding_turn",
        description="A whole coding turn: streamed thinking, a plan, Read, Grep, Edit with a diff, "
        "Bash, a streamed answer.",
        turns=(CODING_TURN,),
    ),
    Scenario(
        name="every_tool",
        description="A card for every Claude Code tool, with results, a subagent and an image.",
        turns=(EVERY_TOOL,),
    ),
    Scenario(
        name="broken_stream",
        description="The answer's stream breaks mid-message; Claude retries and answers whole.",
        turns=(
            (
                BrokenStream(text="The first attempt was cut off in the middle", deltas=3),
                ApiRetry(attempt=1, max_retries=10, error_status=529, error="overloaded"),
                Text(text="The retried answer, complete."),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="stream_then_overloaded",
        description="The answer's stream breaks; retries fail; Claude Code gives up (529).",
        turns=(
            (
                BrokenStream(text="The first attempt was cut off in the middle", deltas=3),
                ApiRetry(attempt=1, max_retries=1, error_status=529, error="overloaded"),
                AssistantError(error="overloaded", text=OVERLOADED, api_error_status=529),
                Result(
                    is_error=True,
                    result=OVERLOADED,
                    api_error_status=529,
                    terminal_reason="api_error",
                    stop_reason="stop_sequence",
                ),
            ),
        ),
    ),
    Scenario(
        name="bad_stream",
        description="Malformed stream events, unknown blocks, odd tool input, binary and missing "
        "files; the answer still arrives.",
        turns=(BAD_INPUT,),
    ),
    Scenario(
        name="long_stream",
        description=f"One answer streamed as {LONG_STREAM_DELTAS:,} deltas (the benchmark).",
        turns=((Text(text="word " * LONG_STREAM_DELTAS, deltas=LONG_STREAM_DELTAS), Result()),),
    ),
    Scenario(
        name="streamed_answer",
        description="A short answer streamed with a model's pacing (the latency benchmark).",
        turns=((Text(text=_ANSWER, pace=0.01), Result()),),
    ),
)
