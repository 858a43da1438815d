"""Git patches of one file's change, as JetBrains AIR's `diffPatch` carries them, as the
reference adapter makes them (docs/reference-adapter.md#git-patch).

The text follows `git diff`: a `diff --git a/<p> b/<p>` header (`<p>` the path with
backslashes turned to `/` and its leading slashes dropped), `new file mode 100644` and a
`/dev/null` side for a created file, a TAB after a `---`/`+++` name that holds a space, names
quoted as git's default `core.quotePath` quotes them, three lines of context, git's hunk
ranges (a side of no lines names the line before it), `\\ No newline at end of file` where it
applies. Hunks come from `difflib.SequenceMatcher` (no junk heuristic) over the changed middle
of the two texts and its context, as the reference trims it; any exact patch of the change is
a right one, not necessarily the bytes jsdiff would choose. A change too large to diff here
(the reference's diff gives up after 100 ms) has no patch: the caller keeps the plain diff.
Pure: the texts come from the caller.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from fsm.air.meta import with_air_meta

__all__ = ["MAX_PATCH_BYTES", "Patch", "file_patch", "patch_block", "patchable"]

# The largest text, in bytes, a patch is made of (the reference's limit).
MAX_PATCH_BYTES = 1024 * 1024
_CONTEXT = 3
# Line pairs the middle of a change may have before it is too large to diff here (about the
# work the reference's diff does in its 100 ms budget).
_MAX_DIFF_PAIRS = 4_000_000
_NO_NEWLINE = "\\ No newline at end of file"
_ESCAPES = {
    0x07: "a",
    0x08: "b",
    0x09: "t",
    0x0A: "n",
    0x0B: "v",
    0x0C: "f",
    0x0D: "r",
    0x22: '"',
    0x5C: "\\",
}
_LINES = re.compile(r"[^\n]*\n|[^\n]+$")


@dataclass(frozen=True, slots=True)
class Patch:
    text: str
    new_starts: tuple[int, ...]  # each hunk's first line in the new text
    created: bool


def patchable(text: str) -> bool:
    """Whether a text can be the new side of an exact patch."""
    return "\0" not in text and "\r" not in text and len(text.encode("utf-8")) <= MAX_PATCH_BYTES


def _quote(full: str) -> str:
    quoted: list[str] = []
    needs = False
    for byte in full.encode("utf-8"):
        escape = _ESCAPES.get(byte)
        if escape is not None:
            quoted.append("\\" + escape)
            needs = True
        elif byte < 0x20 or byte >= 0x7F:
            quoted.append(f"\\{byte:03o}")
            needs = True
        else:
            quoted.append(chr(byte))
    return f'"{"".join(quoted)}"' if needs else full


def _range(start: int, count: int) -> str:
    if count == 0:
        return f"{max(0, start - 1)},0"
    return str(start) if count == 1 else f"{start},{count}"


def _emit(lines: list[str], sign: str, line: str) -> None:
    if line.endswith("\n"):
        lines.append(sign + line[:-1])
    else:
        lines.extend((sign + line, _NO_NEWLINE))


def _hunks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int, list[str]]] | None:
    common = min(len(old), len(new))
    prefix = 0
    while prefix < common and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < common - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    skipped = max(0, prefix - _CONTEXT)
    skipped_end = max(0, suffix - _CONTEXT)
    a, b = old[skipped : len(old) - skipped_end], new[skipped : len(new) - skipped_end]
    if (len(a) - 2 * _CONTEXT) * (len(b) - 2 * _CONTEXT) > _MAX_DIFF_PAIRS:
        return None
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    hunks = []
    for group in matcher.get_grouped_opcodes(_CONTEXT):
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in a[a1:a2]:
                    _emit(lines, " ", line)
                continue
            for line in a[a1:a2]:
                _emit(lines, "-", line)
            for line in b[b1:b2]:
                _emit(lines, "+", line)
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        hunks.append((i1 + 1 + skipped, i2 - i1, j1 + 1 + skipped, j2 - j1, lines))
    return hunks


def file_patch(path: str, old: str | None, new: str) -> Patch | None:
    """The git patch of `path` going from `old` (None: the file did not exist) to `new`;
    None when nothing changed or the change is too large to diff here."""
    if old == new:
        return None
    hunks = _hunks(_LINES.findall(old or ""), _LINES.findall(new))
    if not hunks:
        return None
    name = re.sub(r"^/+", "", path.replace("\\", "/"))
    old_name, new_name = _quote(f"a/{name}"), _quote(f"b/{name}")
    tab = "\t" if " " in name else ""
    created = old is None
    out = [f"diff --git {old_name} {new_name}"]
    if created:
        out.append("new file mode 100644")
    out.append("--- /dev/null" if created else f"--- {old_name}{tab}")
    out.append(f"+++ {new_name}{tab}")
    for old_start, old_count, new_start, new_count, lines in hunks:
        out.append(f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@")
        out.extend(lines)
    out.append("")
    return Patch("\n".join(out), tuple(h[2] for h in hunks), created)


def patch_block(path: str, patch: Patch) -> dict[str, Any]:
    """The `diff` content block carrying the patch (`oldText: null` and `newText: ""` are
    there for ACP's schema only)."""
    payload = {"version": 1, "format": "git_patch", "text": patch.text}
    return {
        "type": "diff",
        "path": path,
        "oldText": None,
        "newText": "",
        "_meta": with_air_meta(None, "diffPatch", payload),
    }
