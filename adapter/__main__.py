"""`python -m adapter`: the same as the `claude-acp` command."""

import sys

from adapter.app.cli import main

sys.exit(main())
