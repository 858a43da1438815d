"""The failure record: the value object every carrier and dialect is projected from.

Theory of operation: a `FailureRecord` holds exactly the wire fields of the sessionFailure
record (`id, revision, category, severity, title, details?, actions`) plus `kind`, which is
internal and never serialized by the sessionFailure dialect (other dialects may use it). Titles
are shaped here once (docs/decisions.md#titles and #details): text that fits stays whole in `title`;
longer or multi-paragraph text keeps its first line or sentence as `title` and the rest as
`details`. Text taken from Claude passes through `redact` first, so a credential that Claude echoed
never reaches a title, and through `visible`, so no control character or escape sequence does
either.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from fsm.errors import PeerViolation
from fsm.visible_text import visible
from fsm.vocabulary import Action, Category, FailureKind, Severity

__all__ = ["TITLE_LIMIT", "FailureRecord", "redact", "shape_title"]

TITLE_LIMIT = 256

# A Basic/Bearer credential: 8+ token characters with a digit, a base64 mark (`=`, `+`, `/`)
# or a camel hump ("dXNlcjpwYXNz"); "Basic authentication" has none of them.
_CREDENTIAL = r"(?=[A-Za-z0-9._~+/=\-]*(?:[0-9=+/]|[a-z][A-Z]))[A-Za-z0-9._~+/=\-]{8,}"
# Names whose value is a secret, in `name=value`, `name: value` and `"name": "value"` forms.
_SECRET_NAME = (
    r"(?:[a-z]+[_-])?(?:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|"
    r"client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|"
    r"password|passwd|authorization|credentials?)"
)

# Each pattern with its flags and replacement; compiled by the first `redact` (compiling all of
# them costs the agent's start-up about 30 million instructions, and most processes never
# redact anything before their first session's failure or log line).
_SECRET_SOURCES: tuple[tuple[str, int, str], ...] = (
    # Anthropic keys, bearer and basic credentials, JSON web tokens.
    (r"sk-ant-[A-Za-z0-9_\-]+", 0, "sk-ant-***"),
    (r"\b(Bearer|Basic)\s+" + _CREDENTIAL, 0, r"\1 ***"),
    (r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*", 0, "***"),
    # Provider tokens by their documented prefixes: AWS access key ids, GitHub tokens (classic
    # and fine-grained), Slack tokens.
    (r"\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b", 0, "AKIA***"),
    (r"\bgh[pousr]_[A-Za-z0-9]{20,}", 0, "gh_***"),
    (r"\bgithub_pat_[A-Za-z0-9_]{20,}", 0, "github_pat_***"),
    (r"\bxox[abposr]-[A-Za-z0-9-]{8,}", 0, "xox-***"),
    (r"\bxapp-[A-Za-z0-9-]{8,}", 0, "xapp-***"),
    # JSON-style `"api_key": "…"`: the quoted value, whatever it looks like.
    (
        r"(\"" + _SECRET_NAME + r"\"\s*:\s*\")(?:[^\"\\]|\\.)*\"",
        re.IGNORECASE,
        r'\1***"',
    ),
    # `api_key=…` is an assignment: whatever follows is the value. `password: …` may be prose
    # ("the secret: restart it"), so there the value must look like one (a digit, 6+ chars).
    (r"\b(" + _SECRET_NAME + r"\s*=\s*)[^\s&,;]+", re.IGNORECASE, r"\1***"),
    (
        r"\b(" + _SECRET_NAME + r"\s*:\s*)(?=\S*\d)[^\s,;]{6,}",
        re.IGNORECASE,
        r"\1***",
    ),
    # Credentials inside URLs: scheme://user:password@host, and a bare scheme://token@host.
    (r"([a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]+@", re.IGNORECASE, r"\1***@"),
    (r"([a-z][a-z0-9+.\-]*://)" + _CREDENTIAL + "@", re.IGNORECASE, r"\1***@"),
    # Private paths under a user's home (`/root` only as a whole path segment: "/rootfs" is
    # not a home), POSIX and Windows.
    (
        r"(?<![\w/])(?:/home/[^/\s]+|/Users/[^/\s]+|/root(?![\w-]))(?:/[^\s'\"]*)?",
        0,
        "~/\u2026",
    ),
    (r"\b[A-Za-z]:\\Users\\[^\\\s]+(?:\\[^\s'\"]*)?", 0, "~\\\u2026"),
)


# The patterns compiled so far, in `_SECRET_SOURCES`' order.
_compiled: list[tuple[re.Pattern[str], str]] = []


def compile_secret_patterns(most: int) -> bool:
    """Compile up to `most` more of the patterns `redact` masks with (each about 0.15 ms, all
    about 2.5 ms); True while some are left. The shell spreads them over moments nobody waits
    for, a few at a time, so that none of those moments runs long (docs/performance.md)."""
    for _ in range(most):
        if len(_compiled) == len(_SECRET_SOURCES):
            break
        source, flags, replacement = _SECRET_SOURCES[len(_compiled)]
        _compiled.append((re.compile(source, flags), replacement))
    return len(_compiled) < len(_SECRET_SOURCES)


@functools.cache
def _secret_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    compile_secret_patterns(len(_SECRET_SOURCES))
    return tuple(_compiled)


def redact(text: str, private: tuple[str, ...] = ()) -> str:
    """Mask credential-shaped substrings, home paths and the given private values (the shell
    passes environment values such as `$HOME`); leave ordinary text untouched."""
    if len(text) <= _CACHED_TEXT:
        return _redact_short(text, private)
    return _redact(text, private)


# Short texts repeat (a replay restores the same usage-limit title a thousand times, each
# through some fifteen regular expressions): those are remembered, boundedly.
_CACHED_TEXT = 1024


@functools.lru_cache(maxsize=256)
def _redact_short(text: str, private: tuple[str, ...]) -> str:
    return _redact(text, private)


def _redact(text: str, private: tuple[str, ...]) -> str:
    for value in sorted(private, key=len, reverse=True):
        if len(value) >= 4:
            # Whole values only: a home of "/root" must not eat the start of "/rootfs".
            text = re.sub(re.escape(value) + r"(?![\w-])", "***", text)
    for pattern, replacement in _secret_patterns():
        text = pattern.sub(replacement, text)
    return text


def _first_sentence(line: str) -> tuple[str, int]:
    # The first sentence when it fits; otherwise cut at a word boundary and mark the cut.
    # Returns the title and how much of `line` it consumed.
    match = re.search(r"[.!?](?=\s)", line)
    if match is not None and match.end() <= TITLE_LIMIT:
        return line[: match.end()], match.end()
    cut = line.rfind(" ", 0, TITLE_LIMIT - 1)
    if cut <= 0:
        cut = TITLE_LIMIT - 1
    return line[:cut].rstrip() + "\u2026", cut


def shape_title(text: str) -> tuple[str, str | None]:
    """Split user-facing text into `(title, details)` per docs/decisions.md#details.

    `details` is `None` when the whole text fits: at most 256 characters and one paragraph.
    Otherwise `title` is the first line (or, when that is too long, its first sentence) and
    `details` is everything after it.
    """
    text = visible(text.strip(), lines=True)
    one_paragraph = re.search(r"\n\s*\n", text) is None
    if len(text) <= TITLE_LIMIT and one_paragraph:
        # one line break is not a paragraph: kept, as the tests of docs/decisions.md#details say
        return text, None
    first_line, _, after = text.partition("\n")
    first_line = first_line.strip()
    if len(first_line) <= TITLE_LIMIT:
        return first_line, _details(first_line, after)
    title, consumed = _first_sentence(first_line)
    return title, _details(title, first_line[consumed:] + "\n" + after)


def _details(title: str, rest: str) -> str | None:
    # docs/decisions.md#details: details add to the title, never repeat it ("Failed.\n\nFailed." is
    # one message).
    rest = rest.strip()
    return rest if rest and rest != title else None


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureRecord:
    """One revision of one incident, as the client will store it."""

    id: str
    revision: int
    category: Category
    severity: Severity
    title: str
    actions: tuple[Action, ...]
    details: str | None = None
    kind: FailureKind
    # Internal: when Claude said the operation may be retried (the api_retry delay, a rate-limit
    # reset). Never in the sessionFailure record; the agent_error dialect carries them.
    retry_after_seconds: float | None = None
    reset_at_epoch_ms: int | None = None

    def __post_init__(self) -> None:
        if not self.id:
            raise PeerViolation("a failure record needs a non-empty id")
        if self.revision < 1:
            raise PeerViolation("a failure record's revision starts at 1")
        if not self.title:
            raise PeerViolation("a failure record needs a title")
        if self.severity is Severity.WARNING and self.actions:
            raise PeerViolation("a warning carries no actions")
        if self.details is not None and (not self.details or self.details == self.title):
            raise PeerViolation("details must add to the title, never repeat it")
