"""The `run` subcommand: run the vectors against an adapter and grade it (spec 8).

It wires the runner (loading, execution, grading) to the outputs of
`conformance.report`; `doctor` registers itself (`conformance.doctor.command`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from conformance import SPEC_VERSION, SPEC_VERSIONS, __version__, github, resources
from conformance.protocol.client import DEFAULT_TIMEOUT
from conformance.protocol.messages import AdapterFault
from conformance.protocol.process import StartError, sandbox_problem
from conformance.progress import Progress
from conformance.report import (console as report_console, github_report, json_report as report_json,
                                junit as report_junit, matrix)
from conformance.runner import expect_fail_writer, shards
from conformance.runner.adapter_files import remove_tree
from conformance.runner.execute import VectorResult
from conformance.runner.grading import claimed_level, grade, grade_vectors, load_expected_failures
from conformance.runner.implementations import AdapterImplementation, ModelImplementation
from conformance.runner.requirements import index_for
from conformance.runner.run import DEFAULT_GIVE_UP_AFTER, RunRecord, run_vectors
from conformance.runner.selection import Filters, select
from conformance.runner.strength import strength_problems
from conformance.runner.vectors import LEVELS, load_corpus
from conformance.options import (
    ADAPTER_HELP,
    adapter_limits,
    add_adapter_limit_options,
    add_cli_option,
    chosen_adapter,
    non_negative_int,
    positive_float,
    positive_int,
    start_failure,
)
from conformance.safe_text import printable

EXIT_OK, EXIT_NOT_EARNED, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
Run the conformance vectors against an implementation through its adapter
(docs/running.md) and grade it: memoir Reader, Writer or Full (spec 8).
Without --adapter, the bundled reference adapter is run."""

