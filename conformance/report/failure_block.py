"""The failure block: how one vector that did not pass is explained to a person.

One function, `describe_failure`, shared by the console report, the JUnit
report and the pytest plugin, so that a failure reads the same wherever it
is shown. A block names the vector, its level and sections, quotes each
requirement it tests, shows the input stores of read and write vectors
(abbreviated, with the command that shows them whole), what was sent,
every mismatch with the strength of its check, and the adapter's stderr
written while the vector ran.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from textwrap import indent

from conformance import patterns, resources
from conformance.nesting import MAX_DEPTH, nesting_depth
from conformance.runner.checks import MISSING
from conformance.runner.grading import LEVEL_NAMES, Grade, GradedVector
from conformance.runner.requirements import RequirementIndex
from conformance.runner.strength import ADVISORY, LABELS, MUST, SHOULD
from conformance.runner.vectors import Vector, store_files

VALUE_CHARS = 300
STDERR_LINES = 15
SHOWN_REQUESTS = 4
SHOWN_FILES = 5
FILE_CHARS = 100
KINDS = {"fail": "FAIL", "error": "ERROR", "xpass": "XPASS", "stale": "STALE",
         "xfail": "XFAIL", "not_applicable": "NOT APPLICABLE", "pass": "PASS"}


def value_text(value: object, limit: int = VALUE_CHARS) -> str:
    """A JSON value on one line, cut at `limit` characters."""
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def readable_args(args: dict) -> dict:
    """Session texts (merge_sessions) shown as the JSON they hold, not as escaped strings."""
    shown = {}
    for key, value in args.items():
        if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                parsed = None
            if parsed is not None and nesting_depth(parsed) <= MAX_DEPTH:  # deeper is shown as the text it is
                value = parsed
        shown[key] = value
    return shown


def strength_label(strength: str, ambiguity: str | None, advisory: str | None = None) -> str:
    reason = advisory or ambiguity
    return f"advisory: {reason}" if strength == ADVISORY and reason else LABELS[strength]


def show_command(vector: Vector) -> str:
    """The command that prints the vector with its files, whole."""
    command = f"memoir-conform vectors show {vector.id}"
    if vector.root.resolve() != resources.vectors_dir().resolve():
        command += f" --vectors {vector.root}"
    return command


def vector_source(vector: Vector) -> tuple[Path, int | None]:
    """The file a vector (or the base of a derived one) is written in, and the line of its id."""
    source = vector.base or vector
    path = source.root.parent / source.file
    return path, _id_lines(path).get(source.id)


@functools.lru_cache(maxsize=32)
def _id_lines(path: Path) -> dict[str, int]:
    """Vector id -> the line of its `"id"` in a vector file (read once per file)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, int] = {}
    for number, text in enumerate(lines, 1):
        match = _ID_LINE.search(text)
        if match:
            found.setdefault(json.loads(match.group(1)), number)
    return found


_ID_LINE = patterns.compile(r'"id"[ \t\n\r]*:[ \t\n\r]*("(?:[^"\\]|\\.)*")')


def _file_text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(data)} bytes, not UTF-8>"
    return value_text(text, FILE_CHARS)


def _input_stores(vector: Vector) -> list[tuple[str, dict]]:
    """(name, STORE spec) of each store a vector's input starts from."""
    source = vector.base or vector
    if source.op in ("merge_stores", "atomic_merges"):
        return [("local store", source.input.get("local") or {}), ("remote store", source.input.get("remote") or {})]
    if source.op in ("read_store", "write", "concurrent_writes", "atomic_writes"):
        return [("store", source.input.get("store") or {})]
    return []


def input_lines(vector: Vector) -> list[str]:
    """The input stores of a read or write vector, each file abbreviated."""
    lines = []
    for name, spec in _input_stores(vector):
        try:
            files = store_files(spec, vector.root)
        except OSError as error:
            lines.append(f"  input {name}: cannot be read ({error})")
            continue
        golden = f"golden {spec['dir']}, " if isinstance(spec.get("dir"), str) else ""
        count = f"{len(files)} file{'' if len(files) == 1 else 's'}" if files else "empty"
        lines.append(f"  input {name} ({golden}{count}):")
        # session.json first: most checks look at the session.
        for relative in sorted(files, key=lambda name: name != "session.json")[:SHOWN_FILES]:
            data = files[relative]
            lines.append(f"    {relative} ({len(data)} bytes): {_file_text(data)}")
        if len(files) > SHOWN_FILES:
            lines.append(f"    ... and {len(files) - SHOWN_FILES} more files")
    if lines:
        lines.append(f"  whole input: {show_command(vector)}")
    return lines


