"""The `mutants` subcommand: run the corpus against every mutant and score it.

Exit codes: 0 every selected mutant was killed and the reference adapter
earns Full; 1 a mutant survived, or the reference does not earn Full (the
score means nothing against a broken reference); 2 usage or start-up error
(a bad mutant table, an invalid vector file, an unknown mutant name).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tabulate import tabulate

from conformance.mutants import report
from conformance.mutants.evaluate import AdapterRun, load_selection, run_mutants
from conformance.mutants.registry import load_registry, select_mutants
from conformance.progress import Progress
from conformance.protocol.client import DEFAULT_TIMEOUT
from conformance.options import positive_float, positive_int

EXIT_OK, EXIT_SURVIVED, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
Run the conformance vectors against every mutant in runners/mutants/ (the
reference model with one rule broken each, behind the adapter protocol) and
against the reference adapter, and report which vectors catch which mutant
and the mutation score (docs/mutants.md)."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "mutants", help="score the corpus: run it against mutants of the reference model",
        description=DESCRIPTION, epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("names", nargs="*", metavar="MUTANT",
                        help="only these mutants: an id (03), a name (03_hidden_not_sticky) or part of a name")
    parser.add_argument("-j", "--jobs", metavar="N", type=positive_int, default=os.cpu_count() or 1,
                        help="runs at a time, each one adapter process (default: the number of CPUs)")
    parser.add_argument("--timeout", metavar="S", type=positive_float, default=DEFAULT_TIMEOUT,
                        help=f"seconds to wait for each answer (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--vectors", action="append", default=[], metavar="DIR", type=Path,
                        help="also load the vector files under DIR (repeatable)")
    parser.add_argument("--report", metavar="FILE", type=Path,
                        help="write the Markdown report here (the committed one is reports/mutants.md)")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write the report as JSON")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on the terminal")
    parser.set_defaults(handler=mutants_command)


def _error(message: str) -> int:
    print(f"memoir-conform mutants: {message}", file=sys.stderr)
    return EXIT_USAGE


def mutants_command(args) -> int:
    registry = load_registry()
    if registry.problems:
        return _error("the mutant table is broken:\n  " + "\n  ".join(registry.problems))
    mutants, unmatched = select_mutants(registry.mutants, args.names)
    if unmatched:
        return _error(f"no mutant matches {', '.join(map(repr, unmatched))}; `--list` shows them")
    if args.list:
        rows = [[m.name, m.level, ", ".join(m.sections), ", ".join(m.requirements), m.rule] for m in mutants]
        print(tabulate(rows, headers=["mutant", "level", "spec", "requirements", "rule"], tablefmt="simple"))
        return EXIT_OK
    if not mutants:
        return _error("the mutant table lists no mutant")
    selection = load_selection(args.vectors)
    if isinstance(selection, str):
        return _error(selection)

    runs = len(mutants) + 1
    finished = 0
    with Progress(runs * len(selection.vectors), "vectors", "mutants", quiet=args.quiet) as progress:
        def run_done(run: AdapterRun) -> None:
            nonlocal finished
            finished += 1
            what = run.fault or f"earned {report.level_name(run.earned)}"
            progress.note(f"[{finished}/{runs}] {run.label}: {what} ({run.duration:.1f}s)")

        result = run_mutants(mutants, selection, jobs=args.jobs, timeout=args.timeout, on_run=run_done,
                             on_vector=progress.advance)
    print(report.console(result))
    try:
        if args.report:
            report.write_markdown(result, args.report)
        if args.json:
            report.write_json(result, args.json)
    except OSError as error:
        return _error(f"cannot write the report: {error}")
    return EXIT_OK if result.ok else EXIT_SURVIVED
