"""A minimal newline-delimited JSON-RPC 2.0 client over an agent's stdio, with timestamps.

Deliberately not the `acp` SDK's client: the same thin, fast client drives every agent, so
whatever it costs is the same for all of them, and a timestamp is taken the moment a frame's
line is read. Requests the agent sends to the client (permission, file system, ...) are
answered at once: `session/request_permission` with the first option, anything else with
-32601. Notifications are counted, not kept (a 100,000-line replay would otherwise hold them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Agent", "Reply", "RpcError", "agent_environment", "spawn"]

# Large replays send long lines; asyncio's default 64 KiB line limit is too small for some.
_LINE_LIMIT = 512 * 1024 * 1024  # the reference sends a 100 MiB result as one ~200 MiB line


@dataclass(frozen=True, slots=True)
class Reply:
    sent: float  # perf_counter when the request was written
    received: float  # perf_counter when its response line was read
    result: dict[str, Any]

    @property
    def seconds(self) -> float:
        return self.received - self.sent


class RpcError(Exception):
    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('code')} {error.get('message')}")
        self.error = dict(error)


@dataclass(slots=True)
class Agent:
    """One spawned agent process and the client side of its connection."""

    process: asyncio.subprocess.Process
    spawned_at: float
    notifications: int = 0
    records: int = 0  # notifications that carry a sessionFailure record
    chunks: int = 0  # agent_message_chunk notifications
    first_chunk_at: float | None = None  # perf_counter when the first one was read
    stderr_path: Path | None = None
    _next_id: int = 0
    _pending: dict[int, asyncio.Future[tuple[float, dict[str, Any]]]] = field(default_factory=dict)
    _reader: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def start(self) -> None:
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _write(self, message: Mapping[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        await stdin.drain()

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                line = await stdout.readline()
                if not line:
                    break
                now = time.perf_counter()
                head = line[:160]
                if b'"session/update"' in head and b'"id"' not in head:
                    # The bulk of a replay or a stream: count it without decoding it.
                    self.notifications += 1
                    if b'"agent_message_chunk"' in line:
                        self.chunks += 1
                        if self.first_chunk_at is None:
                            self.first_chunk_at = now
                    if b'"sessionFailure"' in line:
                        self.records += 1
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(message, dict):
                    continue
                await self._dispatch(message, now)
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(EOFError("the agent closed its stdout"))

    async def _dispatch(self, message: dict[str, Any], now: float) -> None:
        method = message.get("method")
        if method is None:
            future = self._pending.pop(message.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result((now, message))
            return
        if "id" not in message:
            self.notifications += 1
            if "sessionFailure" in json.dumps(message.get("params")):
                self.records += 1
            return
        # A request from the agent: answer at once.
        if method == "session/request_permission":
            options = message.get("params", {}).get("options") or [{"optionId": "allow"}]
            outcome = {"outcome": "selected", "optionId": options[0].get("optionId")}
            await self._write(
                {"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}}
            )
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            await self._write({"jsonrpc": "2.0", "id": message["id"], "error": error})

    async def request(
        self, method: str, params: Mapping[str, Any], *, timeout: float = 120.0
    ) -> Reply:
        """Send one request and wait for its response; raises `RpcError` for an error."""
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[tuple[float, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        self._pending[request_id] = future
        sent = time.perf_counter()
        await self._write(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": dict(params)}
        )
        received, message = await asyncio.wait_for(future, timeout)
        if "error" in message:
            raise RpcError(method, message["error"])
        result = message.get("result")
        return Reply(sent, received, result if isinstance(result, dict) else {})

    async def close(self, *, timeout: float = 10.0) -> int | None:
        """Close stdin (the ACP way to end an agent), then wait; kill it past `timeout`."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5.0)
        return self.process.returncode


def agent_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment with `extra`, for an agent under test.

    Without `PYTHONDONTWRITEBYTECODE`: a Python agent (ours, the floor, the scripted Claude)
    then keeps its bytecode from the warm-up run on, as an installed one has it from pip. With
    it, every run compiled the adapter's modules again (a quarter of our start-up's
    instructions, measured) and the benchmark timed the compiler, not the agent.
    """
    return {k: v for k, v in {**os.environ, **extra}.items() if k != "PYTHONDONTWRITEBYTECODE"}


async def spawn(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, stderr_path: Path
) -> Agent:
    """Start `argv` with piped stdio; the returned agent's clock starts just before exec."""
    with stderr_path.open("ab") as stderr:
        spawned_at = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=agent_environment(env),
            cwd=str(cwd),
            limit=_LINE_LIMIT,
        )
    agent = Agent(process=process, spawned_at=spawned_at, stderr_path=stderr_path)
    agent.start()
    return agent
