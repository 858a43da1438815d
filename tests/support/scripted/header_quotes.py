"""A Claude that quotes a model provider's header value on its stderr as it starts, as Claude
Code's own debug output may: for tests/e2e/test_providers.py, where the adapter logs that line
(at DEBUG) with the value masked, once a `providers/set` made it private
(docs/decisions.md#provider-requests).
"""

from __future__ import annotations

from adapter.scripted_claude.steps import Result, Scenario, Stderr, Text

__all__ = ["HEADER_VALUE", "SCENARIOS"]

# The header value the test sets and this Claude quotes.
HEADER_VALUE = "gw-quoted-made-up-secret-0123456789"

SCENARIOS = [
    Scenario(
        name="quotes_its_headers",
        description="",
        before_handshake=(Stderr(line=f"claude: sent x-gateway-key {HEADER_VALUE}"),),
        turns=((Text(text="Routed."), Result()),),
    ),
]
