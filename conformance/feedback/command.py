"""The `spec-feedback` subcommand: run reports -> a Markdown report for the spec's authors.

    memoir-conform spec-feedback RUN.json [RUN.json ...] -o FILE.md [--spec-text SPEC.md]

Each report (schema/report.schema.json, as `memoir-conform run --json`
writes it) becomes one section of FILE.md: its disagreements with the text
grouped by cause (`conformance.feedback.causes`), its adapter faults and
the vectors that did not apply. Exit 0 when FILE.md is written, 2 when a
report or the spec text cannot be used or FILE.md cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance import resources
from conformance.corpus.ambiguities import ambiguity_titles
from conformance.feedback import markdown
from conformance.feedback.causes import group
from conformance.feedback.sizes import Sizer
from conformance.feedback.text_checks import read_sections
from conformance.report import json_report as report_json
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import load_corpus
from conformance.safe_text import printable
from conformance.site.reports import label

EXIT_OK, EXIT_USAGE = 0, 2

DESCRIPTION = """\
For the spec's authors: where an implementation and the spec text disagree,
from its run reports (`memoir-conform run --json RUN.json`). Failures are
grouped by cause (requirement, check, shape of the failing path), not by
vector; the causes of one requirement make one entry, classified: a MUST
the implementation breaks, a SHOULD it does not follow, a rule the text
leaves open (an AMB-... of docs/spec-ambiguities.md), or a requirement that
points nowhere. Adapter faults and the vectors that did not apply are listed
apart. One section per report: give the same implementation's reports at
two spec versions to see both (docs/spec-feedback.md)."""

EPILOG = """\
exit codes:
  0  FILE.md was written (whatever the reports say)
  2  a report is missing or is not a run report of this kit, the spec text
     cannot be read, or FILE.md cannot be written"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "spec-feedback", help="where an implementation and the spec text disagree, one entry per cause",
        description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("reports", nargs="+", metavar="RUN.json", type=Path,
                        help="run reports written by `memoir-conform run --json`")
    parser.add_argument("-o", "--output", metavar="FILE.md", type=Path, required=True,
                        help="where to write the Markdown report (`-` for standard output)")
    parser.add_argument("--spec-text", metavar="SPEC.md", type=Path,
                        help="the spec's Markdown text: its headings say which sections exist, for finding "
                             "cross-references that point nowhere (default: the sections of the requirement index)")
    parser.set_defaults(handler=spec_feedback_command)


def _error(message: str) -> int:
    print(printable(f"memoir-conform spec-feedback: {message}", multiline=True), file=sys.stderr)
    return EXIT_USAGE


def spec_feedback_command(args) -> int:
    reports = []
    for path in args.reports:
        report = report_json.read(path)
        if isinstance(report, str):
            return _error(report)
        reports.append(report)
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    if index.problem:
        print(printable(f"warning: {index.problem}"), file=sys.stderr)
    sections = read_sections(args.spec_text, index)
    if isinstance(sections, str):
        return _error(sections)
    corpus = load_corpus([resources.vectors_dir()])
    context = markdown.Context(index, sections, ambiguity_titles(), corpus.digest)
    rendered = markdown.render(
        [markdown.Section(label(report), report, group(report),
                          Sizer(corpus.vectors, report["implementation"]["describe"]["caps"]))
         for report in reports],
        context,
    )
    if str(args.output) == "-":
        sys.stdout.write(rendered)
        return EXIT_OK
    try:
        args.output.write_text(rendered, encoding="utf-8")
    except OSError as error:
        return _error(f"cannot write {args.output}: {error}")
    print(printable(f"wrote {args.output}: {len(reports)} run report(s)"))
    return EXIT_OK
