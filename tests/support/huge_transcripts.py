"""Huge and broken transcripts in Claude's `projects/` folder, written for the tests that list
and load them: a 40 MiB single line, a file of 200,000 small lines, a first line longer than the
SDK's head read, a half-written tail with bad bytes (`write_transcripts`)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from adapter.claude.transcripts import MAX_TRANSCRIPT_LINE
from adapter.scripted_claude.transcript import sanitize_path

MIB = 1024 * 1024
HUGE_LINE = 40 * MIB  # over the reader's limit (32 MiB)
MANY_LINES = 200_000
# One line in so many of the many is a message to replay; the rest are `progress` entries,
# as Claude Code writes plenty of: read and skipped, not sent (the client's side of 200,000
# updates would cost the suite more than the agent's reading does).
SHOWN_EVERY = 200
LONG_FIRST_LINE = 4 * MIB  # far over the SDK's 64 KiB head read for `session/list`

assert HUGE_LINE > MAX_TRANSCRIPT_LINE > LONG_FIRST_LINE


def user_line(text: str) -> bytes:
    entry = {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(entry).encode() + b"\n"


def assistant_line(text: str) -> bytes:
    entry = {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
        },
    }
    return json.dumps(entry).encode() + b"\n"


def write_transcripts(config_dir: Path, workdir: Path) -> dict[str, str]:
    """The four transcripts of `workdir`, by kind -> session id."""
    folder = config_dir / "projects" / sanitize_path(str(workdir))
    folder.mkdir(parents=True, exist_ok=True)
    ids = {kind: str(uuid.uuid4()) for kind in ("huge", "many", "long_first", "corrupt")}
    with (folder / f"{ids['huge']}.jsonl").open("wb") as out:
        out.write(user_line("before the huge line") + assistant_line("BEFORE"))
        head, _, tail = assistant_line("@").partition(b"@")
        out.write(head + b"x" * HUGE_LINE + tail)
        out.write(assistant_line("AFTER"))
    with (folder / f"{ids['many']}.jsonl").open("wb") as out:
        out.write(user_line("the first of many lines"))
        shown = assistant_line("line NUMBER")
        progress = b'{"type":"progress","uuid":"%d","data":{"type":"hook_progress"}}\n'
        out.writelines(
            shown.replace(b"NUMBER", b"%d" % n) if n % SHOWN_EVERY == 0 else progress % n
            for n in range(1, MANY_LINES)
        )
    with (folder / f"{ids['long_first']}.jsonl").open("wb") as out:
        out.write(user_line("L" * LONG_FIRST_LINE) + assistant_line("LONG ANSWERED"))
        out.write(user_line("the second prompt") + assistant_line("SECOND ANSWERED"))
    with (folder / f"{ids['corrupt']}.jsonl").open("wb") as out:
        out.write(user_line("before the corrupt tail") + assistant_line("INTACT"))
        out.write(b'{"type":"assistant","message":{"content":[{"type":"text","text":"cut \xff\x00')
    return ids
