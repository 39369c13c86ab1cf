"""Several implementations in one `run`: `--adapter A --adapter B`, `--cli FILE`, `--matrix FILE`.

Each implementation is run exactly as a single `run` would run it (same
vectors, same console report), one after the other; then one JSON report
per implementation is written to `--json-dir DIR` and, with `--site DIR`,
the results site is built from them (`memoir-conform report`). The exit
code is the worst of the runs' (0, then 1, then 2).

A matrix file (TOML) names the implementations and, where they differ,
their own options; paths in it are relative to the file:

    [[implementation]]
    name = "memoir-mini (Node.js)"        # optional: the report's name and file name
    adapter = "node runners/node-example/adapter.js"

    [[implementation]]
    name = "toymemo"
    cli = "toymemo.toml"                  # a CLI adapter configuration (docs/cli-adapter.md)
    oneshot = false                       # optional, like --oneshot
    timeout = 20                          # optional, like --timeout
    expect_fail = "toymemo-known.yaml"    # optional, like --expect-fail
    claim = "reader"                      # optional, like --claim
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from conformance.runner import result_model
from conformance.runner.grading import LEVEL_NAMES
from conformance.runner.vectors import LEVELS

SUMMARY_BUCKETS = (result_model.MUST_FAILED, result_model.ERRORS, result_model.SHOULD_FAILED,
                   result_model.ADVISORY_FAILED, result_model.WAIVED)
MATRIX_KEYS = ("name", "adapter", "cli", "oneshot", "timeout", "expect_fail", "claim")


@dataclass(frozen=True)
class Target:
    """One implementation to run, and the options it sets for itself (None: the command line's)."""

    adapter: str | None = None
    cli: Path | None = None
    name: str | None = None
    oneshot: bool | None = None
    timeout: float | None = None
    expect_fail: Path | None = None
    claim: str | None = None

    @property
    def title(self) -> str:
        return self.name or (f"--cli {self.cli}" if self.cli else self.adapter or "the reference adapter")

    def arguments(self, args: argparse.Namespace, json_path: Path, label: str) -> argparse.Namespace:
        """The options of a single run of this implementation."""
        own = argparse.Namespace(**vars(args))
        own.adapter, own.cli, own.model = self.adapter, self.cli, False
        for key in ("oneshot", "timeout", "expect_fail", "claim"):
            if getattr(self, key) is not None:
                setattr(own, key, getattr(self, key))
        own.json, own.junit, own.json_dir, own.site, own.matrix, own.targets = json_path, None, None, None, None, []
        own.progress_label = label
        return own


class TargetAction(argparse.Action):
    """`--adapter CMD` / `--cli FILE`, repeatable: each adds an implementation in command-line
    order, and the option keeps its last value, so that a run of one implementation reads as before."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        target = Target(adapter=values) if self.dest == "adapter" else Target(cli=values)
        namespace.targets = [*(getattr(namespace, "targets", None) or []), target]


def add_options(parser: argparse.ArgumentParser, target_group, report_group) -> None:
    parser.set_defaults(targets=[], progress_label="")
    target_group.add_argument("--matrix", metavar="FILE", type=Path,
                              help="run every implementation this TOML file names (see docs/running.md)")
    report_group.add_argument("--json-dir", metavar="DIR", type=Path,
                              help="write one JSON report per implementation into DIR")
    report_group.add_argument("--site", metavar="DIR", type=Path,
                              help="also build the results site into DIR (as `memoir-conform report` does)")


def load_matrix(path: Path) -> list[Target] | str:
    """The implementations a matrix file names, or what is wrong with it."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: cannot read ({error})"
    except tomllib.TOMLDecodeError as error:
        return f"{path}: not TOML ({error})"
    unknown = sorted(set(document) - {"implementation"})
    if unknown:
        return f"{path}: unknown key {unknown[0]!r} (a matrix file has [[implementation]] tables)"
    entries = document.get("implementation")
    if not isinstance(entries, list) or not entries:
        return f"{path}: no [[implementation]] table"
    base = path.parent
    targets = []
    for number, entry in enumerate(entries, 1):
        where = f"{path}: implementation {number}"
        unknown = sorted(set(entry) - set(MATRIX_KEYS))
        if unknown:
            return f"{where}: unknown key {unknown[0]!r} (known: {', '.join(MATRIX_KEYS)})"
        problem = _entry_problem(entry)
        if problem:
            return f"{where}: {problem}"
        targets.append(Target(
            adapter=entry.get("adapter"), cli=base / entry["cli"] if "cli" in entry else None,
            name=entry.get("name"), oneshot=entry.get("oneshot"),
            timeout=float(entry["timeout"]) if "timeout" in entry else None,
            expect_fail=base / entry["expect_fail"] if "expect_fail" in entry else None, claim=entry.get("claim"),
        ))
    return targets


def _entry_problem(entry: dict) -> str | None:
    if ("adapter" in entry) == ("cli" in entry):
        return "give exactly one of adapter (a command line) and cli (a CLI adapter configuration)"
    for key in ("name", "adapter", "cli", "expect_fail"):
        if key in entry and (not isinstance(entry[key], str) or not entry[key].strip()):
            return f"{key} must be a non-empty string"
    if "oneshot" in entry and not isinstance(entry["oneshot"], bool):
        return "oneshot must be true or false"
    timeout = entry.get("timeout", 1)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        return "timeout must be a number of seconds above 0"
    if "claim" in entry and entry["claim"] not in LEVELS:
        return f"claim must be one of {', '.join(LEVELS)}"
    return None


def targets(args: argparse.Namespace) -> list[Target] | str:
    """The implementations the command line names (none: the default one), or what is wrong."""
    chosen = list(args.targets)
    if args.matrix:
        loaded = load_matrix(args.matrix)
        if isinstance(loaded, str):
            return loaded
        chosen += loaded
    if args.model and chosen:
        return "--model runs the reference model alone: not with --adapter, --cli or --matrix"
    if len(chosen) > 1 and (args.json or args.junit):
        return ("--json and --junit take one implementation; with several, --json-dir DIR writes a report "
                "for each")
    return chosen


def several(args: argparse.Namespace, chosen: list[Target]) -> bool:
    """Whether this run goes through `run_each` rather than a plain single run."""
    if args.list:
        return False
    return len(chosen) > 1 or bool(args.matrix or args.json_dir or args.site)


def run_each(args: argparse.Namespace, chosen: list[Target],
             run_one: Callable[[argparse.Namespace], int]) -> int:
    """Run every target with `run_one` (the single-implementation run), then write the reports and the site."""
    from conformance.site.command import write_site
    from conformance.site.reports import label, unique_slugs

    chosen = chosen or [Target()]
    scratch = Path(tempfile.mkdtemp(prefix="memoir-conform-matrix-"))
    json_dir = args.json_dir or scratch / "reports"
    try:
        json_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        shutil.rmtree(scratch, ignore_errors=True)
        print(f"memoir-conform run: cannot create {json_dir}: {error}", file=sys.stderr)
        return 2
    codes, rows, written = [], [], []
    taken: list[str] = []
    try:
        for number, target in enumerate(chosen, 1):
            partial = scratch / f"{number}.json"
            print(f"== implementation {number}/{len(chosen)}: {target.title}", flush=True)
            code = run_one(target.arguments(args, partial, f"[{number}/{len(chosen)}] {target.title}"))
            codes.append(code)
            if not partial.exists():
                rows.append([target.title, "", "could not run", *[""] * len(SUMMARY_BUCKETS), code, ""])
                print(flush=True)
                continue
            report = json.loads(partial.read_text(encoding="utf-8"))
            if target.name:
                report["options"]["name"] = target.name
            name = label(report)
            slug = unique_slugs([*taken, name])[-1]
            taken.append(slug)
            path = json_dir / f"{slug}.json"
            path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(path)
            grade, counts = report["grade"], result_model.of_report(report).counts
            rows.append([name, LEVEL_NAMES.get(grade["claimed"], "-"), LEVEL_NAMES.get(grade["earned"], "none"),
                         *[counts[bucket] for bucket in SUMMARY_BUCKETS], code, str(path) if args.json_dir else ""])
            print(flush=True)
        # Every column has a header; the counts are the result model's, as in each run's own report.
        print(tabulate(rows, headers=["implementation", "claimed", "earned",
                                      *[result_model.LABELS[bucket] for bucket in SUMMARY_BUCKETS], "exit", "report"],
                       tablefmt="simple"))
        if args.site and written:
            built = write_site(written, args.site)
            if isinstance(built, str):
                print(f"memoir-conform run: {built}", file=sys.stderr)
                codes.append(2)
            else:
                print(f"site written: {built.out / 'index.html'}")
    except OSError as error:
        print(f"memoir-conform run: cannot write the reports: {error}", file=sys.stderr)
        codes.append(2)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return max(codes)
