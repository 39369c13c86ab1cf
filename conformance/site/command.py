"""The `report` subcommand: a static results site (and badges) from run reports.

Exit codes: 0 the site was written; 2 a report cannot be read or is not a
run report, or the output directory cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance import resources
from conformance.runner.requirements import load_requirements
from conformance.site import build, reports

EXIT_OK, EXIT_USAGE = 0, 2

DESCRIPTION = """\
Build a static results site from one or more run reports
(`memoir-conform run --json FILE`, or `--json-dir DIR` for several
implementations): a matrix of requirements by implementation, a page per
implementation with every failure, a page per requirement, and a badge per
implementation (shields endpoint JSON and SVG). The site is plain HTML, CSS
and a little JavaScript: open DIR/index.html from the file system."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="build a static results site and badges from run reports",
        description=DESCRIPTION, epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("reports", nargs="+", metavar="RESULT.json", type=Path,
                        help="run reports, one per implementation (a column each, in this order)")
    parser.add_argument("-o", "--output", metavar="DIR", type=Path, required=True,
                        help="the site's directory (created; a site built there before is replaced)")
    parser.set_defaults(handler=report_command)


def write_site(paths: list[Path], out: Path) -> str | build.Built:
    """Build the site of the reports at `paths` into `out`, or say why not."""
    loaded = reports.load(paths)
    if isinstance(loaded, str):
        return loaded
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    try:
        return build.build(loaded, out, index)
    except OSError as error:
        return f"cannot write the site: {error}"


def report_command(args) -> int:
    built = write_site(args.reports, args.output)
    if isinstance(built, str):
        print(f"memoir-conform report: {built}", file=sys.stderr)
        return EXIT_USAGE
    print(f"site written: {built.out / 'index.html'} ({len(args.reports)} implementation"
          f"{'s' if len(args.reports) != 1 else ''}, {built.requirements} requirements, {built.pages} pages)")
    return EXIT_OK
