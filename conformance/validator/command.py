"""The ``validate`` and ``rules`` subcommands.

``memoir-conform validate PATH...`` checks memoir stores (found under each
directory: see `memoir.discovery`), entry files and session files, and
memory diff files and REME vaults. ``--kind`` says what the input is
(``auto``, the default, decides per path); ``--format`` says how to print
the findings, which stream out file by file.

Exit codes: 0 clean (infos, legacy dialects and, without ``--strict``,
warnings allowed), 1 errors (or warnings with ``--strict``, or legacy
dialects with ``--legacy error``), 2 usage: an unknown option or rule id, a
path that does not exist, a directory with nothing to check.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import Iterator

from conformance import github
from conformance.validator import rules
from conformance.validator.core import output
from conformance.validator.core.findings import Event, FileChecked, NothingToCheck, Rule, StoreFindings

KINDS = tuple(rules.KIND_MODULES)


class UsageError(Exception):
    """Bad arguments: reported on stderr with exit code 2."""


def _output_format(value: str) -> str:
    if value in KINDS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is an input kind: use --kind {value} (--format says how to print: "
            f"{', '.join(output.OUTPUT_FORMATS)})")
    if value not in output.OUTPUT_FORMATS:
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(output.OUTPUT_FORMATS)})")
    return value


def register(subparsers) -> None:
    validate = subparsers.add_parser(
        "validate",
        help="check stores, entry files and session files against the spec",
        description=(
            "Check memoir stores, entry files (*.md) and session files (*.json), memory diff files and REME vaults. "
            "A directory is searched for stores: folders with memory/ or session.json (as .claude/projects/*/), "
            "memory folders (named memory/, with a MEMORY.md index, or .claude/agent-memory/<agent>/). Every "
            "finding has a place, a severity, a rule id and the spec section. Exit codes: 0 clean, 1 errors (or "
            "warnings with --strict), 2 usage (including a directory with nothing to check)."),
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="store, directory or file to check")
    validate.add_argument(
        "--kind", choices=("auto", *KINDS), default="auto",
        help="what the input is (default auto: .yaml/.yml files are memory diffs, directories with topics/ or "
             "events/ are REME vaults, everything else memoir)")
    validate.add_argument("-f", "--format", type=_output_format, default="human", metavar="FORMAT",
                          help=f"how to print the findings: {', '.join(output.OUTPUT_FORMATS)} (default human)")
    validate.add_argument("--select", action="append", default=[], metavar="IDS",
                          help="report only these rules (comma-separated ids or id prefixes; repeatable)")
    validate.add_argument("--ignore", action="append", default=[], metavar="IDS",
                          help="never report these rules (comma-separated ids or id prefixes; repeatable)")
    validate.add_argument("--strict", action="store_true", help="warnings fail too (exit code 1)")
    validate.add_argument(
        "--legacy", choices=output.LEGACY_MODES, default="summary",
        help="files in the legacy dialects of Appendix A (all readable): summary (default: one line per store), "
             "show (list each finding), error (list them and fail: for a writer's output, as writers MUST NOT "
             "emit legacy dialects)")
    validate.add_argument("--since", metavar="OLD_VAULT_DIR",
                          help="reme-vault only: an older snapshot of the vault, for the status state machine")
    validate.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                          help="worker processes for large stores (default: one per idle CPU; 1: no pool). "
                               "Output is the same whatever N")
    validate.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                          help="colour in human output (auto: only on a terminal, never with NO_COLOR)")
    validate.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    github.add_github_option(validate)
    validate.set_defaults(handler=run_validate)

    listing = subparsers.add_parser(
        "rules", help="list every validator rule with its id, severity and spec section",
        description="List every rule of the validator: id, severity, spec section and what it requires.")
    listing.add_argument("-f", "--format", choices=("text", "json", "markdown"), default="text")
    listing.add_argument("--kind", choices=("all", *KINDS), default="all", help="only the rules of one format")
    listing.set_defaults(handler=run_rules)


def run_rules(args: argparse.Namespace) -> int:
    catalogue = rules.all_rules()
    if args.kind != "all":
        catalogue = [rule for rule in catalogue if rule.format == args.kind]
    sys.stdout.write(output.render_rules(catalogue, args.format))
    return 0


def _fail(message: str) -> int:
    print(f"memoir-conform validate: {output.visible(message)}", file=sys.stderr)
    return 2


def run_validate(args: argparse.Namespace) -> int:
    catalogue = rules.all_rules()
    try:
        wanted = _wanted_rules(catalogue, _selectors(args.select, catalogue), _selectors(args.ignore, catalogue))
        for path in args.paths:
            _check_exists(path)
        groups = _group_by_kind(args.paths, args.kind)
        options = {"since": args.since} if args.since else {}
        plans = [(module, module.plan(paths, **options)) for module, paths in groups]
    except (UsageError, NothingToCheck) as error:
        return _fail(str(error))
    jobs = args.jobs if args.jobs > 0 else default_jobs()

    if args.output:
        try:
            stream = open(args.output, "w", encoding="utf-8", errors="backslashreplace")
        except OSError as error:
            return _fail(f"cannot write {args.output}: {error.strerror}")
    else:
        stream = sys.stdout
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")  # a terminal that cannot show a character gets its escape
    color = args.color == "always" or (
        args.color == "auto" and args.output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    report = output.make_output(args.format, stream, catalogue=catalogue, color=color,
                                legacy=args.legacy, strict=args.strict)
    if github.enabled(args.github):
        # Annotations share stdout with a human report only; a machine report keeps stdout to itself.
        report = github.FindingsTee(report, sys.stdout if args.format == "human" or args.output else sys.stderr,
                                    legacy=args.legacy != "summary")
    stream_events = _all_events(plans, jobs, options)
    try:
        for event in stream_events:
            report.feed(_filtered(event, wanted))
        code = report.close()
    except BrokenPipeError:  # the reader went away (| head): the run did not finish, so it passes nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python exits
        return 1
    finally:
        stream_events.close()
        if args.output:
            stream.close()
    if args.output and args.format != "human":
        sys.stderr.write(report.summary_line() + "\n")
    return code


def default_jobs() -> int:
    """Workers when -j is not given: one per CPU this process may use that the
    machine leaves idle (by the one-minute load average). A pool costs CPU of
    its own (starting workers, sending results back), and on a machine whose
    cores are busy (CI, a pre-commit run beside an editor) it saves no time."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        idle = cpus - os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here: every CPU counts
        idle = cpus
    return max(1, min(cpus, round(idle)))


