"""JetBrains AIR's `agentFileChangeReport`: which files a turn changed, reported once per
request before the prompt is answered (docs/client-authors.md, "JetBrains AIR").

Theory of operation: a client that negotiated the capability asks on `session/prompt` with
`_meta.jetbrains.air.agentFileChangeReportRequest {version: 1, requestId}` (exactly those two
keys; the id 1-128 of `A-Za-z0-9._:-`, not used before in the session); anything else is
ignored without a word. When the turn settles, `settle` says what to do: a turn that ended
normally is previewed (Claude Code's file checkpoint, asked what rewinding the prompt would
change, without rewinding), a cancelled one is `unavailable` `cancelled`, a failed one
`providerError`. Claude Code's checkpoint covers the main agent's file tools only, so the
paths subagents changed with file tools (`Edit`, `Write`, `MultiEdit`, `NotebookEdit` results
that did not fail) are collected from the stream and added; when the preview fails they alone
still make a `reported` report. `report` turns what the preview said (or its failure) into
the payload; the shell has resolved every path against the working folder, through its real
folders, and `_paths` keeps what may be shown: no blank, overlong or control-character path,
none outside the session's folders or being one of them, no duplicate, at most 1024 paths and
256 KiB; anything dropped sets `truncated`. `declaredComplete` is always false: Bash changes
are not checkpointed. The reference adapter's file change audit is the model
(docs/reference-adapter.md#file-change-reports). Pure.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fsm.air.meta import air_info_update

__all__ = ["FileChangeReports", "ReportPlan"]

REPORT_KEY = "agentFileChangeReport"
_REQUEST_KEY = "agentFileChangeReportRequest"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_FILE_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path"}
_FILE_TOOLS["NotebookEdit"] = "notebook_path"
_MAX_PATHS = 1024
_MAX_PATH_LENGTH = 4096
MAX_REPORT_BYTES = 256 * 1024
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# How a settled turn is reported, by (failed, stop reason): unavailable for this reason, or by
# the preview (None), which is every answer of a turn that did not fail and was not cancelled.
_UNAVAILABLE: Mapping[tuple[bool, str | None], str] = {
    (False, "cancelled"): "cancelled",
    (True, None): "providerError",
}


@dataclass(frozen=True, slots=True)
class ReportPlan:
    """What the shell does for a settled turn's request: preview Claude Code's checkpoint of
    the prompt `turn_id` (`reason` None), or report it unavailable for `reason`."""

    request_id: str
    turn_id: str
    reason: str | None
    edited: tuple[str, ...] = ()  # what subagents changed with file tools


@dataclass(slots=True)
class _Request:
    request_id: str
    edited: dict[str, None] = field(default_factory=dict)


def _request_id(meta: object) -> str | None:
    jetbrains = meta.get("jetbrains") if isinstance(meta, Mapping) else None
    air = jetbrains.get("air") if isinstance(jetbrains, Mapping) else None
    request = air.get(_REQUEST_KEY) if isinstance(air, Mapping) else None
    if not isinstance(request, Mapping) or set(request) != {"version", "requestId"}:
        return None
    version, request_id = request["version"], request["requestId"]
    if isinstance(version, bool) or version != 1:
        return None
    return request_id if isinstance(request_id, str) and _REQUEST_ID.match(request_id) else None


class FileChangeReports:
    """One session's file-change requests. `enabled`: the client negotiated the capability."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self._seen: set[str] = set()
        self._open: dict[str, _Request] = {}  # by turn id
        self._tools: dict[str, str] = {}  # a subagent's open file-tool call -> its path

    def request(self, turn_id: str, meta: object) -> bool:
        """Take the prompt `turn_id`'s request, if it asks for a report; True when taken."""
        request_id = _request_id(meta) if self.enabled else None
        if request_id is None or request_id in self._seen:
            return False
        self._seen.add(request_id)
        self._open[turn_id] = _Request(request_id)
        return True

    def tool_use(self, tool_id: str, name: str, tool_input: object, parent: str | None) -> None:
        """A tool call Claude made; a subagent's file tool is remembered until its result."""
        key = _FILE_TOOLS.get(name)
        if not self._open or parent is None or key is None or not isinstance(tool_input, Mapping):
            return
        path = tool_input.get(key)
        if isinstance(path, str) and path:
            self._tools[tool_id] = path

    def tool_result(self, tool_id: str, *, is_error: bool) -> None:
        """A tool call's result: a subagent's file edit that did not fail counts for every
        turn whose report is pending."""
        path = self._tools.pop(tool_id, None)
        if path is None or is_error:
            return
        for request in self._open.values():
            request.edited[path] = None

    def settle(self, turn_id: str, *, stop_reason: str | None, failed: bool) -> ReportPlan | None:
        """The turn `turn_id` was answered (`failed`: with a failure; else with `stop_reason`):
        what to report, if its prompt asked."""
        request = self._open.pop(turn_id, None)
        if not self._open:
            self._tools.clear()
        if request is None:
            return None
        reason = _UNAVAILABLE.get((True, None) if failed else (False, stop_reason))
        return ReportPlan(request.request_id, turn_id, reason, tuple(request.edited))

    @staticmethod
    def report(
        plan: ReportPlan,
        *,
        changed: Sequence[object] | None,
        failure: str | None,
        roots: Sequence[str],
    ) -> dict[str, Any]:
        """The `session_info_update` for `plan`: `changed` is what the preview said changed
        (None: no preview, `failure` says why: `timeout`, `invalidOutput`, `providerError`),
        each path and `roots` (the session's folders, the first its working folder) already
        resolved by the shell; `plan.edited` likewise."""
        if plan.reason is not None:
            return _unavailable(plan.request_id, plan.reason)
        if changed is None and not plan.edited:
            return _unavailable(plan.request_id, failure or "providerError")
        paths, truncated = _paths([*(changed or ()), *plan.edited], roots)
        return air_info_update(REPORT_KEY, _fit(plan.request_id, paths, truncated))


def _unavailable(request_id: str, reason: str) -> dict[str, Any]:
    payload = {"version": 1, "requestId": request_id, "status": "unavailable", "reason": reason}
    return air_info_update(REPORT_KEY, payload)


def _within(path: str, root: str) -> bool:
    relative = posixpath.relpath(path, root)
    return not relative.startswith("/") and relative != ".." and not relative.startswith("../")


def _paths(candidates: Iterable[object], roots: Sequence[str]) -> tuple[list[str], bool]:
    kept: list[str] = []
    seen: set[str] = set()
    size = 0
    truncated = False
    for path in candidates:
        if (
            not isinstance(path, str)
            or not path.strip()
            or len(path) > _MAX_PATH_LENGTH
            or _CONTROL.search(path)
            or not posixpath.isabs(path)
            or not any(_within(path, root) for root in roots)
            or path in roots
        ):
            truncated = True
            continue
        if path in seen:
            continue
        length = len(path.encode("utf-8"))
        if len(kept) >= _MAX_PATHS or size + length > MAX_REPORT_BYTES:
            truncated = True
            continue
        seen.add(path)
        kept.append(path)
        size += length
    return kept, truncated


def _fit(request_id: str, paths: list[str], truncated: bool) -> dict[str, Any]:
    def payload() -> dict[str, Any]:
        return {
            "version": 1,
            "requestId": request_id,
            "status": "reported",
            "paths": list(paths),
            "declaredComplete": False,
            "truncated": truncated,
        }

    fitted = payload()
    while len(json.dumps(fitted, ensure_ascii=False).encode("utf-8")) > MAX_REPORT_BYTES and paths:
        paths.pop()
        truncated = True
        fitted = payload()
    return fitted
