"""`python -m fsm.diagrams [--check] [--out DIR]`: write or check each machine's drawing
(`diagrams/<machine>.mmd`) and decision table (`diagrams/<machine>.md`).

This is the one module under `fsm/` that touches files: it is a developer tool run by hand and
by the tests, not part of the core the adapter embeds (the purity test exempts exactly this file).
SVGs are written too when Graphviz's `dot` and the `graphviz` package are installed; `--check`
compares the Mermaid and Markdown files only, since SVG bytes vary with the Graphviz version.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from pathlib import Path

from fsm.diagrams import MACHINES, decision_table, render, render_dot

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "diagrams"


def generated(name: str) -> dict[str, str]:
    """The checked files of machine `name`, by file name."""
    return {f"{name}.mmd": render(name), f"{name}.md": decision_table(name)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fsm.diagrams", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the files are stale")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the diagrams folder")
    args = parser.parse_args(argv)
    out: Path = args.out
    stale = []
    for name in MACHINES:
        for file_name, text in generated(name).items():
            path = out / file_name
            if args.check:
                if not path.exists() or path.read_text(encoding="utf-8") != text:
                    stale.append(path)
                continue
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if not args.check and shutil.which("dot") and importlib.util.find_spec("graphviz"):
            import graphviz  # type: ignore[import-not-found,unused-ignore]

            svg = graphviz.Source(render_dot(name)).pipe(format="svg")
            (out / f"{name}.svg").write_bytes(svg)
    if stale:
        names = ", ".join(str(p) for p in stale)
        print(f"stale diagrams (run python -m fsm.diagrams): {names}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
