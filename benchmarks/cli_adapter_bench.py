"""Benchmark: the corpus through the generic CLI adapter, against the reference adapter.

Not a test. The CLI adapter starts one process of the tool per request, so
its cost is the tool's start-up time times the number of requests. This
runs every vector of the bundled corpus (or those matching `-k`) through
the reference adapter (persistent, -j 1), then through the CLI adapter
with `-j 1` and `-j 2`, in one process, and prints wall times and their
ratio to the reference run.

    python benchmarks/cli_adapter_bench.py                    # toymemo, the tests' example CLI
    python benchmarks/cli_adapter_bench.py --cli mytool.toml  # your tool (on PATH)
    python benchmarks/cli_adapter_bench.py --shard 1/8        # a sample of every op
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from pathlib import Path

try:
    import conformance  # noqa: F401
except ImportError:  # run from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from run_modes_bench import add_selection_options, run_configuration, selected_vectors
from tabulate import tabulate

from conformance.cli_adapter import adapter_command
from conformance.cli_adapter.config import load
from conformance.options import default_adapter

TOYMEMO = Path(__file__).resolve().parents[1] / "tests" / "cli_adapter" / "toymemo"


def put_toymemo_on_path(bin_dir: Path) -> None:
    wrapper = bin_dir / "toymemo"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{TOYMEMO / "toymemo.py"}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", metavar="FILE", type=Path, help="CLI adapter configuration (default: toymemo's)")
    add_selection_options(parser)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per answer (default 30)")
    args = parser.parse_args(argv)

    vectors = selected_vectors(args)
    if isinstance(vectors, str):
        print(vectors, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="memoir-bench-bin-") as bin_dir:
        if args.cli is None:
            put_toymemo_on_path(Path(bin_dir))
        config = args.cli or TOYMEMO / "toymemo.toml"
        loaded = load(config)
        if isinstance(loaded, list):
            print("\n".join(loaded), file=sys.stderr)
            return 2
        runs = [("reference adapter", default_adapter(), 1),
                (f"--cli {config.name}", adapter_command(config, args.timeout), 1),
                (f"--cli {config.name}", adapter_command(config, args.timeout), 2)]
        rows, baseline = [], None
        for label, command, jobs in runs:
            print(f"{label} -j {jobs}: {len(vectors)} vectors ...", file=sys.stderr, flush=True)
            measured = run_configuration(command, vectors, False, jobs, args.timeout)
            if isinstance(measured, str):
                print(f"cannot start the adapter: {measured}", file=sys.stderr)
                return 2
            elapsed, outcomes = measured
            baseline = baseline or elapsed
            passed = sum(outcome == "pass" for outcome in outcomes.values())
            rows.append([label, jobs, f"{elapsed:.2f}", f"{len(vectors) / elapsed:.1f}",
                         f"{1000 * elapsed / len(vectors):.1f}", f"{elapsed / baseline:.1f}x",
                         f"{passed}/{len(outcomes)}"])
    print(tabulate(rows, headers=["implementation", "jobs", "wall s", "vectors/s", "ms/vector", "vs reference",
                                  "passed"], tablefmt="simple"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
