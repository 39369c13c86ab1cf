"""Benchmark: the corpus through `memoir-conform run` and through the pytest plugin.

Not a test. Runs the same vectors against the same adapter both ways, one
after the other in this process's machine, and prints the wall times, the
plugin's time as a ratio of the runner's, and how many vectors each saw.

    python benchmarks/pytest_plugin_bench.py                  # the reference adapter, whole corpus
    python benchmarks/pytest_plugin_bench.py -k merge.hidden  # a subset (a substring of the ids)
    python benchmarks/pytest_plugin_bench.py --adapter "node my-adapter.js"
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import conformance  # noqa: F401
except ImportError:  # run from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.options import default_adapter


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", help="adapter command (default: the bundled reference adapter)")
    parser.add_argument("-k", dest="pattern", help="only vectors whose id contains this")
    args = parser.parse_args(argv)
    adapter = args.adapter or shlex.join(default_adapter())
    selection = ["-k", args.pattern] if args.pattern else []
    with tempfile.TemporaryDirectory(prefix="memoir-plugin-bench-") as scratch:
        where = Path(scratch)
        runner_time, runner_out = timed([sys.executable, "-m", "conformance", "run", "--adapter", adapter,
                                         *selection], where)
        plugin_time, plugin_out = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                         "--memoir-adapter", adapter, "-m", "memoir", *selection], where)
    ran = re.search(r"corpus \w+, (\d+) vectors", runner_out)
    items = re.findall(r"(\d+) (passed|failed|xfailed|skipped)", plugin_out)
    print(f"memoir-conform run : {runner_time:7.2f} s  ({ran.group(1) if ran else '?'} vectors)")
    print(f"pytest plugin      : {plugin_time:7.2f} s  ({', '.join(f'{n} {what}' for n, what in items) or '?'})")
    print(f"plugin / run       : {plugin_time / runner_time:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
