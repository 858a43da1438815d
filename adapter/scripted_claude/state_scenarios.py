"""Scenarios of the session's state as the editor shows it: tool input as it
streams, tool progress, compaction. Paths may hold `{cwd}` (the session's folder), as in
`coding.py`.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import (
    FireHook,
    Hang,
    RawFrame,
    Result,
    Scenario,
    Text,
    ToolProgress,
    ToolResult,
    ToolUse,
    TurnScript,
)

__all__ = ["STATE_SCENARIOS"]

# Tool calls whose input streams in the pieces given (a field per piece, a file in three),
# one whose streamed input is not JSON, and one whose stream stops while Claude writes it.
TOOL_STREAM = (
    ToolUse(
        name="Bash",
        input={"command": "python -m pytest -q", "description": "Run the tests", "timeout": 60},
        result="..\n2 passed in 0.01s",
        pieces=(
            '{"command": "python -m pytest -q",',
            ' "description": "Run the tests",',
            ' "timeout": 60}',
        ),
    ),
    ToolUse(
        name="Write",
        input={"file_path": "{cwd}/src/new.py", "content": "x = 1\ny = 2\n"},
        result="File created successfully at: {cwd}/src/new.py",
        pieces=('{"file_path": "{cwd}/src/', 'new.py", "content": "x = 1', '\\ny = 2\\n"}'),
    ),
    ToolUse(
        name="Read",
        input={"file_path": "{cwd}/src/app.py"},
        result="     1\tdef greet(name):\n",
        pieces=('{"file_path": "{cwd}/src/app.py" "offset": 1,', ' "limit": 5}'),
    ),
    ToolUse(
        name="Bash",
        input={"command": "sleep 100"},
        result=None,
        pieces=('{"command": "sleep 100",', ' "descri'),
        unfinished=True,
    ),
    Text(text="Streamed."),
    Result(),
)

_BUILD = "toolu_01build00000000000000000"
_AGENT = "toolu_01agent00000000000000000"
# A long Bash beats while it runs (a repeated beat is no news, one after its result none); a
# subagent's tool beats on its Agent call.
TOOL_PROGRESS = (
    ToolUse(name="Bash", input={"command": "make", "description": "Build"}, result=None, id=_BUILD),
    ToolProgress(id=_BUILD, tool_name="Bash", elapsed=1),
    ToolProgress(id=_BUILD, tool_name="Bash", elapsed=2.5),
    ToolProgress(id=_BUILD, tool_name="Bash", elapsed=2.5),
    ToolProgress(id="toolu_01never0000000000000000", tool_name="Bash", elapsed=1),
    ToolResult(id=_BUILD, result="built"),
    ToolProgress(id=_BUILD, tool_name="Bash", elapsed=3),
    ToolUse(
        name="Agent",
        input={"description": "Check the build", "prompt": "Run the checks"},
        result=None,
        id=_AGENT,
    ),
    ToolProgress(id="toolu_01subcall000000000000000", tool_name="Bash", elapsed=4, parent=_AGENT),
    ToolResult(id=_AGENT, result="All good."),
    Text(text="Built."),
    Result(),
)

_SID = "00000000-0000-0000-0000-000000000000"


def _system(subtype: str, **fields: object) -> RawFrame:
    return RawFrame(frame={"type": "system", "subtype": subtype, "session_id": _SID, **fields})


def _summary(ident: str, event: dict[str, object]) -> RawFrame:
    """A stream event of the API's compaction summary (the retained context, streamed)."""
    frame = {"type": "stream_event", "uuid": ident, "session_id": _SID, "event": event}
    return RawFrame(frame={**frame, "parent_tool_use_id": None})


