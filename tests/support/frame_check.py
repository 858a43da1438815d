"""What one line of the adapter's stdout must be: exactly one JSON-RPC 2.0 frame, strict JSON (no
NaN), a request, a notification or a response, and nothing else."""

from __future__ import annotations

import json
from typing import Any


def _strict_json(line: str) -> Any:
    def reject(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(line, parse_constant=reject)


def check_frame(line: str) -> dict[str, Any]:
    """One stdout line must be exactly one JSON-RPC 2.0 frame: a request, a notification or a
    response, and nothing else."""
    message = _strict_json(line)
    assert isinstance(message, dict), line
    assert message.get("jsonrpc") == "2.0", line
    keys = set(message) - {"jsonrpc"}
    if "method" in message:
        assert isinstance(message["method"], str) and message["method"], line
        assert keys <= {"method", "params", "id"}, line
        if "params" in message:
            assert isinstance(message["params"], dict | list), line
        if "id" in message:  # a request
            assert isinstance(message["id"], int | str) and not isinstance(message["id"], bool)
    else:  # a response
        assert "id" in message, line
        assert ("result" in message) != ("error" in message), line
        assert keys <= {"id", "result", "error"}, line
        if "error" in message:
            error = message["error"]
            assert isinstance(error, dict) and set(error) <= {"code", "message", "data"}, line
            assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str)
    return message
