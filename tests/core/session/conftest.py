"""The two cores every narrative starts from: one per client mode, closed afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fsm.session import SessionCore
from tests.support.session_narrative import E1, SID


@pytest.fixture
def capable() -> Iterator[SessionCore]:
    core = SessionCore(session_id=SID, epoch=E1, capable=True)
    yield core
    core.close()


@pytest.fixture
def legacy() -> Iterator[SessionCore]:
    core = SessionCore(session_id=SID, epoch=E1, capable=False)
    yield core
    core.close()
