"""Rendering a conformance `Report`: readable text, or JSON for machines.

Theory of operation: the text report is three blocks (the rebuilt transcript, one line per
entry; the violations, one line each; the one-line summary `N frames, M records, K violations`,
always last so scripts can `tail -1` it). The JSON report holds the same facts with stable keys.
Rendering never changes the report.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from adapter.conformance.checks import Report, Violation
from adapter.conformance.client_entries import (
    Entry,
    FailureEntry,
    MessageEntry,
    RejectionEntry,
    ToolEntry,
)

__all__ = ["describe_entry", "describe_violation", "render_json", "render_text", "summary"]


def _short(text: str, limit: int = 120) -> str:
    # One line per entry: fold whitespace (chunks carry newlines) and cut long text.
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _frames(entry: Entry) -> str:
    if entry.first_frame == entry.last_frame:
        return f"frame {entry.first_frame}"
    return f"frames {entry.first_frame}-{entry.last_frame}"


def describe_entry(entry: Entry) -> str:
    """One readable line for a transcript entry."""
    if isinstance(entry, MessageEntry):
        body = f'"{_short(entry.text)}"'
    elif isinstance(entry, ToolEntry):
        body = (
            f"{entry.title or '(untitled)'} [{entry.status or 'no status'}]  {entry.tool_call_id}"
        )
    elif isinstance(entry, RejectionEntry):
        body = f"JSON-RPC error {entry.code}: {_short(entry.message)}"
    else:
        body = _failure(entry)
    return f"{entry.kind:<9}{body}  ({_frames(entry)})"


def _failure(entry: FailureEntry) -> str:
    actions = ", ".join(entry.actions) or "none"
    text = (
        f"{entry.severity} {entry.category}  id={entry.id}  revision {entry.revision}"
        f'  "{_short(entry.title)}"'
    )
    if entry.details:
        text += f'  details: "{_short(entry.details, 60)}"'
    return f"{text}  actions: {actions}  via {entry.carrier}"


def describe_violation(violation: Violation) -> str:
    return f"frame {violation.frame}: [{violation.rule}] {violation.message}"


def summary(report: Report) -> str:
    return f"{report.frames} frames, {report.records} records, {len(report.violations)} violations"


def render_text(report: Report) -> str:
    lines: list[str] = []
    transcript = report.transcript
    sessions = transcript.sessions
    if not sessions:
        lines.append("Transcript: (empty)")
    for session in sessions:
        entries = transcript.session_entries(session)
        lines.append(f"Transcript of session {session or '(none named)'}:")
        lines.extend(f"  {describe_entry(entry)}" for entry in entries)
        if not entries:
            lines.append("  (empty)")
    lines.append("")
    if report.violations:
        lines.append("Violations:")
        lines.extend(f"  {describe_violation(v)}" for v in report.violations)
    else:
        lines.append("Violations: none")
    lines.append("")
    lines.append(summary(report))
    return "\n".join(lines)


def render_json(report: Report) -> dict[str, Any]:
    return {
        "ok": not report.violations,
        "frames": report.frames,
        "records": report.records,
        "negotiated": report.negotiated,
        "transcript": [
            {"kind": entry.kind, **dataclasses.asdict(entry)} for entry in report.transcript.entries
        ],
        "violations": [dataclasses.asdict(v) for v in report.violations],
        "summary": summary(report),
    }
