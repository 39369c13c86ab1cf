"""The `merge-reports` subcommand: shard reports of one implementation -> one graded report.

`run --shard K/N` grades no level: each shard saw only part of the corpus.
`merge-reports` takes the N shard reports (JSON, schema/report.schema.json),
checks that they belong together, and grades the union as one run would
(docs/ci.md). It trusts the shards' observations (what was sent, what came
back, which checks failed) and nothing else: strengths, outcomes, waivers,
levels and the verdict are recomputed here from the kit's own corpus and
requirement index. It refuses shards

- that are not shard reports, or shards of different runs: another kit
  version, corpus digest, spec, implementation (its `describe` answer),
  vector selection or shard count, a shard given twice or missing;
- whose corpus this kit cannot load (the corpus it loads must have the
  shards' digest), or that ran other vectors than the kit puts in them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance import resources
from conformance.protocol.messages import Describe
from conformance.report import (console as report_console, github_report, json_report as report_json,
                                junit as report_junit)
from conformance.runner.checks import MISSING, CheckFailure
from conformance.runner.execute import VectorResult
from conformance.runner.grading import ExpectedFailure, claimed_level, grade, grade_vectors
from conformance.runner.run import RunRecord
from conformance.runner.selection import Filters, select
from conformance.runner.shards import Shard, parse_shard, pick
from conformance.runner.vectors import Vector, load_corpus

EXIT_OK, EXIT_NOT_EARNED, EXIT_USAGE = 0, 1, 2
# Options that say which vectors a run selects and how it is judged: equal in every shard.
SELECTION_OPTIONS = ("level", "sections", "tags", "pattern", "spec", "vectors", "bundled", "claim")

DESCRIPTION = """\
Combine the shard reports of one implementation (`memoir-conform run
--shard K/N --json SHARD.json`, one per CI job) into one graded report, as
if the whole corpus had run at once. Every shard 1/N to N/N must be given;
shards of different kit versions, corpora or implementations are refused.
The grade is recomputed from the shards' results, never taken from them."""

