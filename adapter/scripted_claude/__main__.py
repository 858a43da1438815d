"""`python -m adapter.scripted_claude [CLI flags...]`: run the scripted Claude Code CLI."""

from __future__ import annotations

import os
import sys

from adapter.scripted_claude.runtime import main

if __name__ == "__main__":
    code = main(sys.argv[1:], os.environ)
    sys.stderr.flush()
    # `os._exit`: the stdin thread may still hold the stdin lock, which would wedge a normal
    # interpreter shutdown.
    os._exit(code)
