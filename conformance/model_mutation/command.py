"""The `model-mutation` subcommand: mutation testing of the reference model with mutmut.

Exit codes: 0 every survivor of every model module is explained as equivalent (or not required by a MUST) in equivalents.json;
1 a survivor there is unexplained, or a mutant was not run; 2 usage or
start-up error (mutmut not installed, a broken explanations file, mutmut
failing before it tested a mutant).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from conformance.options import positive_int

EXIT_OK, EXIT_SURVIVED, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
Mutation testing of the reference model (conformance/model/) with mutmut:
every small change to the model's functions, each run in-process against
the corpus. A mutant is killed when a vector that decides a level fails, as
`memoir-conform run` grades it. Writes the report of every mutant, with a
score per module and the reason each survivor is equivalent
(docs/mutants.md). Needs mutmut (`pip install 'memoir-conform[mutation]'`)
and a POSIX system; takes tens of minutes, so run it niced."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "model-mutation", help="mutation testing of the reference model (mutmut): which changes the corpus misses",
        description=DESCRIPTION, epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--report", metavar="FILE", type=Path,
                        help="write the Markdown report here (the committed one is reports/model-mutation.md)")
    parser.add_argument("--workdir", metavar="DIR", type=Path,
                        help="keep the mutmut project here; a second run re-tests only what changed in the model "
                             "(default: a fresh temporary directory)")
    parser.add_argument("--no-run", action="store_true",
                        help="do not run mutmut: report on the last run kept in --workdir")
    parser.add_argument("--only", action="append", default=[], metavar="PATTERN",
                        help="only the mutants of this module or function: `identity`, `merge.merge_actions`, "
                             "`writer.add_*` (repeatable); the report then covers those alone")
    parser.add_argument("-j", "--jobs", metavar="N", type=positive_int, default=os.cpu_count() or 1,
                        help="mutants tested at a time (default: the number of CPUs)")
    parser.set_defaults(handler=model_mutation_command)


def _error(message: str) -> int:
    print(f"memoir-conform model-mutation: {message}", file=sys.stderr)
    return EXIT_USAGE


def model_mutation_command(args) -> int:
    try:
        tool = f"mutmut {metadata.version('mutmut')}"
    except metadata.PackageNotFoundError:
        return _error("mutmut is not installed: pip install 'memoir-conform[mutation]'")
    if args.no_run and not args.workdir:
        return _error("--no-run needs the --workdir of an earlier run")
    from conformance.model_mutation import explanations, outcomes, report, workspace
    from conformance.mutants.evaluate import load_selection

    explained = explanations.load_explanations()
    if explained.problems:
        return _error("the explanations file is broken:\n  " + "\n  ".join(explained.problems))
    selection = load_selection()
    if isinstance(selection, str):
        return _error(selection)

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memoir-model-mutation-") as scratch:
        project = args.workdir or Path(scratch)
        if not args.no_run:
            workspace.build(project, selection.corpus_digest, args.only)
            code = workspace.run_mutmut(project, args.jobs, args.only)
            if code != 0:
                return _error(f"mutmut exited with {code} (its output is above)")
        if not workspace.has_results(project):
            return _error(f"no mutmut results in {project}")
        if workspace.results_corpus(project) != selection.corpus_digest:
            return _error(f"the results in {project} are not of the current corpus: run again without --no-run")
        mutants = [mutant for mutant in outcomes.read_outcomes(project) if outcomes.selected(mutant, args.only)]
        run = report.ModelMutationRun(
            mutants=mutants, explanations=explained,
            corpus_digest=selection.corpus_digest, vectors=len(selection.vectors),
            model_digest=report.model_digest(project / "conformance" / "model"), tool=tool,
        )
    print(report.console(run))
    print(f"{len(run.mutants)} mutants in {time.monotonic() - started:.0f}s")
    if args.report:
        try:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(report.markdown(run), encoding="utf-8")
        except OSError as error:
            return _error(f"cannot write the report: {error}")
    return EXIT_OK if run.ok else EXIT_SURVIVED