EPILOG = """\
exit codes:
  0  the claimed level was earned (as for `memoir-conform run`)
  1  the claimed level was not earned, or an expect-fail entry passed or is stale
  2  the shard reports cannot be read, do not belong together, or do not
     match the corpus this kit loads"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "merge-reports", help="combine the shard reports of one implementation into one graded report",
        description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shards", nargs="+", metavar="SHARD.json", type=Path, help="the shard reports")
    parser.add_argument("-o", "--output", metavar="RESULT.json", type=Path, required=True,
                        help="where to write the merged report")
    parser.add_argument("--junit", metavar="FILE", type=Path, help="also write the merged run as JUnit XML")
    parser.add_argument("--vectors", action="append", metavar="DIR", type=Path,
                        help="the extra vector directories the shards loaded, when not at the paths the shards "
                             "recorded (repeatable)")
    parser.set_defaults(handler=merge_command)


def _error(message: str) -> int:
    print(f"memoir-conform merge-reports: {message}", file=sys.stderr)
    return EXIT_USAGE


@dataclass(frozen=True)
class ShardReport:
    path: Path
    data: dict
    shard: Shard | None     # None: a whole run's report, graded again by `regrade`


def load_shards(paths: list[Path]) -> list[ShardReport] | str:
    shards = []
    for path in paths:
        data = report_json.read(path)
        if isinstance(data, str):
            return data
        text = data["options"].get("shard")
        try:
            shard = parse_shard(text) if isinstance(text, str) else None
        except argparse.ArgumentTypeError:
            shard = None
        if shard is None:
            return f"{path}: not a shard report (made by `memoir-conform run --shard K/N --json FILE`)"
        shards.append(ShardReport(path, data, shard))
    return sorted(shards, key=lambda item: item.shard.index)


# What shards of one run share.
SAME_IN_EVERY_SHARD = (
    ("kit version", lambda report: report["kit"]["version"]),
    ("corpus digest", lambda report: report["corpus_digest"]),
    ("spec version", lambda report: report["spec"]),
    ("implementation (describe answer)", lambda report: report["implementation"]["describe"]),
    ("vector selection", lambda report: {key: report["options"].get(key) for key in SELECTION_OPTIONS}),
)


def mismatch(shards: list[ShardReport]) -> str | None:
    """Why the shards are not the parts of one run, or None."""
    first = shards[0]
    for other in shards[1:]:
        for what, key in SAME_IN_EVERY_SHARD:
            if key(other.data) != key(first.data):
                return (f"{other.path} and {first.path} are not shards of one run: their {what} differs "
                        f"({_short(key(other.data))} vs {_short(key(first.data))})")
        if other.shard.count != first.shard.count:
            return f"{first.path} is shard {first.shard} but {other.path} is shard {other.shard}"
    seen: dict[int, Path] = {}
    for item in shards:
        if item.shard.index in seen:
            return f"shard {item.shard} is given twice: {seen[item.shard.index]} and {item.path}"
        seen[item.shard.index] = item.path
    missing = [str(Shard(index, first.shard.count)) for index in range(1, first.shard.count + 1) if index not in seen]
    if missing:
        return f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing: every shard of the run is needed"
    return None


def _short(value: object) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _failure(data: dict) -> CheckFailure:
    def value(json_value: object) -> object:
        return MISSING if json_value == {"$absent": True} else json_value

    return CheckFailure(data["path"], data["check"], value(data["expected"]), value(data["actual"]), data["message"],
                        data.get("note"), tuple(data["requirements"]), data.get("ambiguity"),
                        data.get("advisory"))


def _result(data: dict) -> VectorResult:
    """What the shard observed: outcome before waivers, the failed checks, the fault."""
    na = data["not_applicable"]
    return VectorResult(
        id=data["id"], outcome=data["result"], failures=[_failure(item) for item in data["failures"]],
        detail=data["detail"], na_kind=na["kind"] if na else None, stderr_tail=data["stderr_tail"],
        sent=data["sent"], duration=data["duration_s"],
    )


def _expected(data: dict) -> ExpectedFailure | None:
    listed = data["expected_failure"]
    return ExpectedFailure(data["id"], listed["reason"], listed["digest"], listed.get("issue")) if listed else None


def merge(shards: list[ShardReport], vector_dirs: list[Path] | None = None) -> RunRecord | str:
    """The shards graded as one run, or why they cannot be."""
    problem = mismatch(shards)
    if problem:
        return problem
    return _graded(shards, vector_dirs)


def regrade(path: Path, data: dict) -> RunRecord | str:
    """A whole run's report graded again from the results of its vectors (never
    from the `grade` it holds, which a hand can edit), or why it cannot be."""
    return _graded([ShardReport(path, data, None)], None)


def _graded(shards: list[ShardReport], vector_dirs: list[Path] | None) -> RunRecord | str:
    first = shards[0].data
    options = first["options"]
    extra = [Path(text) for text in options.get("vectors") or ()] if vector_dirs is None else list(vector_dirs)
    roots = ([resources.vectors_dir()] if options.get("bundled", True) else []) + extra
    corpus = load_corpus(roots)
    if corpus.problems:
        return f"cannot load the corpus the shards ran: {corpus.problems[0]}"
    if corpus.digest != first["corpus_digest"]:
        return (f"the shards ran corpus {first['corpus_digest'][:16]}, but this kit loads {corpus.digest[:16]} "
                f"(from {', '.join(map(str, roots))}): merge with the kit version that made the shards, and give "
                "--vectors for the extra vector directories they loaded")
    from conformance.runner.requirements import index_for

    index = index_for(extra)
    filters = Filters(options.get("level"), tuple(options.get("sections") or ()), tuple(options.get("tags") or ()),
                      options.get("pattern"))
    spec = first["spec"]
    selected, newer = select(corpus.vectors, filters, index, spec)
    by_id: dict[str, Vector] = {vector.id: vector for vector in selected}
    results, expected = [], []
    for item in shards:
        ran = [vector["id"] for vector in item.data["vectors"]]
        assigned = [vector.id for vector in (pick(selected, item.shard) if item.shard else selected)]
        if sorted(ran) != sorted(assigned):
            if item.shard is None:
                return (f"{item.path} holds {len(ran)} vectors, but the run it describes selects {len(assigned)} "
                        "other ones: not a report this kit wrote")
            return (f"{item.path} (shard {item.shard}) ran {len(ran)} vectors, but this kit puts {len(assigned)} "
                    "other ones in that shard: were the shards made with this kit and these options?")
        for data in item.data["vectors"]:
            if data["digest"] != by_id[data["id"]].digest:
                return f"{item.path}: vector {data['id']} has digest {data['digest'][:16]}, not this corpus' one"
            results.append(_result(data))
            listed = _expected(data)
            if listed:
                expected.append(listed)
    graded = grade_vectors(selected, results, index, expected)
    described = Describe.from_json(first["implementation"]["describe"])
    graded_run = grade(graded, spec, claimed_level(described.claims, options.get("claim")), filtered=filters.narrowed,
                       waived_by=options.get("expect_fail"), up_to=None if filters.narrowed else filters.level)
    commands = sorted({item.data["implementation"]["command"] for item in shards})
    notes = list(dict.fromkeys(note for item in shards for note in item.data["summary"]["notes"]))
    if shards[0].shard is None:
        return RunRecord(
            kit_version=first["kit"]["version"], spec=spec, corpus_digest=corpus.digest,
            implementation=first["implementation"]["command"], mode=first["implementation"]["mode"],
            described=described, protocol=first["implementation"]["protocol"], options=options, graded=graded,
            grade=graded_run, requirements=index, left_out_newer=newer, duration=first["duration_s"], notes=notes)
    notes.append(f"merged from {len(shards)} shard reports; duration is the sum of the shards' durations")
    if len(commands) > 1:
        notes.append(f"the shards ran the adapter as {len(commands)} different commands: {'; '.join(commands)}")
    return RunRecord(
        kit_version=first["kit"]["version"], spec=spec, corpus_digest=corpus.digest,
        implementation=first["implementation"]["command"], mode=first["implementation"]["mode"],
        described=described, protocol=first["implementation"]["protocol"],
        options={**options, "shard": None, "merged_shards": len(shards)}, graded=graded, grade=graded_run,
        requirements=index, left_out_newer=newer, duration=sum(item.data["duration_s"] for item in shards),
        notes=notes,
    )


def merge_command(args) -> int:
    shards = load_shards(args.shards)
    if isinstance(shards, str):
        return _error(shards)
    record = merge(shards, args.vectors)
    if isinstance(record, str):
        return _error(record)
    record.notes.extend(github_report.step_outputs(record))
    print(report_console.render(record))
    try:
        report_json.write(record, args.output)
        if args.junit:
            report_junit.write(record, args.junit)
    except OSError as error:
        return _error(f"cannot write the report: {error}")
    return record.grade.exit_code
