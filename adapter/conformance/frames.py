"""Single-frame facts: JSON-RPC 2.0 shape, where sessionFailure records sit, record fields.

Theory of operation: everything here looks at one frame (or one record) and answers without
state, so the client view and the checker read frames the same way. Stateful rules (request
bookkeeping, revisions, negotiation) live in `checks.py`; what a client shows lives in
`client_view.py`. Functions take `object`, never assume a shape, and never raise: a log from
an arbitrary agent may hold anything.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adapter.conformance import contract

__all__ = [
    "CATEGORIES",
    "KNOWN_ACTIONS",
    "REQUIRED_KEYS",
    "SEVERITIES",
    "FoundRecord",
    "as_dict",
    "filter_actions",
    "find_records",
    "id_key",
    "is_request",
    "is_response",
    "record_field_problems",
    "rpc_problems",
]

CATEGORIES = contract.CATEGORIES
SEVERITIES = contract.SEVERITIES
KNOWN_ACTIONS = contract.ACTIONS
REQUIRED_KEYS = ("id", "revision", "category", "severity", "title", "actions")
# `details` is the one optional key; anything else is an extra key (docs/decisions.md#wire-record).
assert frozenset(REQUIRED_KEYS) | {"details"} == contract.RECORD_KEYS


def as_dict(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (so lookups never raise)."""
    return value if isinstance(value, dict) else {}


def id_key(request_id: object) -> str:
    # JSON ids 1 and "1" differ, and Python's True == 1 would merge them in a dict: key on
    # the JSON spelling instead.
    return json.dumps(request_id, sort_keys=True)


def is_request(frame: object) -> bool:
    """A request or notification (it has a method)."""
    return isinstance(frame, dict) and "method" in frame


def is_response(frame: object) -> bool:
    return (
        isinstance(frame, dict)
        and "method" not in frame
        and "id" in frame
        and ("result" in frame or "error" in frame)
    )


def _valid_id(value: object) -> bool:
    # JSON-RPC 2.0: a string, a number or null; a bool is none of them.
    return (
        value is None
        or isinstance(value, str | float)
        or (isinstance(value, int) and not isinstance(value, bool))
    )


def rpc_problems(frame: object) -> list[str]:
    """Why `frame` is not a JSON-RPC 2.0 request, notification or response (empty if it is)."""
    if not isinstance(frame, dict):
        return [f"a frame must be a JSON object, not {type(frame).__name__}"]
    problems: list[str] = []
    if frame.get("jsonrpc") != "2.0":
        problems.append(f'"jsonrpc" must be "2.0", not {json.dumps(frame.get("jsonrpc"))}')
    if "id" in frame and not _valid_id(frame["id"]):
        problems.append(f'"id" must be a string, a number or null: {json.dumps(frame["id"])}')
    if "method" in frame:
        if not isinstance(frame["method"], str):
            problems.append('"method" must be a string')
        if "params" in frame and not isinstance(frame["params"], dict | list):
            problems.append('"params" must be an object or an array')
        if "result" in frame or "error" in frame:
            problems.append("a request carries no result or error")
        return problems
    if "id" not in frame:
        problems.append("neither a request (no method) nor a response (no id)")
    elif ("result" in frame) == ("error" in frame):
        problems.append("a response carries exactly one of result and error")
    elif "error" in frame:
        error = frame["error"]
        if not isinstance(error, dict):
            problems.append('"error" must be an object')
        else:
            code = error.get("code")
            if not isinstance(code, int) or isinstance(code, bool):
                problems.append('"error.code" must be an integer')
            if not isinstance(error.get("message"), str):
                problems.append('"error.message" must be a string')
    return problems


@dataclass(frozen=True, slots=True)
class FoundRecord:
    """A `sessionFailure` key found anywhere in a frame."""

    path: tuple[str | int, ...]  # from the frame root to the `sessionFailure` key itself
    record: object  # the value, unchecked
    air: dict[str, Any] | None  # the enclosing `_meta.jetbrains.air`, when that is where it sits

    @property
    def where(self) -> str:
        return ".".join(str(p) for p in self.path)

    @property
    def meta_path(self) -> tuple[str | int, ...] | None:
        """The path of the enclosing `_meta`, when the record sits at `_meta.jetbrains.air`."""
        if self.path[-4:-1] == ("_meta", "jetbrains", "air"):
            return self.path[:-3]
        return None


def find_records(frame: object) -> list[FoundRecord]:
    """Every `sessionFailure` key in `frame`, wherever it sits.

    The whole frame is searched, not only the two carriers, so a record smuggled onto another
    surface (an agent_message_chunk's `_meta`, an error's `data`) is found and can be flagged.
    """
    return list(_walk(frame, ()))


def _walk(node: object, path: tuple[str | int, ...]) -> Iterator[FoundRecord]:
    if isinstance(node, dict):
        for key, value in node.items():
            here = (*path, key)
            if key == "sessionFailure":
                air = node if path[-3:] == ("_meta", "jetbrains", "air") else None
                yield FoundRecord(here, value, air)
            else:
                yield from _walk(value, here)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, (*path, index))


def _non_empty_str(value: object) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _positive_int(value: object) -> bool:
    # JSON has one number type, but `2.0` is not how an integer field is spelled, and
    # Python's bool is an int: neither passes.
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def record_field_problems(record: object) -> list[str]:
    """Missing or ill-typed required fields (and an ill-typed `details`), one line each.

    A record with none of these problems is one a client can render; extra keys and the
    other rules (`record_rules.record_problems`) are reported separately.
    """
    if not isinstance(record, dict):
        return [f"the record must be a JSON object, not {type(record).__name__}"]
    problems = [f'missing required field "{key}"' for key in REQUIRED_KEYS if key not in record]
    if "id" in record and not _non_empty_str(record["id"]):
        problems.append(f'"id" must be a non-empty string: {json.dumps(record["id"])}')
    if "revision" in record and not _positive_int(record["revision"]):
        problems.append(f'"revision" must be a positive integer: {json.dumps(record["revision"])}')
    if "category" in record and record["category"] not in CATEGORIES:
        problems.append(
            f'"category" must be one of {", ".join(sorted(CATEGORIES))}: '
            f"{json.dumps(record['category'])}"
        )
    if "severity" in record and record["severity"] not in SEVERITIES:
        problems.append(f'"severity" must be warning or error: {json.dumps(record["severity"])}')
    if "title" in record and not _non_empty_str(record["title"]):
        problems.append(f'"title" must be a non-empty string: {json.dumps(record["title"])}')
    if "actions" in record:
        actions = record["actions"]
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            problems.append(f'"actions" must be a list of strings: {json.dumps(actions)}')
    if "details" in record and not _non_empty_str(record["details"]):
        problems.append(
            f'"details", when present, must be a non-empty string: {json.dumps(record["details"])}'
        )
    return problems


def filter_actions(actions: object) -> tuple[str, ...]:
    """What a client keeps: known actions, first occurrence first, duplicates dropped."""
    if not isinstance(actions, list):
        return ()
    kept: list[str] = []
    for action in actions:
        if isinstance(action, str) and action in KNOWN_ACTIONS and action not in kept:
            kept.append(action)
    return tuple(kept)
