"""`claude-acp conformance LOG`: check any agent's ACP wire log against the sessionFailure spec.

Reads a log of one ACP connection (every JSON-RPC frame, both directions), rebuilds the
transcript a client that opted in would show from it, and reports, with its frame number (the
1-based line number in the log), every place where the agent breaks JSON-RPC 2.0 or the
sessionFailure extension of claude-agent-acp (negotiation, the record and its wrapper, ids and
revisions, carriers, titles in Claude's own words), and this project's rulings where that
extension leaves a choice open (id formats, title length, nothing private in what a client
shows).

Log format
----------
One frame per line, UTF-8. Blank lines and lines starting with `#` are skipped. A line is
either a JSON object holding a direction and a frame:

    {"direction": "outgoing", "message": {"jsonrpc": "2.0", "id": 1, "method": "..."}}

    direction key: "direction" or "dir"
    frame key:     "message", "frame", "payload" or "msg" (a JSON string holding the frame
                   is decoded too)
    direction:     "outgoing" | "send" | ">"  -- sent by the recorder
                   "incoming" | "recv" | "<"  -- received by the recorder
                   "client_to_agent" | "c2a"  -- always client to agent
                   "agent_to_client" | "a2c"  -- always agent to client

or an arrow followed by the JSON frame:

    -> {"jsonrpc": "2.0", ...}     >>> {"jsonrpc": "2.0", ...}    sent by the recorder
    <- {"jsonrpc": "2.0", ...}     <<< {"jsonrpc": "2.0", ...}    received by the recorder

The recorder is the client by default (the log `claude-acp demo --log FILE` writes, and the
end-to-end harness keeps, where "outgoing" is client to agent). `--agent-side` says the agent
recorded the log, so sent/received swap; the absolute directions never swap. A line that
cannot be read is reported as an `unparseable` violation and checking goes on.

Exit status: 0 no violations, 1 violations found, 2 usage error, unreadable file, or a log
that holds no frame at all (nothing to judge is not a pass).
`--json` prints a machine-readable report instead of the text one.

Modules: `log` reads logs; `frames` holds single-frame facts; `client_view` is the client-side
rules (`ClientTranscript`, also used by tests/support/harness.py); `rules` names the rules;
`record_rules`, `response_rules`, `turn_rules` and `checks` apply them; `report` the output.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from adapter.conformance.checks import Checker, Report, Violation, check_log
from adapter.conformance.client_view import ClientTranscript
from adapter.conformance.log import read_log, read_log_file
from adapter.conformance.report import render_json, render_text
from adapter.conformance.rules import RULES

__all__ = [
    "RULES",
    "Checker",
    "ClientTranscript",
    "Report",
    "Violation",
    "check_file",
    "check_log",
    "main",
]


def check_file(path: Path, *, agent_side: bool = False) -> Report:
    """Check the log at `path` (`-` reads stdin). OSError propagates."""
    if str(path) == "-":
        return check_log(read_log(sys.stdin.buffer.read().split(b"\n"), agent_side=agent_side))
    return check_log(read_log_file(path, agent_side=agent_side))


def _parser() -> argparse.ArgumentParser:
    rules = "\n".join(
        textwrap.fill(text, 96, initial_indent=f"  {name:<21}", subsequent_indent=" " * 23)
        for name, text in RULES.items()
    )
    doc = __doc__ or ""
    usage_doc = doc[doc.index("Log format") : doc.index("Modules:")].rstrip()
    parser = argparse.ArgumentParser(
        prog="claude-acp conformance",
        description=doc.split("\n\n")[1] if doc else None,
        epilog=f"{usage_doc}\n\nRules (a violation names the rule it breaks):\n{rules}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("log", type=Path, help="the wire log (JSON lines; - for stdin)")
    parser.add_argument(
        "--agent-side",
        action="store_true",
        help="the agent recorded the log: sent/outgoing means agent to client",
    )
    parser.add_argument("--json", action="store_true", help="print a machine-readable report")
    return parser


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): a status, not an exception
        return exc.code if isinstance(exc.code, int) else 2
    try:
        report = check_file(args.log, agent_side=args.agent_side)
    except OSError as exc:
        print(
            f"claude-acp conformance: cannot read {args.log}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    if report.frames == 0:
        print(f"claude-acp conformance: {args.log} holds no frames to check", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(render_json(report), indent=2, ensure_ascii=False))
    else:
        print(render_text(report))
    return 1 if report.violations else 0
