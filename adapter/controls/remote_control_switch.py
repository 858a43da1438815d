"""`/remote-control [name|off]`, answered without a turn: the steps `fsm.claude.remote_control`
describes, performed.

Theory of operation: one `RemoteControlSwitch` per session. `run` takes a prompt that is the
command (the core reads it, `remote_control_command`), refuses it with -32600 while Claude
works or another change runs (`remote_control_refusal`), asks Claude Code (`remote_control`
control request) and answers with one agent message (`remote_control_reply`); the caller then
answers the prompt `end_turn`. While a change runs, `settled` holds back the session's next
prompt, so its turn never takes the reply in. The session's URL is for the user: it is in the
message, and in no log line or title.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from acp import RequestError
from acp.schema import TextContentBlock

from adapter.claude.sdk_compat import send_control_request
from adapter.wire.client_link import ClientLink
from fsm import (
    remote_control_command,
    remote_control_refusal,
    remote_control_reply,
    remote_control_request,
)

__all__ = ["RemoteControlSwitch"]

log = logging.getLogger(__name__)

# Claude Code registers the session with claude.ai: a network round trip, bounded.
CHANGE_SECONDS = 60.0


class RemoteControlSwitch:
    def __init__(self, *, session_id: str, link: ClientLink) -> None:
        self.session_id = session_id
        self._link = link
        self._changing: anyio.Event | None = None

    async def settled(self) -> None:
        """Wait for a change under way (if any) to have answered."""
        if self._changing is not None:
            await self._changing.wait()

    async def run(
        self,
        blocks: list[Any],
        client: Any,
        *,
        working: bool,
        private: tuple[str, ...] = (),
    ) -> bool:
        """Answer the prompt `blocks` if it is the command (True), with Claude Code's `client`;
        raises -32600 when it cannot run now."""
        only = (
            blocks[0].text if len(blocks) == 1 and isinstance(blocks[0], TextContentBlock) else None
        )
        command = remote_control_command(only)
        if command is None:
            return False
        refusal = remote_control_refusal(working=working, changing=self._changing is not None)
        if refusal is not None:
            raise RequestError(-32600, refusal)
        self._changing = changing = anyio.Event()
        try:
            response: Any = None
            error: str | None = None
            try:
                with anyio.fail_after(CHANGE_SECONDS):
                    response = await send_control_request(client, remote_control_request(command))
            except TimeoutError:
                error = "Claude Code did not answer"
            except Exception as exc:
                error = str(exc)
            state = "on" if command.enabled else "off"
            log.info(
                "session %s: Remote Control %s: %s",
                self.session_id,
                state,
                "failed" if error else "done",
            )
            text = remote_control_reply(command, response, error, private)
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            }
            await self._link.send_raw_update(self.session_id, update)
        finally:
            self._changing = None
            changing.set()
        return True
