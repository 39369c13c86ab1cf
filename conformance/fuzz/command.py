"""The `fuzz` subcommand: property-based conformance of an adapter (docs/fuzzing.md).

Drives the implementation with generated replicas and writer-op sequences,
checks the merge invariants of spec 5.4 (and a differential check against
the reference model), and prints each shrunk counterexample as a readable
diff; `--save-vectors DIR` turns it into a vector file that `memoir-conform
run --vectors DIR` replays as a regression.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir

from conformance.fuzz import report
from conformance.fuzz.engine import ERROR, SKIPPED, Budget, all_properties, run_properties
from conformance.fuzz.export import save
from conformance.fuzz.subject import Subject
from conformance.protocol.client import DEFAULT_TIMEOUT
from conformance.protocol.messages import AdapterFault
from conformance.protocol.process import StartError
from conformance.runner.adapter_files import remove_tree
from conformance.runner.implementations import AdapterImplementation
from conformance.options import ADAPTER_HELP, add_cli_option, chosen_adapter, positive_float, positive_int, start_failure
from conformance.progress import Progress

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
DEFAULT_EXAMPLES = 200
DEFAULT_SHRINK_SECONDS = 30.0
DIFFERENTIAL = "differential"   # the property --no-differential leaves out

DESCRIPTION = """\
Property-based conformance: drive an adapter with generated session replicas
and writer-op sequences built to collide, check the merge invariants of spec
5.4 and agreement with the reference model, and print every counterexample,
shrunk, as a readable diff. The same seed reproduces the same run. Without
--adapter, the bundled reference adapter is fuzzed."""

EPILOG = """\
properties:
{properties}

