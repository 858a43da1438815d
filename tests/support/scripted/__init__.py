"""This suite's own scenarios for the scripted Claude, which the product does not ship.

The seeded random sessions `random:<seed>` (`randomized.py`, drawing from `random_tables.py`):
hundreds of sessions of odd steps and endings for `tests/e2e/test_randomized_faults.py`; and
`SCENARIOS`, background work and steering (`background.py`) for the
`test_background_and_steering.py` modules, Claude asking (`asking.py`), and Claude's own work
while a prompt waits in its queue (`own_work.py`) for `tests/e2e/test_prompt_start.py`, and
Claude quoting a provider's header value (`header_quotes.py`) for `tests/e2e/test_providers.py`.
Neither `claude-acp demo` nor `--simulate` plays them. The scripted Claude finds them through
`$CLAUDE_ACP_SCENARIO_MODULES` (`adapter.scripted_claude.scenarios.added_scenario`):
`tests/conftest.py` names this package
there, and `write_launcher` writes it into every launcher a test makes, so a scripted Claude the
real SDK spawns as a subprocess finds them too.

Imported by the fake CLI when it plays one of them: the standard library and the scripted
Claude's own steps only.
"""

from __future__ import annotations

from tests.support.scripted.asking import SCENARIOS as ASKING
from tests.support.scripted.background import SCENARIOS as BACKGROUND
from tests.support.scripted.header_quotes import SCENARIOS as HEADER_QUOTES
from tests.support.scripted.own_work import SCENARIOS as OWN_WORK
from tests.support.scripted.randomized import scenario_named

__all__ = ["MODULE", "SCENARIOS", "scenario_named"]

SCENARIOS = (*BACKGROUND, *ASKING, *OWN_WORK, *HEADER_QUOTES)

# What `$CLAUDE_ACP_SCENARIO_MODULES` names.
MODULE = __name__
