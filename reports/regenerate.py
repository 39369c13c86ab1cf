#!/usr/bin/env python3
"""Regenerate reports/site/: the results site of the implementations bundled with the kit.

    python reports/regenerate.py            # 3 to 5 minutes on two cores

Runs the whole bundled corpus against the reference adapter, the Node.js
example (runners/node-example, needs `node` 18 or later) and every mutant
(runners/mutants), one after the other, with `memoir-conform run --matrix`;
then builds the site from the reports with `memoir-conform report`. The
mutants claim Full and fail: the site shows what failing looks like.

The run reports themselves are not kept (a few MB each). Machine paths in
them (this checkout, the Python and node executables) are replaced before
the site is built, so the committed pages are the same wherever they are
built. `tests/site/test_bundled_site.py` checks that the site is of the
current corpus: regenerate it whenever the vectors change.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from conformance.cli import main  # noqa: E402 - after the path is set
from conformance.mutants.registry import load_registry  # noqa: E402

SITE = REPO / "reports" / "site"


def implementations(node: str) -> list[tuple[str, list[str]]]:
    """(name, adapter command) for each bundled implementation, reference first."""
    found = [
        ("reference adapter", [sys.executable, str(REPO / "runners" / "reference" / "adapter.py")]),
        ("Node.js example (memoir-mini)", [node, str(REPO / "runners" / "node-example" / "adapter.js")]),
    ]
    return found + [(f"mutant {mutant.name}", mutant.command()) for mutant in load_registry().mutants]


def scrubbed(value: object, replacements: list[tuple[str, str]]) -> object:
    """`value` with every machine path replaced by its stand-in."""
    if isinstance(value, str):
        for path, stand_in in replacements:
            value = value.replace(path, stand_in)
        return value
    if isinstance(value, list):
        return [scrubbed(item, replacements) for item in value]
    if isinstance(value, dict):
        return {key: scrubbed(item, replacements) for key, item in value.items()}
    return value


def regenerate(out: Path, jobs: int) -> int:
    node = shutil.which("node")
    if node is None:
        print("regenerate: `node` (18 or later) is needed for the Node.js example", file=sys.stderr)
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memoir-reports-") as scratch:
        scratch_dir = Path(scratch)
        named = implementations(node)
        matrix = scratch_dir / "bundled.toml"
        matrix.write_text("".join(f"[[implementation]]\nname = {json.dumps(name)}\nadapter = {json.dumps(shlex.join(command))}\n\n"
                                  for name, command in named), encoding="utf-8")
        reports = scratch_dir / "reports"
        log = scratch_dir / "run.log"
        with log.open("w", encoding="utf-8") as console, contextlib.redirect_stdout(console):
            code = main(["run", "--matrix", str(matrix), "--json-dir", str(reports), "-j", str(jobs)])
        if code == 2:
            print(log.read_text(encoding="utf-8")[-3000:], file=sys.stderr)
            print("regenerate: an implementation could not be run (above: the end of the run's output)", file=sys.stderr)
            return 2
        replacements = [(sys.executable, "python3"), (node, "node"), (str(REPO), "."), (sys.prefix, "<python>"),
                        (scratch, "<scratch>")]
        paths = sorted(reports.glob("*.json"), key=lambda path: [n for n, _ in named].index(
            json.loads(path.read_text(encoding="utf-8"))["options"]["name"]))
        for path in paths:
            report = scrubbed(json.loads(path.read_text(encoding="utf-8")), replacements)
            path.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
        code = main(["report", *map(str, paths), "-o", str(out)])
    if code == 0:
        manifest = json.loads((out / "site.json").read_text(encoding="utf-8"))
        for row in manifest["implementations"]:
            print(f"  {row['label']:<44} {row['badge']}")
        print(f"regenerated {out} in {time.monotonic() - started:.0f} s")
    return code


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("-j", "--jobs", type=int, default=2, help="adapter processes per implementation (default 2)")
    parser.add_argument("-o", "--out", type=Path, default=SITE, help="the site's directory (default reports/site)")
    args = parser.parse_args()
    return regenerate(args.out, args.jobs)


if __name__ == "__main__":
    raise SystemExit(main_())