exit codes:
  0  no counterexample
  1  a property found a counterexample
  2  usage error, the adapter could not be started, or nothing could run"""


def register(subparsers) -> None:
    listing = "\n".join(f"  {info.name:<22} {info.title} (spec {info.section})" for info in all_properties())
    parser = subparsers.add_parser(
        "fuzz", help="property-based conformance: generated replicas and writer ops, shrunk counterexamples",
        description=DESCRIPTION, epilog=EPILOG.format(properties=listing),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    target = parser.add_argument_group("implementation")
    chosen = target.add_mutually_exclusive_group()
    chosen.add_argument("--adapter", metavar="CMD", help=f"{ADAPTER_HELP} (default: reference)")
    add_cli_option(chosen)
    target.add_argument("--oneshot", action="store_true", help="start a fresh adapter process for every request")
    target.add_argument("--timeout", metavar="S", type=positive_float, default=DEFAULT_TIMEOUT,
                        help=f"seconds to wait for each answer (default {DEFAULT_TIMEOUT:g})")
    budget = parser.add_argument_group("budget")
    budget.add_argument("--seed", metavar="N", type=_seed, help="the random seed (default: a fresh one, printed)")
    budget.add_argument("--examples", metavar="N", type=positive_int, default=DEFAULT_EXAMPLES,
                        help=f"examples per property (default {DEFAULT_EXAMPLES}; writer-ops: op sequences)")
    budget.add_argument("--max-seconds", metavar="S", type=positive_float,
                        help="stop generating after S seconds in all (a counterexample found by then is still shrunk)")
    budget.add_argument("--shrink-seconds", metavar="S", type=positive_float, default=DEFAULT_SHRINK_SECONDS,
                        help=f"seconds to shrink each counterexample (default {DEFAULT_SHRINK_SECONDS:g}); "
                             "past it, the smallest one so far is shown")
    which = parser.add_argument_group("properties")
    which.add_argument("--property", dest="properties", metavar="NAME", nargs="+", action="extend",
                       help="only these properties (repeatable; see the list below)")
    which.add_argument("--no-differential", action="store_true",
                       help="skip the differential check against the reference model's merge")
    output = parser.add_argument_group("output")
    output.add_argument("--save-vectors", metavar="DIR", type=Path,
                        help="write each counterexample as a vector file in DIR (replayed by `memoir-conform run --vectors DIR`)")
    output.add_argument("--json", metavar="FILE", type=Path, help="write the results as JSON")
    output.add_argument("-q", "--quiet", action="store_true", help="no progress on the terminal")
    parser.set_defaults(handler=fuzz_command)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a seed cannot be negative")
    return value


def _error(message: str) -> int:
    print(f"memoir-conform fuzz: {message}", file=sys.stderr)
    return EXIT_USAGE


def selected_properties(args) -> list[str] | str:
    """The property names to run, in the listed order, or a message saying what is wrong."""
    known = [info.name for info in all_properties()]
    wanted = args.properties or known
    unknown = [name for name in wanted if name not in known]
    if unknown:
        return f"unknown propert{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)}; choose from {', '.join(known)}"
    names = [name for name in known if name in wanted]
    if args.no_differential:
        names = [name for name in names if name != DIFFERENTIAL]
        if not names:
            return "--no-differential leaves no property to run"
    return names


def fuzz_command(args) -> int:
    names = selected_properties(args)
    if isinstance(names, str):
        return _error(names)
    seed_value = args.seed if args.seed is not None else secrets.randbelow(2**32)
    workdir = Path(tempfile.mkdtemp(prefix="memoir-fuzz-"))
    implementation = None
    # Hypothesis keeps caches under ./.hypothesis: keep them in the scratch
    # directory rather than in the user's working directory.
    own_storage = not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    if own_storage:
        set_hypothesis_home_dir(workdir / "hypothesis")
    try:
        adapter = chosen_adapter(args, "memoir-conform fuzz")
        if adapter is None:
            return EXIT_USAGE
        try:
            implementation = AdapterImplementation(adapter.command, workdir=workdir / "adapters",
                                                   oneshot=args.oneshot, timeout=adapter.timeout)
        except StartError as error:
            return _error(start_failure(f"cannot start the adapter: {error}", adapter.command))
        described = implementation.describe()
        if isinstance(described, AdapterFault):
            tail = described.stderr_tail.strip()
            return _error(start_failure(f"cannot start the adapter: {described}" + (f"\nstderr:\n{tail}" if tail else ""),
                                        adapter.command))
        subject = Subject(implementation, described, workdir / "stores")
        budget = Budget(seed=seed_value, examples=args.examples, max_seconds=args.max_seconds,
                        shrink_seconds=args.shrink_seconds)
        print(f"fuzzing {implementation.label} with seed {seed_value} ...", file=sys.stderr, flush=True)
        with Progress(budget.examples, "examples", quiet=args.quiet) as progress:
            def on_example(name: str, count: int) -> None:
                progress.label = f"fuzz [{names.index(name) + 1}/{len(names)}] {name}"
                progress.update(done=count)

            run = run_properties(subject, names, budget, on_example=on_example,
                                 progress=lambda result: progress.note(report.property_line(result)))
        if all(result.status == SKIPPED for result in run.results):
            return _error("no selected property can run against this adapter: "
                          + "; ".join(f"{r.name}: {r.note}" for r in run.results))
        saved = {}
        if args.save_vectors is not None:
            for result in run.failed:
                if result.counterexample is None or result.counterexample.case is None:
                    continue
                origin = f"property {result.name}, seed {seed_value}, against {described.name} {described.version}"
                try:
                    saved[result.name] = save(result.counterexample, args.save_vectors, implementation, subject.caps,
                                              origin)
                except OSError as error:
                    return _error(f"cannot write the vector file: {error}")
        differential = not args.no_differential
        target = ["--cli", str(args.cli)] if args.cli else ["--adapter", args.adapter] if args.adapter else []
        print(report.render(run, implementation.label, described, subject.caps, saved, target, differential,
                            args.oneshot))
        if args.json is not None:
            try:
                report.write_json(args.json, report.to_json(run, implementation.label, described, subject.caps, saved,
                                                            differential))
            except OSError as error:
                return _error(f"cannot write the report: {error}")
        if run.failed:
            return EXIT_FOUND
        if any(result.status == ERROR for result in run.results):
            return EXIT_USAGE
        return EXIT_OK
    finally:
        if implementation is not None:
            implementation.close()
        if own_storage:
            set_hypothesis_home_dir(None)
        remove_tree(workdir)