EPILOG = """\
exit codes:
  0  the claimed level was earned (the highest of the adapter's describe
     claims, or --claim), or would be but for failures waived by
     --expect-fail (then it is reported as not earned, with the waivers
     named), and no expected failure passed or went stale; with --level L
     alone, the claim is judged up to L; for a filtered run (--section,
     --tag, -k), which grades no level: no selected vector failed a MUST
     check
  1  the claimed level was not earned, or an --expect-fail entry passed
     (xpass: remove it) or is stale (its digest no longer matches the
     vector: re-check the vector and update the entry)
  2  usage error, invalid vector or expect-fail file, or the adapter could
     not be started

expect-fail file (JSON or YAML): a list of {id, reason, digest, issue?};
digest is the vector's sha256 as `--list` shows it. A listed vector that
fails is reported as xfail and does not fail the run. --write-expect-fail
FILE keeps FILE in step with the run (the exit code is the run's, graded
with FILE as it was)."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "run", help="run the conformance vectors against an adapter and grade it",
        description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    target = parser.add_argument_group("implementation")
    # --adapter and --cli repeat and mix (several implementations); --model goes alone (matrix.targets)
    target.add_argument("--adapter", metavar="CMD", action=matrix.TargetAction,
                        help=f"{ADAPTER_HELP} (default: reference); repeat it to run several implementations")
    add_cli_option(target, action=matrix.TargetAction)
    target.add_argument("--model", action="store_true",
                        help="run the reference model in-process instead of an adapter (the kit's self-test)")
    target.add_argument("--oneshot", action="store_true", help="start a fresh adapter process for every request")
    target.add_argument("--timeout", metavar="S", type=positive_float, default=DEFAULT_TIMEOUT,
                        help=f"seconds to wait for each answer (default {DEFAULT_TIMEOUT:g})")
    target.add_argument("-j", "--jobs", metavar="N", type=positive_int, default=1,
                        help="run N adapter processes in parallel (output is the same as with -j 1)")
    target.add_argument("--give-up-after", metavar="N", type=non_negative_int, default=DEFAULT_GIVE_UP_AFTER,
                        help="after N timeouts or crashes in a row on one op, error the vectors left that need it "
                             f"without sending them; 0: never (default {DEFAULT_GIVE_UP_AFTER})")
    add_adapter_limit_options(target)

    pick = parser.add_argument_group("which vectors")
    pick.add_argument("--level", choices=LEVELS, help="only vectors of this level and the levels below it")
    pick.add_argument("--section", action="append", default=[], metavar="S",
                      help="only vectors of spec section S or its subsections (repeatable)")
    pick.add_argument("--tag", action="append", default=[], metavar="T", help="only vectors tagged T (repeatable)")
    pick.add_argument("-k", dest="pattern", metavar="PATTERN", action="append",
                      help="only vectors whose id matches this glob, or whose id or title contains it "
                           "(repeatable: a vector matching any of them)")
    pick.add_argument("--spec", choices=SPEC_VERSIONS, default=SPEC_VERSION,
                      help=f"grade against this spec version: only vectors whose requirements existed then (default {SPEC_VERSION})")
    pick.add_argument("--vectors", action="append", default=[], metavar="DIR", type=Path,
                      help="also load vector files from DIR, e.g. your regression vectors (repeatable)")
    pick.add_argument("--no-bundled", action="store_true", help="do not load the bundled corpus (only --vectors DIRs)")
    pick.add_argument("--shard", metavar="K/N", type=shards.parse_shard,
                      help="run only shard K of N of the selected vectors (a CI matrix; docs/ci.md); "
                           "merge the shard reports with `memoir-conform merge-reports`")
    pick.add_argument("--list", action="store_true", help="list the selected vectors with their digests, run nothing")

    grading = parser.add_argument_group("grading and reports")
    grading.add_argument("--claim", choices=LEVELS, help="judge the run against this level instead of the adapter's claims")
    grading.add_argument("--expect-fail", metavar="FILE", type=Path, help="known failures (see below)")
    grading.add_argument("--json", metavar="FILE", type=Path, help="write the report as JSON (schema/report.schema.json)")
    grading.add_argument("--junit", metavar="FILE", type=Path, help="write the report as JUnit XML")
    grading.add_argument("--write-expect-fail", metavar="FILE", type=Path,
                         help="create or update FILE from this run: add failing vectors (placeholder reason), "
                              "remove entries that pass; reads FILE as --expect-fail when it exists")
    grading.add_argument("--refresh-digests", action="store_true",
                         help="with --write-expect-fail: update the digest of an entry whose vector changed "
                              "and still fails (otherwise such entries are only reported)")
    github.add_github_option(grading)
    grading.add_argument("--keep-scratch", metavar="DIR", type=Path,
                         help="keep the scratch directory (stores as the adapter left them) of every vector "
                              "that fails or errors, under DIR/<vector id>")
    matrix.add_options(parser, target, grading)
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress line on the terminal")
    parser.set_defaults(handler=run_command)


def _error(message: str) -> int:
    print(printable(f"memoir-conform run: {message}", multiline=True), file=sys.stderr)
    return EXIT_USAGE


def _options(args) -> dict:
    return {
        "adapter": args.adapter, "model": args.model, "oneshot": args.oneshot, "timeout": args.timeout,
        "cli": str(args.cli) if args.cli else None,
        "jobs": args.jobs, "level": args.level, "sections": args.section, "tags": args.tag,
        "pattern": args.pattern, "spec": args.spec, "vectors": [str(path) for path in args.vectors],
        "bundled": not args.no_bundled, "claim": args.claim,
        "expect_fail": str(args.expect_fail) if args.expect_fail else None,
        "write_expect_fail": str(args.write_expect_fail) if args.write_expect_fail else None,
        "keep_scratch": str(args.keep_scratch) if args.keep_scratch else None,
        "give_up_after": args.give_up_after, "sandbox": args.sandbox, "adapter_memory_mib": args.adapter_memory,
        "adapter_cpu_s": args.adapter_cpu, "max_line_mib": args.max_line,
        "shard": str(args.shard) if args.shard else None,
    }


def run_command(args) -> int:
    """One implementation as below, or several (matrix.run_each runs each of them so)."""
    chosen = matrix.targets(args)
    if isinstance(chosen, str):
        return _error(chosen)
    if matrix.several(args, chosen):
        return matrix.run_each(args, chosen, run_one)
    return run_one(args)


def run_one(args) -> int:
    if args.model and args.oneshot:
        return _error("--oneshot applies to adapters, not to --model")
    if args.sandbox and (args.model or sandbox_problem()):
        return _error("--sandbox applies to adapters, not to --model" if args.model
                      else f"--sandbox cannot work here: {sandbox_problem()}")
    roots = ([] if args.no_bundled else [resources.vectors_dir()]) + list(args.vectors)
    if not roots:
        return _error("no vectors: --no-bundled needs at least one --vectors DIR")
    corpus = load_corpus(roots)
    if corpus.problems:
        for problem in corpus.problems:
            print(f"invalid vector file: {problem}", file=sys.stderr)
        return _error(f"{len(corpus.problems)} problem(s) in the vector files; nothing was run")
    index = index_for(args.vectors)
    notes = [index.problem] if index.problem else []
    mixed = [f"{vector.file}: vector {vector.id!r}: {problem}"
             for vector in corpus.vectors for problem in strength_problems(vector, index)]
    if mixed:
        for problem in mixed:
            print(f"invalid vector file: {problem}", file=sys.stderr)
        return _error(f"{len(mixed)} problem(s): checks that do not say which requirements they check; nothing was run")

    expect_fail = args.expect_fail
    if args.write_expect_fail:
        if expect_fail and expect_fail.resolve() != args.write_expect_fail.resolve():
            return _error("--write-expect-fail FILE reads FILE as the expect-fail file: give the same file to "
                          "--expect-fail, or leave --expect-fail out")
        expect_fail = args.write_expect_fail if args.write_expect_fail.exists() else None
    elif args.refresh_digests:
        return _error("--refresh-digests only applies with --write-expect-fail FILE")
    expected = []
    if expect_fail:
        expected = load_expected_failures(expect_fail)
        if isinstance(expected, str):
            return _error(expected)
        known = {vector.id for vector in corpus.vectors}
        for entry in expected:
            if entry.id not in known:
                notes.append(f"expect-fail entry {entry.id!r} names no vector in the corpus")

    filters = Filters(args.level, tuple(args.section), tuple(args.tag), tuple(args.pattern or ()))
    narrowed = filters.narrowed
    vectors, newer = select(corpus.vectors, filters, index, args.spec)
    if args.shard:
        vectors = shards.pick(vectors, args.shard)
    if args.list:
        rows = [[v.id, v.level, " ".join(v.sections), v.op, v.digest, v.title] for v in vectors]
        print(tabulate(rows, headers=["id", "level", "sections", "op", "digest", "title"], tablefmt="simple"))
        print(f"{len(vectors)} vectors" + (f" ({newer} left out as newer than v{args.spec})" if newer else ""))
        return EXIT_OK
    if not vectors:
        return _error("no vector matches the filters")

    workdir = Path(tempfile.mkdtemp(prefix="memoir-conform-"))
    # Before any adapter starts: a sandbox binds the first worker's area writable (run_vectors names it so).
    (workdir / "vectors" / "w1").mkdir(parents=True)
    started = time.monotonic()
    implementation = None
    try:
        if args.model:
            implementation = ModelImplementation()
        else:
            adapter = chosen_adapter(args, "memoir-conform run")
            if adapter is None:
                return EXIT_USAGE
            try:
                implementation = AdapterImplementation(
                    adapter.command, workdir=workdir / "adapters", oneshot=args.oneshot, timeout=adapter.timeout,
                    limits=adapter_limits(args, writable=[workdir / "vectors" / "w1"]))
            except StartError as error:
                return _error(start_failure(f"cannot start the adapter: {error}", adapter.command))
        described = implementation.describe()
        if isinstance(described, AdapterFault):
            tail = described.stderr_tail.strip()
            return _error(start_failure(f"cannot start the adapter: {described}" + (f"\nstderr:\n{tail}" if tail else ""),
                                        implementation.command))
        if described.spec != args.spec:
            notes.append(f"the adapter implements spec {described.spec}; graded against v{args.spec}")
        with Progress(len(vectors), "vectors", args.progress_label, quiet=args.quiet) as progress:
            results = run_vectors(vectors, implementation, described, workdir / "vectors", args.jobs,
                                  lambda result: progress.advance(), give_up_after=args.give_up_after, notes=notes,
                                  keep_scratch=args.keep_scratch, own_root=True)
        if _exits_after_answering(results) and not args.oneshot:
            notes.append("the adapter exited with code 0 instead of answering some requests: if it serves one "
                         "request per process, run with --oneshot (`memoir-conform doctor` checks it)")
        graded = grade_vectors(vectors, results, index, expected)
        claimed = claimed_level(described.claims, args.claim)
        graded_run = grade(graded, args.spec, claimed, filtered=narrowed or bool(args.shard),
                           waived_by=str(expect_fail) if expect_fail else None,
                           up_to=None if narrowed else args.level)
        if args.shard:
            graded_run = shards.shard_grade(graded_run, graded, args.shard, narrowed)
        record = RunRecord(
            kit_version=__version__, spec=args.spec, corpus_digest=corpus.digest,
            implementation=implementation.label, mode=implementation.mode, described=described,
            protocol=getattr(implementation, "protocol", None), options=_options(args), graded=graded,
            grade=graded_run, requirements=index, left_out_newer=newer,
            duration=time.monotonic() - started, notes=notes,
        )
        if args.keep_scratch and args.keep_scratch.is_dir():
            notes.append(f"the scratch directories of failing vectors are kept under {args.keep_scratch}")
        if github.enabled(args.github):
            notes.extend(github_report.emit(record))
        notes.extend(github_report.step_outputs(record))
        print(printable(report_console.render(record), multiline=True))
        try:
            if args.json:
                report_json.write(record, args.json)
            if args.junit:
                report_junit.write(record, args.junit)
            if args.write_expect_fail:
                _update_expect_fail(args.write_expect_fail, record, args.refresh_digests)
        except OSError as error:
            return _error(f"cannot write the report: {error}")
        return graded_run.exit_code
    finally:
        if implementation is not None:
            implementation.close()
        remove_tree(workdir)


def _exits_after_answering(results: list[VectorResult]) -> bool:
    return any(result.outcome == "error" and "exited with code 0 before answering" in (result.detail or "")
               for result in results)


def _update_expect_fail(path: Path, record: RunRecord, refresh_digests: bool) -> None:
    update = expect_fail_writer.plan(record.graded, record.grade, refresh_digests)
    if update.changes or not path.exists():
        expect_fail_writer.write(path, update)
    for line in expect_fail_writer.report(path, update, update.changes):
        print(line, file=sys.stderr)

