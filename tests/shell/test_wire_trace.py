"""`adapter/wire/trace.py` alone: how the trace cuts what passes each way into lines, and how it
bounds an endless one. `--trace FILE` on the real command is in `tests/e2e/test_trace.py`."""

from __future__ import annotations

import io
import json

from adapter.wire.trace import WireTrace


class _Kept(io.StringIO):
    def close(self) -> None:  # keep the text readable after the trace closes its file
        pass


def test_trace_cuts_pieces_into_lines_per_direction() -> None:
    out = _Kept()
    trace = WireTrace(out)
    trace.record("agent_to_client", b'{"jsonrpc": "2.0", "id": 1, ')
    trace.record("client_to_agent", b'{"jsonrpc": "2.0", "method": "x"}\n\n')
    trace.record("agent_to_client", b'"result": {}}\n{"partial": ')
    trace.record("client_to_agent", b"not json\n")
    trace.close()
    entries = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(e["direction"], e["message"]) for e in entries] == [
        ("client_to_agent", {"jsonrpc": "2.0", "method": "x"}),
        ("agent_to_client", {"jsonrpc": "2.0", "id": 1, "result": {}}),
        ("client_to_agent", "not json"),
        # An unterminated last line is kept as the text it was.
        ("agent_to_client", '{"partial":'),
    ]
    assert all(e["time"].endswith("Z") for e in entries)


def test_trace_keeps_no_more_than_its_limit_of_an_endless_line() -> None:
    out = _Kept()
    trace = WireTrace(out, limit=10)
    trace.record("client_to_agent", b"x" * 8)
    trace.record("client_to_agent", b"x" * 8)  # over the limit: dropped, not buffered
    trace.record("client_to_agent", b"x" * 8 + b'\n{"ok": 1}\n')
    trace.close()
    entries = [json.loads(line)["message"] for line in out.getvalue().splitlines()]
    assert entries == ["(a line over 10 bytes, not traced)", {"ok": 1}]
