"""Which Claude session an ACP session goes on in, once a plan exit cleared its context.

Theory of operation: an ACP session id is its Claude session id until the user leaves plan mode
with "Yes, clear context ...". The ACP id then stays and
the turn goes on in a new Claude session (a new transcript, a fresh context), so the adapter
keeps the link "ACP id -> current Claude session id". It is durable, so that a later
`session/load`, `resume` or `fork` of the ACP id, even from another adapter process, finds the
continuation: a small private file `<config>/claude-acp/links/<acp id>.json` beside the
never-prompted markers, written the same careful way (`adapter.wire.private_files`: 0600, never
through a link, never another user's file), `{"claude": <current id>, "earlier": [<ids>]}`.
`earlier` names the Claude sessions the ACP session has left behind (newest last, at most
`MAX_EARLIER`), which `session/list` does not show as sessions of their own. A link that is
missing, unreadable, too large or malformed counts as no link: the ACP id is its Claude id.
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from adapter.claude.settings_files import config_home
from adapter.wire.private_files import UnsafeFile, open_private, open_regular, private_folder

__all__ = ["MAX_EARLIER", "Link", "forget", "links", "read", "relink"]

log = logging.getLogger(__name__)

MAX_EARLIER = 16
# Two ids and sixteen earlier ones are well under this; anything longer is not ours.
_LINK_LIMIT = 4096
# How many links `session/list` reads at most (each a few hundred bytes).
_MAX_LINKS = 10_000


@dataclass(frozen=True, slots=True)
class Link:
    acp_id: str
    claude_id: str  # where the session goes on
    earlier: tuple[str, ...]  # the Claude sessions it left, oldest first (not the ACP id's)


def _is_uuid(text: object) -> bool:
    if not isinstance(text, str):
        return False
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _folder(env: Mapping[str, str]) -> Path:
    return config_home(env) / "claude-acp" / "links"


def _path(acp_id: str, env: Mapping[str, str]) -> Path | None:
    # Only a UUID names a file: anything else could climb out of the folder.
    return _folder(env) / f"{acp_id}.json" if _is_uuid(acp_id) else None


def _parse(acp_id: str, raw: bytes) -> Link | None:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not _is_uuid(data.get("claude")):
        return None
    earlier = data.get("earlier", [])
    if not isinstance(earlier, list) or not all(_is_uuid(e) for e in earlier):
        return None
    return Link(acp_id=acp_id, claude_id=data["claude"], earlier=tuple(earlier[-MAX_EARLIER:]))


def _read_path(acp_id: str, path: Path) -> Link | None:
    try:
        with open_regular(path) as file:  # a FIFO planted here must not hang a load
            raw = file.read(_LINK_LIMIT + 1)
    except OSError:
        return None
    return None if len(raw) > _LINK_LIMIT else _parse(acp_id, raw)


def read(acp_id: str, env: Mapping[str, str]) -> Link | None:
    """The ACP session's link, or None when it goes on in its own Claude session."""
    path = _path(acp_id, env)
    return None if path is None else _read_path(acp_id, path)


def relink(acp_id: str, claude_id: str, env: Mapping[str, str]) -> bool:
    """Record that `acp_id` now goes on in Claude session `claude_id`; whether it was kept
    (best effort: the live session goes on either way, a later load then finds the old one)."""
    path = _path(acp_id, env)
    if path is None or not _is_uuid(claude_id):
        return False
    before = read(acp_id, env)
    earlier = [*before.earlier, before.claude_id] if before is not None else []
    body = {"claude": claude_id, "earlier": earlier[-MAX_EARLIER:]}
    try:
        private_folder(path.parent)
        with open_private(path, append=False) as out:
            out.write(json.dumps(body))
    except UnsafeFile as refused:
        log.warning("not recording where session %s goes on: %s", acp_id, refused.reason)
        return False
    except OSError:
        log.warning("could not record where session %s goes on", acp_id)
        return False
    return True


def links(env: Mapping[str, str]) -> list[Link]:
    """Every link this user's adapter keeps (at most `_MAX_LINKS`), for `session/list`."""
    found: list[Link] = []
    try:
        entries = list(_folder(env).glob("*.json"))
    except OSError:
        return found
    for path in entries[:_MAX_LINKS]:
        link = _read_path(path.stem, path) if _is_uuid(path.stem) else None
        if link is not None:
            found.append(link)
    return found


def forget(acp_id: str, env: Mapping[str, str]) -> Link | None:
    """Remove the ACP session's link (`session/delete`); the link it was, if any."""
    path = _path(acp_id, env)
    link = read(acp_id, env)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()
    return link
