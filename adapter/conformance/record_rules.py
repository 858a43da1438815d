"""The rules one record (and the `_meta.jetbrains.air` object around it) must keep by itself.

Theory of operation: `record_problems(record, air)` returns `(rule, message)` pairs: extra
keys in the record or its wrapper, unknown or repeated actions, actions on a warning, and the
title rules (at most 256 characters; one paragraph, and one line when details follow; words,
not a bare code; nothing private; details that add to the title). Stateless; stateful rules
live in `checks.py` and `turn_rules.py`.

The other half of docs/decisions.md#details, "details only when the text would not fit a title", is
not checked: a short message of two paragraphs is rightly split (title the first, details the rest),
and a log cannot tell a paragraph break the split removed from a line break, so any such judgement
would flag valid records.
"""

from __future__ import annotations

import json
import re
from typing import Any

from adapter.conformance.contract import RECORD_KEYS, TITLE_LIMIT, looks_private
from adapter.conformance.frames import KNOWN_ACTIONS

__all__ = ["AIR_KEYS", "leak", "record_problems"]

# The wrapper holds the version and the record; nothing else rides beside a record.
AIR_KEYS = frozenset({"version", "sessionFailure"})

# A code, not words: `error_max_turns`, `rate_limit`, `invalid_request`.
_BARE_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_STACK = re.compile(
    r"Traceback \(most recent call last\)"  # Python
    r"|File \"[^\"]+\", line \d+"  # Python frame
    r"|\n\s*at \S.*[(\s][^()\s]+:\d+:\d+\)?"  # JavaScript frame
)
# `ValueError: …`, `anyio.EndOfStream: …`: a raw exception's str() (not "API Error: 500").
_EXCEPTION = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit)\b(?::|$)")

Problem = tuple[str, str]


def leak(text: str) -> str | None:
    """What private thing `text` holds, if any: a credential or home path (what the adapter's
    own masking would change), a stack trace, or an exception string."""
    if _STACK.search(text):
        return "a stack trace"
    if _EXCEPTION.match(text.strip()):
        return "an exception string"
    if looks_private(text):
        return "a credential or a private path"
    return None


def _title_problems(title: str, details: object) -> list[Problem]:
    problems: list[Problem] = []
    if len(title) > TITLE_LIMIT:
        problems.append(
            ("title-too-long", f"the title has {len(title)} characters (at most {TITLE_LIMIT})")
        )
    if re.search(r"\n\s*\n", title.strip()):
        problems.append(("title-paragraphs", "the title holds more than one paragraph"))
    elif isinstance(details, str) and "\n" in title.strip():
        problems.append(("title-paragraphs", "a title with details must be a single line"))
    if _BARE_CODE.fullmatch(title.strip()):
        problems.append(("title-bare-code", f"the title is a bare code: {title.strip()!r}"))
    for name, text in (("title", title), ("details", details)):
        found = leak(text) if isinstance(text, str) else None
        if found is not None:
            problems.append(("title-leak", f"the {name} holds {found}"))
    if isinstance(details, str) and details.strip():
        stripped = details.strip()
        if stripped == title.strip() or stripped.startswith(title.strip()):
            problems.append(("record-details", "details repeat the title"))
    return problems


def record_problems(record: dict[str, Any], air: dict[str, Any] | None) -> list[Problem]:
    """Every single-record rule `record` breaks, in a stable order (ill-typed fields are
    `record_field_problems`' to report; the rules here skip them)."""
    problems: list[Problem] = []
    if air is not None:
        extra = sorted(str(k) for k in air if k not in AIR_KEYS)
        if extra:
            problems.append(
                ("air-extra-key", f"_meta.jetbrains.air also holds: {', '.join(extra)}")
            )
    extra = sorted(str(k) for k in record if k not in RECORD_KEYS)
    if extra:
        problems.append(("record-extra-key", f"keys outside the contract: {', '.join(extra)}"))
    listed = record.get("actions")
    # Only strings: an ill-typed list is already a record-field problem.
    actions = [a for a in listed if isinstance(a, str)] if isinstance(listed, list) else []
    unknown = [a for a in actions if a not in KNOWN_ACTIONS]
    if unknown:
        problems.append(("record-actions", f"unknown actions {json.dumps(unknown)}"))
    repeated = sorted({a for a in actions if actions.count(a) > 1})
    if repeated:
        problems.append(("record-actions", f"actions listed twice: {json.dumps(repeated)}"))
    if record.get("severity") == "warning" and actions:
        problems.append(("warning-actions", f"a warning with actions {json.dumps(actions)}"))
    title = record.get("title")
    if isinstance(title, str) and title.strip():
        problems.extend(_title_problems(title, record.get("details")))
    return problems
