"""Benchmark: how evenly `run --shard K/N` splits the work, measured.

Not a test. Runs the selected vectors whole, then each shard K/N of them
one after the other (as N CI jobs would run them side by side), all in one
process, and prints per shard its vectors, its share of the expected cost
(conformance/runner/shards.py) and its share of the wall time, then the
balance (slowest shard / mean shard) and the speed-up a CI matrix would
see (whole run / slowest shard).

    python benchmarks/shards_bench.py                        # persistent reference adapter, N = 2 and 4
    python benchmarks/shards_bench.py --oneshot -k 'merge.hidden*'
    python benchmarks/shards_bench.py --counts 3 8
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import conformance  # noqa: F401
except ImportError:  # run from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from run_modes_bench import run_configuration  # noqa: E402 - this folder is on the path when run as a script
from tabulate import tabulate  # noqa: E402

from conformance import SPEC_VERSION, resources  # noqa: E402
from conformance.options import default_adapter  # noqa: E402
from conformance.runner.requirements import load_requirements  # noqa: E402
from conformance.runner.selection import Filters, select  # noqa: E402
from conformance.runner.shards import Shard, expected_cost, pick  # noqa: E402
from conformance.runner.vectors import load_corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", metavar="CMD", help="adapter command (default: the bundled reference adapter)")
    parser.add_argument("--oneshot", action="store_true", help="one adapter process per request")
    parser.add_argument("-k", dest="pattern", help="only vectors whose id matches this glob or contains it")
    parser.add_argument("--counts", type=int, nargs="+", default=[2, 4], help="shard counts N (default 2 4)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per answer (default 30)")
    args = parser.parse_args(argv)

    index = load_requirements(resources.vectors_dir() / "requirements.json")
    vectors, _ = select(load_corpus([resources.vectors_dir()]).vectors, Filters(pattern=args.pattern), index,
                        SPEC_VERSION)
    command = args.adapter or default_adapter()
    print(f"whole: {len(vectors)} vectors ...", file=sys.stderr, flush=True)
    measured = run_configuration(command, vectors, args.oneshot, 1, args.timeout)
    if isinstance(measured, str):
        print(f"cannot start the adapter: {measured}", file=sys.stderr)
        return 2
    whole = measured[0]
    total_cost = sum(map(expected_cost, vectors))
    for count in args.counts:
        rows, times = [], []
        for index_ in range(1, count + 1):
            part = pick(vectors, Shard(index_, count))
            print(f"shard {index_}/{count}: {len(part)} vectors ...", file=sys.stderr, flush=True)
            elapsed = run_configuration(command, part, args.oneshot, 1, args.timeout)[0]
            times.append(elapsed)
            rows.append([f"{index_}/{count}", len(part), f"{sum(map(expected_cost, part)) / total_cost:.1%}",
                         f"{elapsed:.2f}", ""])
        for row, elapsed in zip(rows, times):
            row[4] = f"{elapsed / sum(times):.1%}"
        print(tabulate(rows, headers=["shard", "vectors", "expected cost", "wall s", "wall share"], tablefmt="simple"))
        print(f"N={count}: whole run {whole:.2f} s; slowest shard / mean shard {max(times) / (sum(times) / count):.2f}; "
              f"whole / slowest shard {whole / max(times):.2f}x\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
