"""The `vectors check`, `vectors new` and `coverage` subcommands.

- `vectors check [DIR...]`: every vector file valid (the runner's loader:
  schema, unique ids, golden stores), every cited requirement in the index,
  every check saying which requirements it checks where a vector's mix MUST
  and SHOULD, every `ambiguity` documented. Exit 0 valid, 1 problems, 2 usage.
- `vectors new --level L --section S [--op OP] [--id ID] [--out FILE]`: a
  valid skeleton vector, printed or added to FILE.
- `vectors show ID [--extract DIR]`: one vector with the files it starts
  from (`conformance.corpus.show`).
- `vectors derive [--check]`: regenerate `vectors/derived/read-from-merge.json`,
  the reader vectors derived from the merge vectors; with `--check`, exit 1
  when the file is not what the merge vectors give.
- `coverage [--json] [--spec V]`: which requirements have vectors, per
  section, and which boundary cases (`vectors/boundaries.json`) each MUST
  has deciding vectors for. Exit 0 when every testable MUST has a
  non-ambiguous vector, 1 when one lacks it, 2 when the corpus or index
  cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tabulate import tabulate

from conformance import SPEC_VERSION, SPEC_VERSIONS, resources
from conformance.corpus import coverage as coverage_module
from conformance.corpus.ambiguities import documented_ambiguities
from conformance.corpus import readers_from_merges
from conformance.corpus import scaffold as scaffold_module
from conformance.corpus import show as show_module
from conformance.corpus.boundaries import BOUNDARY_FILE, BoundaryIndex, load_boundaries
from conformance.corpus.requirements import INDEX_FILE, Requirement, load_index
from conformance.runner.requirements import RequirementIndex
from conformance.runner.strength import strength_problems
from conformance.runner.vectors import LEVELS, Corpus, Vector, load_corpus, vector_files

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
OPS = ("merge_sessions", "read_store", "write", "merge_stores", "concurrent_writes", "atomic_writes", "atomic_merges")


def register(subparsers) -> None:
    vectors = subparsers.add_parser(
        "vectors", help="check the vector corpus, or scaffold a new vector",
        description="Work on the vector corpus (docs/adding-a-vector.md).")
    actions = vectors.add_subparsers(dest="vectors_command", metavar="ACTION")
    vectors.set_defaults(handler=lambda args: _usage(vectors))

    check = actions.add_parser(
        "check", help="validate vector files (schema, ids, requirements, ambiguities, golden stores)",
        description="Validate vector files. Exit codes: 0 valid, 1 problems found, 2 usage error.")
    check.add_argument("dirs", nargs="*", metavar="DIR", type=Path,
                       help="vector directories (default: the kit's vectors/)")
    check.set_defaults(handler=run_check)

    new = actions.add_parser(
        "new", help="scaffold a valid vector for a spec section",
        description="Print (or add to --out FILE) a schema-valid skeleton vector whose requirements "
                    "list every testable requirement of the section, for you to edit.")
    new.add_argument("--level", required=True, choices=LEVELS, help="the conformance level the vector tests")
    new.add_argument("--section", required=True, help="spec section, for example 5.3.2 or A")
    new.add_argument("--op", choices=OPS, help="the op (default: read_store, write or merge_sessions by level)")
    new.add_argument("--id", dest="vector_id", help="the vector's permanent id (default: a placeholder to rename)")
    new.add_argument("--out", type=Path, metavar="FILE", help="add the vector to this file (created if missing)")
    new.set_defaults(handler=run_new)

    derive = actions.add_parser(
        "derive", help="regenerate the reader vectors derived from the merge vectors",
        description="Write vectors/derived/read-from-merge.json: for every merge vector, a read_store vector "
                    "whose store holds the reference model's merge of its inputs. Exit codes: 0 written (or, with "
                    "--check, up to date), 1 --check found it out of date, 2 the corpus cannot be read.")
    derive.add_argument("--check", action="store_true", help="only compare; exit 1 when the file is out of date")
    derive.set_defaults(handler=run_derive)

    show_module.register(actions)

    cover = subparsers.add_parser(
        "coverage", help="which spec requirements have vectors, per section",
        description="Coverage of vectors/requirements.json by the vectors. Exit codes: 0 every testable MUST "
                    "has a non-ambiguous vector, 1 some has none, 2 the corpus or index cannot be read.")
    cover.add_argument("--json", action="store_true", help="print the report as JSON")
    cover.add_argument("--spec", choices=SPEC_VERSIONS, default=SPEC_VERSION,
                       help=f"as of this spec version: later requirements and the vectors citing them left out (default {SPEC_VERSION})")
    cover.set_defaults(handler=run_coverage)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


# --- vectors check ------------------------------------------------------------------

@dataclass
class CheckOutcome:
    corpus: Corpus
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def check_corpus(dirs: list[Path]) -> CheckOutcome:
    """Everything `vectors check` reports, for these vector directories."""
    corpus = load_corpus(dirs)
    indexes: dict[Path, dict[str, Requirement] | None] = {}
    index_messages: list[str] = []
    for root in dirs:
        path = root / INDEX_FILE if (root / INDEX_FILE).is_file() else resources.vectors_dir() / INDEX_FILE
        requirements, index_problems = load_index(path)
        index_messages.extend(str(problem) for problem in index_problems)
        indexes[Path(root).resolve()] = {r.id: r for r in requirements} if requirements else None
    clear: dict[tuple[str, str], list[str]] = {}
    for root in dirs:
        clear.update(_tag_problems(Path(root), indexes.get(Path(root).resolve())))
    # The schema says a tag/ambiguity mismatch as "'tags' is a required property";
    # where the scan above has a plainer message for that place, show that one.
    loader_messages = [str(problem) for problem in corpus.problems
                       if not ((problem.file, problem.json_path) in clear and "is a required property" in problem.message)]
    outcome = CheckOutcome(corpus, loader_messages + [m for ms in clear.values() for m in ms] + index_messages)
    known_ambiguities = documented_ambiguities()
    for vector in corpus.vectors:
        where = f"{vector.file}: vector {vector.id!r}"
        index = indexes.get(Path(vector.root).resolve())
        if index is not None:
            outcome.problems.extend(f"{where}: {problem}"
                                    for problem in strength_problems(vector, RequirementIndex(index)))
        outcome.problems.extend(f"{where}: {problem}" for problem in refusal_problems(vector))
        named = sorted({e.ambiguity for e in vector.expectations() if e.ambiguity})
        unknown = [amb for amb in named if known_ambiguities is not None and amb not in known_ambiguities]
        if unknown:
            outcome.warnings.append(f"{where}: ambiguity {', '.join(unknown)} is not documented in docs/spec-ambiguities.md")
        if vector.title.startswith(scaffold_module.TODO) or (vector.note or "").startswith(scaffold_module.TODO):
            outcome.warnings.append(f"{where}: still a scaffold (TODO in its title or note)")
    return outcome


def refusal_problems(vector: Vector) -> list[str]:
    """Checks whose `unless_refused` names no step that may refuse: they would run always, or never."""
    steps = vector.input.get("steps") if vector.op == "write" and isinstance(vector.input, dict) else None
    steps = steps if isinstance(steps, list) else []
    may_refuse = {index for index, step in enumerate(steps) if isinstance(step, dict) and step.get("may_refuse")}
    return [f"check at {check['path']!r}: unless_refused {check['unless_refused']} names no step with may_refuse"
            for check in vector.expect if "unless_refused" in check and check["unless_refused"] not in may_refuse]


def _tag_problems(root: Path, index: dict[str, Requirement] | None) -> dict[tuple[str, str], list[str]]:
    """Per (file, vector path): an `ambiguous` tag without `ambiguity` or the
    reverse, and requirement ids not in the index, read from the raw files so
    that they are reported even when a file fails the schema for another reason."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in vector_files(root):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            continue  # the loader reports it
        raw_vectors = document.get("vectors") if isinstance(document, dict) else None
        shown = str(Path(root.name) / path.relative_to(root))
        for position, raw in enumerate(raw_vectors if isinstance(raw_vectors, list) else []):
            if not isinstance(raw, dict):
                continue
            where = f"$.vectors[{position}]"
            name = f"{shown}: at {where}: vector {raw.get('id')!r}"
            messages = []
            tags = raw.get("tags") if isinstance(raw.get("tags"), list) else []
            checks = raw.get("expect") if isinstance(raw.get("expect"), list) else []
            named = "ambiguity" in raw or any(isinstance(c, dict) and isinstance(c.get("ambiguity"), str) for c in checks)
            if "ambiguous" in tags and not named:
                messages.append(f"{name}: tagged 'ambiguous' but names no \"ambiguity\" (an AMB-... id of docs/spec-ambiguities.md)")
            if "ambiguity" in raw and "ambiguous" not in tags:
                messages.append(f"{name}: names ambiguity {raw['ambiguity']!r} but lacks the tag 'ambiguous'")
            if index is not None and isinstance(raw.get("requirements"), list):
                unknown = [rid for rid in raw["requirements"] if isinstance(rid, str) and rid not in index]
                if unknown:
                    messages.append(f"{name}: requirement(s) not in {INDEX_FILE}: {', '.join(unknown)}")
            if messages:
                found[(shown, where)] = messages
    return found


