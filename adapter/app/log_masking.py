"""Log lines are safe to share: secrets masked, client text escaped, tracebacks only at DEBUG.

Installed as the logging record factory, so it covers every logger (ours, the SDKs') and every
handler (stderr, a log file) alike:

- the message is masked with `fsm.records.redact` (credential shapes, private paths, the
  adapter's own secret-named environment values; docs/decisions.md#secrets);
- control characters in it (newlines, NULs, ...) are escaped, so an id or a line of text from
  the client or from Claude can never forge a log line, and a message longer than
  `MESSAGE_LIMIT` is cut;
- a traceback rides only on an ERROR (a bug of ours, docs/decisions.md#internal-faults) or when
  DEBUG is on for that logger; a WARNING about bad input stays one line, naming the exception's
  type.
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Callable
from typing import Any

__all__ = [
    "MESSAGE_LIMIT",
    "escape_controls",
    "install_log_masking",
    "mask_log_text",
]

_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def escape_controls(text: str) -> str:
    """`text` on one line: every control character as its Python escape (`\\n`, `\\x00`)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def _nothing_private() -> tuple[str, ...]:
    return ()


# Where the values to mask are read, at each record: `install_log_masking`'s.
_private: Callable[[], tuple[str, ...]] = _nothing_private


# The longest log message kept whole: a megabyte of client text is not a log line.
MESSAGE_LIMIT = 4000


def mask_log_text(text: str) -> str:
    """One log message as it may be written: masked, on one line, of bounded length."""
    if len(text) > MESSAGE_LIMIT:
        text = f"{text[:MESSAGE_LIMIT]}\u2026 ({len(text):,} characters)"
    return escape_controls(_redact(text))


def _redact(text: str) -> str:
    # Imported by the first record written: the core's records module (and its vocabulary)
    # is not needed to answer `initialize`, and no record is made before it at the default
    # level (`tests/shell/test_startup_imports.py`).
    from fsm import redact

    return redact(text, _private())


class _MaskedRecord(logging.LogRecord):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._masked: str | None = None
        if self.exc_info and self.exc_info[1] is not None:
            exc = self.exc_info[1]
            quiet = self.levelno < logging.ERROR
            if quiet and not logging.getLogger(self.name).isEnabledFor(logging.DEBUG):
                self.exc_info = None
                self._suffix = f" ({type(exc).__name__})"
            else:
                lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
                self.exc_text = _redact("".join(lines).rstrip("\n"))

    _suffix = ""

    def getMessage(self) -> str:
        if self._masked is None:
            self._masked = mask_log_text(super().getMessage()) + self._suffix
        return self._masked


def install_log_masking(private: Callable[[], tuple[str, ...]]) -> None:
    """Mask every log record created from now on; `private` says, at each record, which values
    to mask wherever seen. Serving points it at `RuntimeSettings.masked`, the very values the
    wire guard masks, so that a model provider's header values, once the client set one, are
    masked from then on, after their provider is gone too (docs/decisions.md#provider-requests)."""
    global _private
    _private = private
    logging.setLogRecordFactory(_MaskedRecord)
