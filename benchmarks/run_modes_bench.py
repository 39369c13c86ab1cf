"""Benchmark: the corpus against an adapter, persistent vs one-shot, -j 1 vs -j 2.

Not a test. Runs every vector of the bundled corpus (or those matching
`-k`) once per configuration, in one process, and prints a table of wall
times with their ratio to persistent `-j 1`, and whether each
configuration gave the same outcomes as the first one.

    python benchmarks/run_modes_bench.py                 # the reference adapter
    python benchmarks/run_modes_bench.py -k merge.hidden  # a quick subset
    python benchmarks/run_modes_bench.py --shard 1/8      # a sample of every op
    python benchmarks/run_modes_bench.py --adapter "node my-adapter.js"

One-shot mode starts a process per request, so on the 2-core machines this
project targets its runs take minutes where persistent ones take seconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

try:
    import conformance  # noqa: F401
except ImportError:  # run from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabulate import tabulate

from conformance import SPEC_VERSION, resources
from conformance.protocol.messages import AdapterFault
from conformance.options import default_adapter
from conformance.runner.implementations import AdapterImplementation
from conformance.runner.run import run_vectors
from conformance.runner.selection import Filters, select
from conformance.runner.shards import parse_shard, pick
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import load_corpus

CONFIGURATIONS = (("persistent", False, 1), ("persistent", False, 2), ("one-shot", True, 1), ("one-shot", True, 2))


def run_configuration(command, vectors, oneshot: bool, jobs: int, timeout: float) -> tuple[float, dict] | str:
    with tempfile.TemporaryDirectory(prefix="memoir-bench-") as workdir:
        implementation = AdapterImplementation(command, workdir=Path(workdir) / "adapters", oneshot=oneshot,
                                               timeout=timeout)
        try:
            described = implementation.describe()
            if isinstance(described, AdapterFault):
                return str(described)
            started = time.perf_counter()
            results = run_vectors(vectors, implementation, described, Path(workdir) / "vectors", jobs)
            elapsed = time.perf_counter() - started
        finally:
            implementation.close()
    return elapsed, {result.id: result.outcome for result in results}


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """-k and --shard: which vectors a benchmark runs (shared with cli_adapter_bench.py)."""
    parser.add_argument("-k", dest="pattern", help="only vectors whose id matches this glob or contains it")
    parser.add_argument("--shard", metavar="K/N", type=parse_shard,
                        help="only shard K of N (every op in proportion: a cheaper sample of the whole corpus)")


def selected_vectors(args: argparse.Namespace) -> list | str:
    """The vectors `add_selection_options` chose, or why there are none."""
    corpus = load_corpus([resources.vectors_dir()])
    if corpus.problems:
        return "\n".join(map(str, corpus.problems))
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    vectors, _ = select(corpus.vectors, Filters(pattern=args.pattern), index, SPEC_VERSION)
    if args.shard is not None:
        vectors = pick(vectors, args.shard)
    return vectors or "no vectors selected"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", metavar="CMD", help="adapter command (default: the bundled reference adapter)")
    add_selection_options(parser)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per answer (default 30)")
    args = parser.parse_args(argv)

    vectors = selected_vectors(args)
    if isinstance(vectors, str):
        print(vectors, file=sys.stderr)
        return 2
    if not vectors:
        print("no vectors selected", file=sys.stderr)
        return 2
    command = args.adapter or default_adapter()

    rows, baseline, reference_outcomes, differences = [], None, None, []
    for mode, oneshot, jobs in CONFIGURATIONS:
        print(f"{mode} -j {jobs}: {len(vectors)} vectors ...", file=sys.stderr, flush=True)
        measured = run_configuration(command, vectors, oneshot, jobs, args.timeout)
        if isinstance(measured, str):
            print(f"cannot start the adapter: {measured}", file=sys.stderr)
            return 2
        elapsed, outcomes = measured
        baseline = baseline or elapsed
        reference_outcomes = reference_outcomes or outcomes
        same = "yes" if outcomes == reference_outcomes else "NO"
        differences.extend(
            f"{mode} -j {jobs}: {vector_id} {reference_outcomes[vector_id]} -> {outcome}"
            for vector_id, outcome in sorted(outcomes.items()) if outcome != reference_outcomes.get(vector_id)
        )
        passed = sum(outcome == "pass" for outcome in outcomes.values())
        rows.append([mode, jobs, f"{elapsed:.2f}", f"{len(vectors) / elapsed:.1f}",
                     f"{1000 * elapsed / len(vectors):.1f}", f"{elapsed / baseline:.2f}x",
                     f"{passed}/{len(outcomes)}", same])
    print(tabulate(rows, headers=["mode", "jobs", "wall s", "vectors/s", "ms/vector", "vs persistent -j 1", "passed",
                                  "same outcomes"], tablefmt="simple"))
    for line in differences:
        print(f"differs from the first configuration: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