def run_check(args: argparse.Namespace) -> int:
    dirs = list(args.dirs) or [resources.vectors_dir()]
    missing = [str(d) for d in dirs if not d.is_dir()]
    if missing:
        print(f"memoir-conform vectors check: no such directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    outcome = check_corpus(dirs)
    for warning in outcome.warnings:
        print(f"warning: {warning}")
    for problem in outcome.problems:
        print(f"error: {problem}")
    files = len({vector.file for vector in outcome.corpus.vectors})
    if outcome.problems:
        print(f"{len(outcome.problems)} problem(s) in {', '.join(map(str, dirs))}")
        return EXIT_PROBLEMS
    print(f"ok: {len(outcome.corpus.vectors)} vectors in {files} files, digest {outcome.corpus.digest[:16]}"
          + (f" ({len(outcome.warnings)} warning(s))" if outcome.warnings else ""))
    return EXIT_OK


# --- vectors derive ----------------------------------------------------------------

def run_derive(args: argparse.Namespace) -> int:
    root = resources.vectors_dir()
    corpus = load_corpus([root])
    if corpus.problems:
        for problem in corpus.problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    document = readers_from_merges.build(corpus.vectors)
    wanted = readers_from_merges.text(document)
    path = root / readers_from_merges.DERIVED_DIR / readers_from_merges.DERIVED_FILE
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if args.check:
        if current == wanted:
            print(f"ok: {path.relative_to(root.parent)} is up to date ({len(document['vectors'])} vectors)")
            return EXIT_OK
        print(f"{path.relative_to(root.parent)} is out of date: run `memoir-conform vectors derive` and commit it")
        return EXIT_PROBLEMS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(wanted, encoding="utf-8")
    print(f"wrote {len(document['vectors'])} reader vectors to {path.relative_to(root.parent)}"
          + ("" if current != wanted else " (unchanged)"))
    return EXIT_OK


# --- vectors new -------------------------------------------------------------------

def run_new(args: argparse.Namespace) -> int:
    requirements, problems = load_index()
    if not requirements:
        print(f"memoir-conform vectors new: cannot read {INDEX_FILE}: {'; '.join(map(str, problems))}", file=sys.stderr)
        return EXIT_USAGE
    taken = {vector.id for vector in load_corpus([resources.vectors_dir()]).vectors}
    if args.out is not None and args.out.exists():
        taken |= _ids_in(args.out)
    try:
        made = scaffold_module.scaffold(requirements, level=args.level, section=args.section, op=args.op,
                                        vector_id=args.vector_id, taken_ids=taken)
        if args.out is None:
            print(json.dumps(made.vector, indent=2, ensure_ascii=False))
            return EXIT_OK
        scaffold_module.add_to_file(args.out, made.vector)
    except scaffold_module.ScaffoldError as error:
        print(f"memoir-conform vectors new: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(f"added {made.vector['id']} to {args.out}; requirements offered: {', '.join(made.candidates)}")
    print(f"next: edit it, then `memoir-conform vectors check` and `memoir-conform run --model -k {made.vector['id']}`")
    return EXIT_OK


def _ids_in(path: Path) -> set[str]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return set()
    vectors = document.get("vectors") if isinstance(document, dict) else None
    return {v["id"] for v in vectors or () if isinstance(v, dict) and isinstance(v.get("id"), str)}


# --- coverage ------------------------------------------------------------------------

STATUS_MARK = {"covered": "ok", "advisory-only": "advisory only", "missing": "MISSING",
               "untestable": "untestable", "validator": "validator"}


def run_coverage(args: argparse.Namespace) -> int:
    requirements, problems = load_index()
    corpus = load_corpus([resources.vectors_dir()])
    if problems or corpus.problems:
        for problem in [*map(str, problems), *map(str, corpus.problems)]:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    boundaries, boundary_problems = load_boundaries()
    for problem in boundary_problems:
        print(f"warning: {problem}", file=sys.stderr)
    report = coverage_module.compute(requirements, corpus.vectors, args.spec,
                                     coverage_module.validator_rules_by_section(), boundaries)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print_report(report, boundaries)
    return EXIT_PROBLEMS if report.gaps("MUST") else EXIT_OK


def print_report(report: coverage_module.CoverageReport, boundaries: BoundaryIndex | None = None) -> None:
    print(f"requirement coverage, spec v{report.spec}\n")
    for section, rows in report.sections():
        table = []
        for row in rows:
            requirement = row.requirement
            if row.status == "untestable":
                detail = requirement.untestable_reason or ""
            elif row.status == "validator":
                detail = "rules: " + (", ".join(row.validator_rules) or "none found for this section")
            else:
                detail = f"{len(row.vectors)} vector(s)" + (f", {len(row.advisory)} advisory" if row.advisory else "")
            table.append([requirement.id, requirement.keyword, requirement.level, STATUS_MARK[row.status], _clip(detail)])
        print(f"section {section}")
        print(tabulate(table, headers=["requirement", "keyword", "level", "status", "vectors / reason"]))
        print()
    if boundaries is not None:
        print_boundaries(report, boundaries)
    for vector_id, unknown in sorted(report.unknown_references.items()):
        print(f"warning: vector {vector_id} cites requirements not in the index: {', '.join(unknown)}")
    for strength in ("MUST", "SHOULD"):
        gaps = report.gaps(strength)
        if gaps:
            print(f"{strength} without a non-ambiguous vector: {', '.join(row.requirement.id for row in gaps)}")
    print(report.summary_line())
    if boundaries is not None:
        gaps = report.boundary_gaps()
        print(report.boundary_line() + (": missing " + ", ".join(f"{rid} {kind}" for rid, kind in gaps) if gaps else ""))
        missing = report.subject_gaps()
        print(report.subject_line() + (": missing " + ", ".join(f"{case.member} {case.kind}" for case in missing)
                                       if missing else ""))


# Where a boundary vector runs, by its level (spec 8): read_store, writer ops, merges.
_PATH_OF_LEVEL = {"reader": "read", "writer": "write", "full": "merge"}


def print_boundaries(report: coverage_module.CoverageReport, boundaries: BoundaryIndex) -> None:
    """One row per MUST with applicable boundary kinds: for each kind, the paths
    (read, write, merge) its deciding vectors run on, MISSING, or - (does not apply)."""
    names = [kind.name for kind in boundaries.kinds]
    table = []
    for row in report.rows:
        if not row.boundaries:
            continue
        cells = {boundary.kind: ",".join(_PATH_OF_LEVEL[level] for level in boundary.levels) or "MISSING"
                 for boundary in row.boundaries}
        table.append([row.requirement.id, *(cells.get(name, "-") for name in names)])
    print(f"boundary cases per MUST requirement ({BOUNDARY_FILE}; vectors tagged boundary-<kind>)")
    print(tabulate(table, headers=["requirement", *names]))
    print()
    for subject in boundaries.subjects:
        cases = [case for case in report.subject_cases if case.subject == subject.name]
        by_member: dict[str, dict[str, str]] = {}
        for case in cases:
            by_member.setdefault(case.member, {})[case.kind] = f"{len(case.vectors)} vector(s)" if case.covered else "MISSING"
        print(f"boundary subject: {subject.name} ({subject.description})")
        print(tabulate([[member, *(cells[kind] for kind in subject.kinds)] for member, cells in by_member.items()],
                       headers=[subject.members, *subject.kinds]))
        print()


def _clip(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