def _all_events(plans: list, jobs: int, options: dict) -> Iterator[Event]:
    for module, plan in plans:
        yield from module.events(plan, jobs=jobs, **options)


def _check_exists(path: str) -> None:
    try:
        os.lstat(path)
    except OSError as error:
        shown = path if len(path) <= 120 else f"{path[:60]}…{path[-40:]} ({len(path)} characters)"
        if error.errno == errno.ENOENT:
            raise UsageError(f"no such file or directory: {shown}") from None
        if error.errno == errno.ENAMETOOLONG:
            raise UsageError(f"file name too long for this system: {shown}") from None
        raise UsageError(f"cannot read {shown}: {error.strerror}") from None


def _selectors(values: list[str], catalogue: list[Rule]) -> tuple[str, ...]:
    selectors = []
    for value in values:
        for selector in value.split(","):
            selector = selector.strip().rstrip("*")
            if not selector:
                continue
            if not any(_matches(rule, (selector,)) for rule in catalogue):
                raise UsageError(f"no rule id is or starts with {selector!r} (see `memoir-conform rules`)")
            selectors.append(selector)
    return tuple(selectors)


def _matches(rule: Rule, selectors: tuple[str, ...]) -> bool:
    """A rule matches an id or prefix of its own, or of an id it had before (`Rule.former_ids`)."""
    return any(name.startswith(selector) for name in (rule.id, *rule.former_ids) for selector in selectors)


def _wanted_rules(catalogue: list[Rule], select: tuple[str, ...], ignore: tuple[str, ...]) -> frozenset[str] | None:
    """The ids to report, or None for all."""
    if not select and not ignore:
        return None
    return frozenset(rule.id for rule in catalogue
                     if (not select or _matches(rule, select)) and not _matches(rule, ignore))


def _filtered(event: Event, wanted: frozenset[str] | None) -> Event:
    if wanted is None or not isinstance(event, (FileChecked, StoreFindings)):
        return event
    kept = tuple(found for found in event.diagnostics if found.rule in wanted)
    if len(kept) == len(event.diagnostics):
        return event
    if isinstance(event, FileChecked):
        return FileChecked(event.path, kept, event.checked)
    return StoreFindings(event.path, kept)


def _detect(path: str) -> str:
    """The kind of one path, for --kind auto."""
    # The memoir shapes first: they need no other validator loaded.
    if os.path.isdir(path):
        if os.path.isdir(os.path.join(path, "memory")) or os.path.isfile(os.path.join(path, "session.json")):
            return "memoir"
    elif path.endswith((".md", ".json")):
        return "memoir"
    for kind in KINDS:
        module = rules.kind_module(kind) if kind != "memoir" else None
        detect = getattr(module, "detect", None) if module else None
        if detect is not None:
            try:
                if detect(path):
                    return kind
            except Exception:  # a detector's failure only means "not mine"
                continue
    return "memoir"


def _group_by_kind(paths: list[str], kind: str) -> list[tuple[object, list[str]]]:
    """The paths of each kind, kinds in the order they first appear."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(kind if kind != "auto" else _detect(path), []).append(path)
    modules = []
    for group_kind, group_paths in groups.items():
        module = rules.kind_module(group_kind)
        if module is None:
            raise UsageError(f"the {group_kind} validator is not installed in this kit")
        modules.append((module, group_paths))
    return modules
