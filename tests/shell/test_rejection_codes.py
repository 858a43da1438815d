"""The core blames, the shell speaks JSON-RPC: every `Blame` a `RejectPrompt` can carry maps to
ACP's own error code for it, and `fsm/` names no JSON-RPC code at all."""

from __future__ import annotations

from pathlib import Path

from acp import RequestError

from adapter.session.session import REJECTION_CODES
from fsm import Blame

FSM = Path(__file__).resolve().parents[2] / "fsm"


def test_every_blame_maps_to_acps_code_for_it() -> None:
    assert {
        Blame.AUTH: RequestError.auth_required().code,
        Blame.INTERNAL: RequestError.internal_error().code,
    } == REJECTION_CODES


def test_the_core_names_no_json_rpc_code() -> None:
    sources = {p.name: p.read_text(encoding="utf-8") for p in FSM.rglob("*.py")}
    assert [name for name, text in sources.items() if "-32000" in text or "-32603" in text] == []
