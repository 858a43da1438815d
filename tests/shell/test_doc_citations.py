"""The code cites what is in the repository: every `docs/decisions.md#SLUG` cited anywhere points
at a decision that exists, the decisions keep their anchors, every
`docs/reference-adapter.md#SLUG` points at a section of that page, and no module of the product
cites a document that is not in the repository (a decision by its old row number, a team note,
an issue, a file of the reference adapter's package).

Slugs are the stable names of decisions: they are never renumbered, so a citation stays true as
decisions are added at the end of `docs/decisions.md`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.harness import ROOT

DECISIONS = ROOT / "docs" / "decisions.md"
REFERENCE = ROOT / "docs" / "reference-adapter.md"

# The first decisions, in order; later ones are appended after them.
FIRST_SLUGS = (
    "negotiation",
    "advertising",
    "wire-record",
    "auth-failure-capable-client",
    "auth-failure-legacy-client",
    "verification-and-cloud-credentials",
    "internal-errors",
    "actions",
    "titles",
    "details",
    "retry-progress",
    "turn-ids",
    "session-scoped-ids",
    "replay-ids",
    "recovery",
    "model-fallback",
    "refusal-and-cancellation",
    "never-silent",
    "legacy-clients",
    "capable-clients",
    "delivery",
    "confirmed-from-first-release",
    "notice-identity",
    "error-prose-without-record",
    "title-source-order",
    "failures-between-turns",
    "agent-error-only-clients",
    "replaying-stored-messages",
    "refusal-explanation",
    "internal-faults",
    "secrets",
    "early-limit-warning",
    "limit-that-resets",
    "acp-notices",
    "mcp-server-problems",
    "where-we-differ-from-the-reference",
    "sign-in-that-leads-somewhere",
    "session-delete-from-air",
    "empty-and-placeholder-input",
    "whose-settings-may-loosen-permissions",
    "session-outlives-its-claude",
)

ANCHOR = re.compile(r'^<a id="([a-z0-9-]+)"></a>$', re.M)
CITATION = re.compile(r"decisions\.md#([a-z0-9]+(?:-[a-z0-9]+)*)")
REFERENCE_CITATION = re.compile(r"reference-adapter\.md#([a-z0-9]+(?:-[a-z0-9]+)*)")
LOCAL_LINK = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")

# What a module of `fsm/` or `adapter/` may not cite: documents outside the repository.
FORBIDDEN = {
    "a decision by row number": re.compile(r"\brows? \d+", re.I),
    "the team's decision log": re.compile(r"DECISIONS"),
    "an issue": re.compile(r"\bissues? #?\d+", re.I),
    "the shared folder": re.compile(r"\.\./shared"),
    "a team note": re.compile(
        r"reference-features[\w-]*\.md|(?<!docs/)reference-adapter\.md|python-stack\.md"
        r"|air-extensions\.md|core-design\.md|code-review\.md|layout-and-machines\.md"
        r"|HOUSE_STYLE"
    ),
    "a section of a team note": re.compile(r"\breference (?:D\d+|§)"),
    # The reference adapter's files are in its npm package, not here: cite
    # docs/reference-adapter.md#SLUG, which names them.
    "a file of the reference adapter": re.compile(r"(?<![\w./-])(?!Node\.js\b)[\w./-]+\.js\b"),
}


def _anchors() -> list[str]:
    return ANCHOR.findall(DECISIONS.read_text("utf-8"))


def _reference_anchors() -> list[str]:
    return ANCHOR.findall(REFERENCE.read_text("utf-8"))


def _text_files(*folders: str) -> list[Path]:
    found: list[Path] = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in {".py", ".md", ".txt", ".json"} and path.is_file():
                found.append(path)
    return found


def test_the_decisions_keep_their_anchors_in_order() -> None:
    anchors = _anchors()
    assert tuple(anchors[: len(FIRST_SLUGS)]) == FIRST_SLUGS
    assert len(anchors) == len(set(anchors)), "an anchor is used twice"


def test_each_decision_is_a_heading_with_a_summary() -> None:
    text = DECISIONS.read_text("utf-8")
    for slug in _anchors():
        after = text[text.index(f'<a id="{slug}"></a>') :].splitlines()
        assert after[1].startswith("## "), slug
        assert after[3].startswith("**In short:**"), slug
        if slug in FIRST_SLUGS:
            # The heading's own anchor, as GitHub derives it, is the slug too.
            words = re.sub(r"[^\w\- ]", "", after[1][3:].strip().lower())
            assert words.replace(" ", "-") == slug


def _cited_but_unknown(
    citation: re.Pattern[str], page: Path, known: set[str]
) -> dict[str, list[str]]:
    """Each slug that the code, tests and docs cite by `citation` (and `page` by its own
    local links) but that is not in `known`, with the files citing it."""
    cited: dict[str, set[str]] = {}
    for path in _text_files("fsm", "adapter", "tests", "docs"):
        if path == Path(__file__):
            continue  # this checker's own examples
        text = path.read_text("utf-8")
        slugs = set(citation.findall(text))
        if path == page:
            slugs |= set(LOCAL_LINK.findall(text))
        for slug in slugs:
            cited.setdefault(slug, set()).add(str(path.relative_to(ROOT)))
    return {slug: sorted(where) for slug, where in cited.items() if slug not in known}


def test_every_cited_decision_exists() -> None:
    known = set(_anchors())
    assert _cited_but_unknown(CITATION, DECISIONS, known) == {}
    # README and the changelog link decisions too.
    for name in ("README.md", "CHANGELOG.md"):
        assert set(CITATION.findall((ROOT / name).read_text("utf-8"))) <= known, name


def test_the_check_sees_a_missing_slug() -> None:
    assert CITATION.findall("see docs/decisions.md#no-such-decision.") == ["no-such-decision"]
    assert "no-such-decision" not in _anchors()


def test_each_reference_section_is_a_heading_naming_the_reference_files() -> None:
    text = REFERENCE.read_text("utf-8")
    anchors = _reference_anchors()
    assert anchors, "the page has no sections"
    assert len(anchors) == len(set(anchors)), "an anchor is used twice"
    for slug in anchors:
        after = text[text.index(f'<a id="{slug}"></a>') :].splitlines()
        assert after[1].startswith("### "), slug
        # The reference's file (in its npm package) and what in it, then our module.
        assert re.match(r"\*\*Reference:\*\* `dist/[\w/-]+\.js`", after[3]), slug


def test_every_cited_reference_section_exists() -> None:
    known = set(_reference_anchors())
    assert _cited_but_unknown(REFERENCE_CITATION, REFERENCE, known) == {}
    for name in ("README.md", "CHANGELOG.md"):
        assert set(REFERENCE_CITATION.findall((ROOT / name).read_text("utf-8"))) <= known, name


def test_the_check_sees_a_missing_reference_section() -> None:
    found = REFERENCE_CITATION.findall("(docs/reference-adapter.md#no-such-section)")
    assert found == ["no-such-section"]
    assert "no-such-section" not in _reference_anchors()


def _violations(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in FORBIDDEN.items():
            if pattern.search(line):
                found.append(f"{number}: {what}: {line.strip()}")
    return found


@pytest.mark.parametrize(
    ("line", "flagged"),
    [
        ("# the recovery policy (row 15)", True),
        ("(DECISIONS rows 32-34)", True),
        ("a bug found in issue 26, item 7", True),
        ("reference-features-2.md §2.3", True),
        ("(reference D10)", True),
        ("(`dist/acp-agent.js` `discoverCustomAgents`)", True),
        ("(`session-index.js: withAllBackgroundTasks`)", True),
        ("(`tool-calls/changed-meta-filter.js`)", True),
        ("see reference-adapter.md", True),
        ("# docs/decisions.md#recovery", False),
        ("(`discoverCustomAgents`: docs/reference-adapter.md#agent-picker)", False),
        ("no Node.js needed; `<pid>.json` files", False),
        ("one row per rule; rows are tried in order", False),
    ],
)
def test_the_forbidden_citations_are_recognized(line: str, flagged: bool) -> None:
    assert bool(_violations(line)) is flagged


def test_no_module_of_the_product_cites_a_document_outside_the_repository() -> None:
    offending = {}
    for path in _text_files("fsm", "adapter"):
        if path.suffix != ".py":
            continue
        found = _violations(path.read_text("utf-8"))
        if found:
            offending[str(path.relative_to(ROOT))] = found
    assert offending == {}


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_every_relative_link_in_the_docs_points_at_a_file() -> None:
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        # Links shown as code (`[@name](uri)`) are examples, not links.
        text = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text("utf-8"), flags=re.S)
        for target in LINK.findall(text):
            if target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_changelog_is_for_users_not_a_development_log() -> None:
    text = (ROOT / "CHANGELOG.md").read_text("utf-8")
    # What changed for a user, not which test proves it or which issue asked for it.
    assert re.findall(r"`tests/[^`]*`|\btest_\w+\.py|\bissues? \d+", text) == []