def why_no_cost(item: GradedVector, grade: Grade) -> str:
    """Why a vector that did not pass costs the run nothing (JUnit's skip
    message, the pytest plugin's xfail reason)."""
    result = item.result
    if item.outcome == "xfail":
        return f"expected failure: {item.expected.reason}"
    if result.outcome == "not_applicable":
        return f"not applicable: {result.detail}" + ("" if item.blocks else " (blocks no level)")
    if item.blocks is None:
        if result.outcome == "error":
            return f"adapter error on a vector with no MUST check: {result.detail}"
        failed = " and ".join(LABELS[name] for name in item.failed_strengths)
        return f"only {failed} checks failed: no level cost"
    if grade.claimed:
        return f"above the claimed level ({LEVEL_NAMES[grade.claimed]})"
    return "no level claimed (the adapter's describe claims none)"


def describe_failure(item: GradedVector, requirements: RequirementIndex) -> str:
    """The block for one vector that did not pass (or did, against an expect-fail entry)."""
    vector, result = item.vector, item.result
    badges = [LEVEL_NAMES[vector.level]]
    head = KINDS[item.outcome]
    if item.outcome == "fail" and MUST not in item.failed_strengths:
        badges.append(f"only {' and '.join(LABELS[name] for name in item.failed_strengths)} checks failed: "
                      "no level cost")
        # Not "FAIL": a reader skimming the log for failures must not count this one against a level.
        head = "SHOULD FAILED" if SHOULD in item.failed_strengths else "ADVISORY FAILED"
    elif item.outcome == "error" and not item.decides:
        badges.append("no MUST check: no level cost")
    lines = [f"{head} {vector.id}  [{', '.join(badges)}; spec {', '.join(vector.sections)}]",
             f"  {vector.title}"]
    for requirement_id in vector.requirements:
        requirement = requirements.get(requirement_id)
        if requirement is None:
            lines.append(f"  requirement {requirement_id}")
        else:
            lines.append(f"  requirement {requirement_id} ({requirement.keyword}, {requirement.section}): "
                         f"{requirement.text}")
    if item.outcome == "xpass":
        lines.append(f"  listed as an expected failure ({item.expected.reason}) but it passed: remove the entry")
    if item.outcome == "stale":
        lines.append("  the vector changed since its expect-fail entry was written: re-check it, then update the "
                     "entry's digest (or run with --write-expect-fail FILE --refresh-digests)")
        lines.append(f"    entry digest:  {item.expected.digest}")
        lines.append(f"    vector digest: {vector.digest}")
    if result.failures or result.outcome == "error":
        lines.extend(input_lines(vector))
    for sent in result.sent[:SHOWN_REQUESTS]:
        lines.append(f"  sent: {sent['op']} {value_text(readable_args(sent['args']))}")
    if len(result.sent) > SHOWN_REQUESTS:
        lines.append(f"  ... and {len(result.sent) - SHOWN_REQUESTS} more requests")
    for failure, strength in zip(result.failures, item.failure_strengths):
        what = strength_label(strength, failure.ambiguity, failure.advisory)
        lines.append(f"  at {failure.path or '/'} ({failure.check}; {what} {' '.join(failure.requirements)}): "
                     f"{failure.message}")
        lines.append(f"    expected: {value_text(failure.expected)}")
        lines.append(f"    actual:   {value_text(failure.actual)}")
        if failure.note:
            lines.append(f"    note: {failure.note}")
    if result.outcome in ("error", "not_applicable") and result.detail:
        lines.append(f"  {result.detail}")
    tail = result.stderr_tail.strip().splitlines()[-STDERR_LINES:]
    if tail:
        lines.append("  adapter stderr while this vector ran (last lines):")
        lines.append(indent("\n".join(tail), "    | "))
    elif result.outcome in ("fail", "error"):
        lines.append("  adapter stderr while this vector ran: (none)")
    lines.append(f"  vector file: {vector.file}")
    return "\n".join(lines)
