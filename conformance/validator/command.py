"""The ``validate`` and ``rules`` subcommands.

``memoir-conform validate PATH...`` checks memoir stores, entry files and
session files, and (when their modules are installed) memory diff files and
REME vaults. ``--kind`` says which format the inputs are in (``auto``, the
default, decides per path); ``--format`` says how to print the findings. For
the sibling formats, ``--format memory-diff`` and ``--format reme-vault``
are accepted as aliases of ``--kind`` with human output.

Exit codes: 0 clean, 1 errors (or warnings with ``--strict``), 2 usage.
"""

from __future__ import annotations

import argparse
import os
import sys

from conformance import github
from conformance.validator import output, rules
from conformance.validator.diagnostics import Diagnostic, diagnostic

KINDS = tuple(rules.KIND_MODULES)
KIND_ALIASES = tuple(kind for kind in KINDS if kind != "memoir")


class UsageError(Exception):
    """Bad arguments: reported on stderr with exit code 2."""


def register(subparsers) -> None:
    validate = subparsers.add_parser(
        "validate",
        help="check stores, entry files and session files against the spec",
        description=(
            "Check memoir stores (a directory with memory/ or session.json, or a memory directory), entry files "
            "(*.md) and session files (*.json); with --kind, memory diff files and REME vaults. Every finding "
            "has a place, a severity, a rule id and the spec section. Exit codes: 0 clean, 1 errors (or warnings "
            "with --strict), 2 usage."),
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="store, directory or file to check")
    validate.add_argument(
        "--kind", choices=("auto", *KINDS), default=None,
        help="input format (default auto: .yaml/.yml files are memory diffs, directories with topics/ are REME "
             "vaults, everything else memoir)")
    validate.add_argument(
        "-f", "--format", choices=(*output.OUTPUT_FORMATS, *KIND_ALIASES), default="human",
        help="output format (human, json, sarif, junit); 'memory-diff' and 'reme-vault' are aliases of --kind "
             "with human output")
    validate.add_argument("--select", action="append", default=[], metavar="IDS",
                          help="report only these rules (comma-separated ids or id prefixes; repeatable)")
    validate.add_argument("--ignore", action="append", default=[], metavar="IDS",
                          help="never report these rules (comma-separated ids or id prefixes; repeatable)")
    validate.add_argument("--strict", action="store_true", help="warnings fail too (exit code 1)")
    validate.add_argument("--since", metavar="OLD_VAULT_DIR",
                          help="reme-vault only: an older snapshot of the vault, for the status state machine")
    validate.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                          help="worker processes for large stores (default: one per CPU; 1: no pool). "
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


def run_validate(args: argparse.Namespace) -> int:
    try:
        kind, fmt = _kind_and_format(args.kind, args.format)
        catalogue = rules.all_rules()
        select = _selectors(args.select, catalogue)
        ignore = _selectors(args.ignore, catalogue)
        for path in args.paths:
            if not os.path.lexists(path):
                raise UsageError(f"no such file or directory: {path}")
        groups = _group_by_kind(args.paths, kind)
    except UsageError as error:
        print(f"memoir-conform validate: {error}", file=sys.stderr)
        return 2
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)

    files: list[str] = []
    found: list[Diagnostic] = []
    for group_kind, paths in groups.items():
        group_files, group_found = _run_kind(group_kind, paths, jobs, since=args.since)
        files.extend(group_files)
        found.extend(group_found)
    found = [d for d in found if (not select or _matches(d.rule, select)) and not _matches(d.rule, ignore)]
    found.sort(key=lambda item: item.sort_key)
    files = sorted(set(files) | {d.path for d in found})

    if fmt == "human":
        color = args.color == "always" or (
            args.color == "auto" and args.output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
        report = output.render_human(files, found, color=color)
    elif fmt == "json":
        report = output.render_json(files, found)
    elif fmt == "sarif":
        report = output.render_sarif(files, found, catalogue)
    else:
        report = output.render_junit(files, found, strict=args.strict)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as error:
            print(f"memoir-conform validate: cannot write {args.output}: {error.strerror}", file=sys.stderr)
            return 2
        if fmt != "human":
            sys.stderr.write(output.summary_line(files, found) + "\n")
    else:
        sys.stdout.write(report)
    if github.enabled(args.github):
        # Annotations share stdout with a human report only; a machine report keeps stdout to itself.
        github.emit_findings(found, len(files), sys.stdout if fmt == "human" or args.output else sys.stderr)
    return output.exit_code(found, args.strict)


def _kind_and_format(kind: str | None, fmt: str) -> tuple[str, str]:
    if fmt in KIND_ALIASES:
        if kind not in (None, "auto", fmt):
            raise UsageError(f"--format {fmt} names an input kind, and --kind says {kind}")
        return fmt, "human"
    return kind or "auto", fmt


def _selectors(values: list[str], catalogue) -> tuple[str, ...]:
    ids = [rule.id for rule in catalogue]
    selectors = []
    for value in values:
        for selector in value.split(","):
            selector = selector.strip().rstrip("*")
            if not selector:
                continue
            if not any(rule_id == selector or rule_id.startswith(selector) for rule_id in ids):
                raise UsageError(f"no rule id is or starts with {selector!r} (see `memoir-conform rules`)")
            selectors.append(selector)
    return tuple(selectors)


def _matches(rule_id: str, selectors: tuple[str, ...]) -> bool:
    return any(rule_id == selector or rule_id.startswith(selector) for selector in selectors)


def _detect(path: str) -> str:
    """The kind of one path, for --kind auto."""
    # The memoir shapes first: they need no other validator loaded.
    if os.path.isdir(path):
        if os.path.isdir(os.path.join(path, "memory")) or os.path.isfile(os.path.join(path, "session.json")):
            return "memoir"
    elif path.endswith((".md", ".json")):
        return "memoir"
    for kind in KIND_ALIASES:
        module = rules.kind_module(kind)
        detect = getattr(module, "detect", None) if module else None
        if detect is not None:
            try:
                if detect(path):
                    return kind
            except Exception:  # a detector's failure only means "not mine"
                continue
    if path.endswith((".yaml", ".yml")):
        return "memory-diff"
    if os.path.isdir(os.path.join(path, "topics")):
        return "reme-vault"
    return "memoir"


def _group_by_kind(paths: list[str], kind: str) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(kind if kind != "auto" else _detect(path), []).append(path)
    for group_kind in groups:
        if rules.kind_module(group_kind) is None:
            raise UsageError(f"the {group_kind} validator is not installed in this kit")
    return groups


def _run_kind(kind: str, paths: list[str], jobs: int, since: str | None = None) -> tuple[list[str], list[Diagnostic]]:
    module = rules.kind_module(kind)
    if kind == "memoir":
        report = module.validate(paths, jobs=jobs)
        return list(report.files), list(report.diagnostics)
    try:
        options = {"since": since} if since else {}
        found = list(module.validate_paths(paths, **options))
    except Exception as error:  # a validator bug is a finding, never a traceback
        return list(paths), [diagnostic(
            rules.CHECK_FAILED, path, f"the {kind} validator failed ({type(error).__name__}: {error})")
            for path in paths]
    files = [path for path in paths if not os.path.isdir(path)]
    return files, found