def _kept_boundary(ident: str, metadata: dict[str, object]) -> RawFrame:
    """The boundary frame, and what the real CLI keeps of a compaction in its transcript: the
    boundary (its counts camel-cased) and the summary the conversation goes on from."""
    boundary = f"{ident}-boundary"
    live = _system("compact_boundary", compact_metadata=metadata, uuid=boundary)
    stored = {"trigger": metadata["trigger"], "preTokens": metadata["pre_tokens"]}
    summary = f"This session is being continued from a previous conversation ({ident})."
    kept = (
        {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "level": "info",
            "uuid": boundary,
            "compactMetadata": stored,
        },
        {
            "type": "user",
            "uuid": f"{ident}-summary",
            "isCompactSummary": True,
            "isVisibleInTranscriptOnly": True,
            "message": {"role": "user", "content": summary},
        },
    )
    return RawFrame(frame=live.frame, kept=kept)


def _compaction(
    ident: str, trigger: str, pre: int, post: int, *, summary: tuple[str, ...] = ()
) -> tuple[RawFrame | FireHook, ...]:
    """The frames Claude Code writes for one compaction that succeeds (`summary`: the pieces
    the API streams the retained summary in)."""
    metadata = {"trigger": trigger, "pre_tokens": pre, "post_tokens": post, "duration_ms": 4100}
    streamed = [
        _summary(
            f"{ident}-summary-{n}",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "compaction", "content": piece},
            }
            if n == 0
            else {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "compaction_delta", "content": piece},
            },
        )
        for n, piece in enumerate(summary)
    ]
    # What the PostCompact hook gets: the model's raw summary, scratch and tags included.
    text = "".join(summary) or f"Summary of {ident}."
    kept = f"<analysis>Notes on {ident}.</analysis>\n<summary>{text}</summary>"
    hook = FireHook(event="PostCompact", input={"trigger": trigger, "compact_summary": kept})
    return (
        _system("status", status="compacting", uuid=ident),
        *streamed,
        hook,
        _system("status", status=None, compact_result="success", uuid=f"{ident}-done"),
        _kept_boundary(ident, metadata),
    )


_SUMMARY = ("The user asked for ", "a greeting function.")

# An automatic compaction mid-turn (its summary streamed), then `/compact` (manual), then
# one that fails.
COMPACTION: tuple[TurnScript, ...] = (
    (
        Text(text="Working."),
        *_compaction("compact-auto", "auto", 180000, 12000, summary=_SUMMARY),
        Result(),
    ),
    (*_compaction("compact-manual", "manual", 40000, 3000), Result()),
    (
        _system("status", status="compacting", uuid="compact-failed"),
        _system(
            "status",
            status=None,
            compact_result="failed",
            compact_error="Conversation too short to compact",
            uuid="compact-failed-done",
        ),
        Result(),
    ),
)

# A compaction that never finishes (the turn hangs in it until the client cancels), then a
# `/compact` that succeeds at the same place.
COMPACTION_CUT_SHORT: tuple[TurnScript, ...] = (
    (
        Text(text="Working."),
        _system("status", status="compacting", uuid="compact-cut"),
        _summary(
            "compact-cut-summary",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "compaction", "content": "Half a summ"},
            },
        ),
        Hang(),
    ),
    (*_compaction("compact-after", "manual", 40000, 3000), Result()),
)

STATE_SCENARIOS = (
    Scenario(
        name="tool_stream",
        description="Tool input streamed field by field; input that is not JSON; a call whose "
        "stream stops while its input is written.",
        turns=(TOOL_STREAM,),
    ),
    Scenario(
        name="tool_progress",
        description="Claude Code's tool_progress beats for a running Bash and a subagent's call.",
        turns=(TOOL_PROGRESS,),
    ),
    Scenario(
        name="compaction",
        description="An automatic compaction mid-turn, a /compact, and a compaction that fails.",
        turns=COMPACTION,
    ),
    Scenario(
        name="compaction_cut_short",
        description="A compaction the turn is cancelled in, then a /compact that succeeds.",
        turns=COMPACTION_CUT_SHORT,
    ),
)
