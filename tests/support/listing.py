"""The sessions an agent lists: shared by the in-process and end-to-end deletion tests
(test_session_delete.py)."""

from __future__ import annotations

from tests.support.harness import Adapter


async def listed(adapter: Adapter) -> set[str]:
    return set(await adapter.listed_sessions())
