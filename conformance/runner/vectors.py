"""Loading vector files: validation, typed vectors, digests, expansion.

A vector file (docs/architecture.md, "Vector files") is JSON checked
against `schema/vector.schema.json`. Loading never raises on bad input: a
file that is not valid gives a `VectorFileProblem` naming the file and the
JSON path of the problem, and the run refuses to start. Vectors are kept
unexpanded (their digest is of what the file says); `expand` resolves the
cap-dependent `$repeat` lists against an implementation's declared caps
just before the vector runs, and `materialise_store` writes a STORE spec
into a scratch directory.

Every expectation of a vector (a check, a step's `expect_error`, the
runner's own check of a runner-driven op) checks some of the vector's
requirements and may rest on an interpretation: `Expectation` says which,
and `conformance.runner.strength` turns that into MUST, SHOULD or advisory.
"""

from __future__ import annotations

import base64
import binascii
import copy
import functools
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import jsonschema
from jsonschema.exceptions import best_match

from conformance import linear_schema, patterns, resources, schema_errors
from conformance.model.session import DEFAULT_CAPS
from conformance.nesting import MAX_DEPTH, nesting_depth
from conformance.runner.derived import with_derived

SKIPPED_FILES = ("requirements.json", "boundaries.json")
STORES_DIR = "stores"
# Top-level folders of vectors/ that hold no vector files: golden stores,
# and the validator's fixtures for the sibling formats (docs/sibling-formats.md).
SKIPPED_DIRS = (STORES_DIR, "siblings")
LEVELS = ("reader", "writer", "full")
CHECK_KEYWORDS = (
    "equals", "one_of", "identities", "contains", "excludes", "order", "absent",
    "count", "matches", "stamped", "unchanged", "preserved",
)
# Ops the runner drives itself, judged by the runner's own check.
RUNNER_DRIVEN_OPS = ("concurrent_writes", "atomic_writes", "atomic_merges")
# MAY features of the spec a write step can use (its `feature`), and the spec
# section that makes each optional.
FEATURES = {"purge": "5.3.1"}
# What an implementation that declares no `choices` in describe is taken to
# have chosen where the spec offers a choice (docs/adapter-protocol.md, E14).
DEFAULT_CHOICES = {"entry_file_merge": "newest"}
# Optional reports of read_store a vector can need (its `reports`), and the
# spec section whose MUST each one shows (docs/adapter-protocol.md, E15).
REPORTS = {"entry_live": "8"}
_IDENTIFIER = patterns.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COUNT = patterns.compile(r"caps\.([a-z_]+)(?:([+-])([0-9]+))?")
_TS_BASE = datetime(2026, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class VectorFileProblem:
    """Why a vector file (or one vector in it) cannot be used."""

    file: str          # the file as the user would find it
    json_path: str     # "$" for the whole file, else like "$.vectors[2].expect[0]"
    message: str

    def __str__(self) -> str:
        return f"{self.file}: at {self.json_path}: {self.message}"


@dataclass(frozen=True)
class Expectation:
    """What one expectation of a vector checks: the requirements it checks and
    the interpretation it depends on (None: it holds under every reading)."""

    requirements: tuple[str, ...]
    ambiguity: str | None = None


@dataclass(frozen=True)
class Vector:
    """One vector as its file states it (unexpanded)."""

    id: str
    title: str
    sections: tuple[str, ...]
    requirements: tuple[str, ...]
    level: str
    tags: tuple[str, ...]
    ambiguity: str | None
    op: str
    input: dict
    expect: tuple[dict, ...]
    digest: str
    file: str            # where it was loaded from, for messages
    root: Path           # the vectors directory it belongs to (golden stores live under it)
    note: str | None = None
    min_caps: dict = field(default_factory=dict)   # cap -> the least value the vector can run with
    choices: dict = field(default_factory=dict)    # choice -> the value the vector needs
    reports: tuple[str, ...] = ()                  # optional read_store reports it needs (E15)
    derived: str | None = None                     # "swapped" / "idempotent": a metamorphic check of `base`
    base: Vector | None = None
    spec: str | None = None                        # graded for this older spec version (`--spec`); None: the latest

    @property
    def ambiguous(self) -> bool:
        return "ambiguous" in self.tags

    @property
    def default_expectation(self) -> Expectation:
        return Expectation(self.requirements, self.ambiguity)

    def check_expectation(self, check: dict) -> Expectation:
        """A check's requirements and ambiguity: its own, else the vector's."""
        requirements = tuple(check.get("requirements") or self.requirements)
        ambiguity = check["ambiguity"] if "ambiguity" in check else self.ambiguity
        return Expectation(requirements, ambiguity)

    def expectations(self) -> list[Expectation]:
        """Every expectation of the vector: its checks, the refusals its steps
        expect, and the runner's own check of a runner-driven or derived vector."""
        found = [self.check_expectation(check) for check in self.expect]
        if self.op == "write":
            found += [self.default_expectation for step in write_steps(self.input) if "expect_error" in step]
        if self.op in RUNNER_DRIVEN_OPS or self.derived:
            found.append(self.default_expectation)
        return found

    def refusal_expectation(self) -> Expectation:
        """What an unexpected refusal of an op leaves unshown: every expectation
        that holds under every reading, else (all advisory) the vector's own."""
        shown = [expectation for expectation in self.expectations() if expectation.ambiguity is None]
        if not shown:
            return Expectation(self.requirements, self.ambiguity or next(
                (e.ambiguity for e in self.expectations() if e.ambiguity), None))
        return Expectation(tuple(dict.fromkeys(rid for e in shown for rid in e.requirements)), None)

    @property
    def level_rank(self) -> int:
        return LEVELS.index(self.level)


@dataclass
class Corpus:
    """Every vector found, and every problem that stops a run."""

    vectors: list[Vector] = field(default_factory=list)
    problems: list[VectorFileProblem] = field(default_factory=list)

    @property
    def digest(self) -> str:
        return corpus_digest(self.vectors)


@dataclass(frozen=True)
class ExpansionProblem:
    """A vector that cannot be expanded against these caps."""

    json_path: str
    message: str

    def __str__(self) -> str:
        return f"at {self.json_path}: {self.message}"


# --- digests ---------------------------------------------------------------

def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def vector_digest(raw_vector: dict) -> str:
    """sha256 hex of the vector's canonical JSON, as its file states it."""
    return hashlib.sha256(canonical_json(raw_vector).encode("utf-8")).hexdigest()


def corpus_digest(vectors: Iterable[Vector]) -> str:
    """sha256 hex over the sorted digests of all vectors."""
    joined = "\n".join(sorted(vector.digest for vector in vectors))
    return hashlib.sha256(joined.encode("ascii")).hexdigest()


# --- loading ---------------------------------------------------------------

def vector_files(root: Path) -> list[Path]:
    """Every vector file under `root`: `**/*.json`, minus the requirement
    index and the boundary-case index, the golden stores and the
    sibling-format fixtures."""
    found = []
    for path in sorted(root.rglob("*.json")):
        relative = path.relative_to(root)
        if relative.parts[0] in SKIPPED_DIRS or (len(relative.parts) == 1 and relative.name in SKIPPED_FILES):
            continue
        found.append(path)
    return found


def _display(path: Path, root: Path) -> str:
    try:
        return str(Path(root.name) / path.relative_to(root))
    except ValueError:
        return str(path)


def _json_path(parts: Iterable[object]) -> str:
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(str(part)):
            text += f".{part}"
        else:
            text += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return text


def _schema_message(error: jsonschema.ValidationError) -> str:
    """A readable message for the most relevant schema error."""
    instance = error.instance
    if error.validator == "oneOf" and isinstance(instance, dict) and "path" in instance:
        present = [key for key in CHECK_KEYWORDS if key in instance]
        if not present:
            return f"a check needs one keyword of {', '.join(CHECK_KEYWORDS)}; found none"
        if len(present) > 1:
            return f"a check has exactly one keyword; found {', '.join(present)}"
    if error.validator == "additionalProperties":
        return error.message
    if error.validator in ("anyOf", "oneOf"):
        shown = json.dumps(instance, ensure_ascii=False)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        return f"{shown} matches none of the allowed forms ({error.validator} in schema at {'/'.join(map(str, error.schema_path))})"
    return error.message


@functools.lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    schema = resources.load_schema("vector.schema.json")
    return linear_schema.validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@functools.lru_cache(maxsize=1)
def _error_finder():
    return schema_errors.error_finder(resources.load_schema("vector.schema.json"))


def _schema_errors(document: object) -> list[jsonschema.ValidationError]:
    """jsonschema's errors on `document`, by path. jsonschema is asked only when the
    error finder (conformance.schema_errors, five times cheaper) is not sure there is none."""
    if _error_finder()(document) == []:
        return []
    return sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))


# The sha256 of every vector file text this process found valid against the schema. The schema
# check is half the cost of loading the corpus (half a second of CPU for the bundled one), and
# its verdict depends on the text alone: a process that loads the corpus again (the kit's tests run
# dozens of commands in one process; the pytest plugin and `merge-reports` load it beside `run`)
# checks only the files whose text changed. Everything else is still checked on every load.
_SCHEMA_VALID: set[bytes] = set()


def load_vector_file(path: Path, root: Path) -> tuple[list[Vector], list[VectorFileProblem]]:
    """The vectors of one file, or the problems that make it unusable."""
    shown = _display(path, root)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [], [VectorFileProblem(shown, "$", f"cannot read: {error}")]
    try:
        document = json.loads(text)
        too_deep = nesting_depth(document) > MAX_DEPTH
    except json.JSONDecodeError as error:
        return [], [VectorFileProblem(shown, "$", f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})")]
    except RecursionError:  # deeper than json.loads itself reads
        too_deep = True
    if too_deep:
        # Loading, expanding and running a vector copy and walk what it holds: keep them from Python's stack limit.
        return [], [VectorFileProblem(shown, "$", f"nested more than {MAX_DEPTH} levels deep; give a deeper "
                                                  'session.json as text ({"$text": "..."})')]
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    errors = [] if digest in _SCHEMA_VALID else _schema_errors(document)
    if not errors:
        _SCHEMA_VALID.add(digest)
    else:
        problems = []
        seen = set()
        # One message per failing location, the most relevant error there.
        for error in errors:
            location = tuple(error.absolute_path)
            if any(location[: len(other)] == other for other in seen):
                continue
            seen.add(location)
            best = best_match([e for e in errors if tuple(e.absolute_path) == location]) or error
            problems.append(VectorFileProblem(shown, _json_path(best.absolute_path), _schema_message(best)))
        return [], problems

    vectors, problems = [], []
    for index, raw in enumerate(document["vectors"]):
        where = f"$.vectors[{index}]"
        found = [VectorFileProblem(shown, where + rest, message) for rest, message in _semantic_problems(raw, root)]
        loaded = _vector(raw, shown, root)
        if not found:
            # What a $repeat produces must be valid too; try it with the default caps.
            expanded = expand(loaded, DEFAULT_CAPS)
            if isinstance(expanded, ExpansionProblem):
                found.append(VectorFileProblem(shown, where + expanded.json_path[1:], expanded.message))
        problems.extend(found)
        vectors.append(loaded)
    if problems:
        return [], problems
    return vectors, []


def write_steps(input: dict) -> list[dict]:
    """The steps of a write input, a `$repeat` element standing for its item."""
    return [step["item"] if "$repeat" in step else step for step in input.get("steps", ())
            if isinstance(step, dict)]


def _vector(raw: dict, shown: str, root: Path) -> Vector:
    return Vector(
        id=raw["id"],
        title=raw["title"],
        sections=tuple(raw["sections"]),
        requirements=tuple(raw["requirements"]),
        level=raw["level"],
        tags=tuple(raw.get("tags", ())),
        ambiguity=raw.get("ambiguity"),
        op=raw["op"],
        input=raw["input"],
        expect=tuple(raw["expect"]),
        digest=vector_digest(raw),
        file=shown,
        root=root,
        note=raw.get("note") or raw.get("description"),
        min_caps=dict(raw.get("min_caps", {})),
        choices=dict(raw.get("choices", {})),
        reports=tuple(raw.get("reports", ())),
    )


def _semantic_problems(raw: dict, root: Path) -> Iterable[tuple[str, str]]:
    """What the schema cannot say: COUNT caps that exist, golden stores that
    exist, base64 that decodes."""
    for parts, value in _walk(raw["input"], ("input",)):
        if isinstance(value, dict) and "$repeat" in value:
            for key in ("$repeat", "start"):
                problem = _count_problem(value[key]) if key in value else None
                if problem:
                    yield _json_path(parts + (key,))[1:], problem
        if isinstance(value, dict) and set(value) == {"$base64"} and isinstance(value["$base64"], str):
            try:
                base64.b64decode(value["$base64"], validate=True)
            except (binascii.Error, ValueError):
                yield _json_path(parts)[1:], "$base64 is not valid base64"
        is_store = parts[-1] == "store" or (raw["op"] == "merge_stores" and parts[-1] in ("local", "remote"))
        if is_store and isinstance(value, dict) and isinstance(value.get("dir"), str):
            if not (root / value["dir"]).is_dir():
                yield _json_path(parts + ("dir",))[1:], f"golden store {value['dir']!r} not found under {root.name}/"
    yield from _annotation_problems(raw)
    for index, check in enumerate(raw["expect"]):
        if isinstance(check.get("count"), str):
            problem = _count_problem(check["count"])
            if problem:
                yield f".expect[{index}].count", problem
        for parts, value in _walk(check, ("expect", index)):
            if isinstance(value, dict) and "$repeat" in value:
                for key in ("$repeat", "start"):
                    problem = _count_problem(value[key]) if key in value else None
                    if problem:
                        yield _json_path(parts + (key,))[1:], problem


def _annotation_problems(raw: dict) -> Iterable[tuple[str, str]]:
    """A check names only requirements of its vector; the tag `ambiguous` is
    there exactly when some expectation depends on an interpretation."""
    vector = _vector(raw, "", Path("."))
    for index, check in enumerate(raw["expect"]):
        foreign = [rid for rid in check.get("requirements", ()) if rid not in vector.requirements]
        if foreign:
            yield (f".expect[{index}].requirements",
                   f"{', '.join(foreign)} not among the vector's requirements (a check names a subset of them)")
    depends = sorted({e.ambiguity for e in vector.expectations() if e.ambiguity})
    if depends and not vector.ambiguous:
        yield ".tags", f"an expectation depends on {', '.join(depends)}: tag the vector 'ambiguous'"
    if vector.ambiguous and not depends:
        yield ".tags", ("tagged 'ambiguous' but no expectation depends on an interpretation: name the "
                        "\"ambiguity\" (an AMB-... id of docs/spec-ambiguities.md) of the vector or of a check")


def _walk(value: object, parts: tuple) -> Iterable[tuple[tuple, object]]:
    yield parts, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _walk(child, parts + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _walk(child, parts + (index,))


def _count_problem(count: object) -> str | None:
    if isinstance(count, bool) or not isinstance(count, (int, str)):
        return "a count is an integer or 'caps.<list>[+n|-n]'"
    if isinstance(count, int):
        return None if count >= 0 else "a count cannot be negative"
    match = _COUNT.fullmatch(count)
    if not match:
        return f"{count!r} is not a count: use an integer or 'caps.<list>[+n|-n]'"
    if match.group(1) not in DEFAULT_CAPS:
        return f"{count!r}: no cap named {match.group(1)!r} (caps: {', '.join(DEFAULT_CAPS)})"
    return None


def load_corpus(roots: Iterable[Path]) -> Corpus:
    """Every vector under each root, checked, and the vectors derived from the
    merge vectors (`conformance.runner.derived`); duplicate ids across files are problems."""
    corpus = Corpus()
    first_seen: dict[str, Vector] = {}
    for root in roots:
        root = Path(root)
        if not root.is_dir():
            corpus.problems.append(VectorFileProblem(str(root), "$", "no such vectors directory"))
            continue
        for path in vector_files(root):
            vectors, problems = load_vector_file(path, root)
            corpus.problems.extend(problems)
            for position, vector in enumerate(vectors):
                earlier = first_seen.get(vector.id)
                if earlier is not None:
                    corpus.problems.append(VectorFileProblem(
                        vector.file, f"$.vectors[{position}].id",
                        f"duplicate vector id {vector.id!r}: already defined in {earlier.file}",
                    ))
                    continue
                first_seen[vector.id] = vector
                corpus.vectors.append(vector)
    corpus.vectors = with_derived(corpus.vectors)
    return corpus


# --- expansion ---------------------------------------------------------------

def effective_caps(declared: dict | None) -> dict:
    """The implementation's declared caps over the reference defaults."""
    caps = dict(DEFAULT_CAPS)
    for name, value in (declared or {}).items():
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            caps[name] = value
    return caps


def evaluate_count(count: object, caps: dict) -> int | str:
    """The integer a COUNT stands for, or a message saying why it has none."""
    problem = _count_problem(count)
    if problem:
        return problem
    if isinstance(count, int):
        return count
    name, sign, offset = _COUNT.fullmatch(count).groups()
    if name not in caps:
        return f"{count!r}: the implementation declares no cap {name!r}"
    value = caps[name] + (int(offset) if sign == "+" else -int(offset or 0))
    if value < 0:
        return f"{count!r} is negative with caps.{name} = {caps[name]}"
    return value


def timestamp(index: int) -> str:
    moment = _TS_BASE + timedelta(minutes=index)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _substitute(value: object, index: int) -> object:
    if isinstance(value, str):
        return value.replace("{i3}", f"{index:03d}").replace("{i}", str(index)).replace("{ts}", timestamp(index))
    if isinstance(value, list):
        return [_substitute(item, index) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item, index) for key, item in value.items()}
    return value


def repeat_order(count: int, order: str | None = None) -> list[int]:
    """The indexes 1..count in the order a `$repeat` emits its copies.

    "ascending" (the default) and "descending" are what they say; "shuffled"
    is fixed: the middle index first, then alternately the lowest and the
    highest left, so that from four copies on neither the first nor the last
    copy holds the lowest or the highest index (a list on disk that is
    sorted neither way, spec 4.1 rotation is by date, never by position).
    """
    indexes = list(range(1, count + 1))
    if order == "descending":
        return indexes[::-1]
    if order != "shuffled" or not indexes:
        return indexes
    shuffled = [indexes.pop((count - 1) // 2)]
    while indexes:
        shuffled.append(indexes.pop(0 if len(shuffled) % 2 else -1))
    return shuffled


def _expand(value: object, caps: dict, parts: tuple) -> object:
    if isinstance(value, dict):
        return {key: _expand(item, caps, parts + (key,)) for key, item in value.items()}
    if not isinstance(value, list):
        return value
    expanded = []
    for position, element in enumerate(value):
        if isinstance(element, dict) and "$repeat" in element and "item" in element:
            count = evaluate_count(element["$repeat"], caps)
            if isinstance(count, str):
                raise _ExpansionError(_json_path(parts + (position, "$repeat")), count)
            start = evaluate_count(element.get("start", 1), caps)
            if isinstance(start, str):
                raise _ExpansionError(_json_path(parts + (position, "start")), start)
            # Inner repeats are resolved first, so their {i} is their own index.
            item = _expand(element["item"], caps, parts + (position, "item"))
            expanded.extend(_substitute(item, start - 1 + index) for index in repeat_order(count, element.get("order")))
        else:
            expanded.append(_expand(element, caps, parts + (position,)))
    return expanded


class _ExpansionError(Exception):
    def __init__(self, json_path: str, message: str):
        super().__init__(message)
        self.json_path = json_path
        self.message = message


# Expansions already made, by (vector digest, vectors dir, caps). A mutation run
# expands every vector once per adapter, all with the same caps, and the schema
# check of a cap-sized expansion is most of what a vector costs the runner.
_EXPANSIONS: dict[tuple, Vector | ExpansionProblem] = {}
_EXPANSIONS_KEPT = 20_000


def expand(vector: Vector, caps: dict) -> Vector | ExpansionProblem:
    """The vector with every `$repeat` list and COUNT resolved against `caps`."""
    if vector.base is not None:
        base = expand(vector.base, caps)
        return base if isinstance(base, ExpansionProblem) else replace(vector, input=base.input, base=base)
    # A vector trimmed for an older spec (selection.for_spec) keeps its digest, not its checks.
    key = (vector.digest, str(vector.root), tuple(sorted(caps.items())), len(vector.expect))
    expanded = _EXPANSIONS.get(key)
    if expanded is None:
        if len(_EXPANSIONS) >= _EXPANSIONS_KEPT:
            _EXPANSIONS.clear()
        expanded = _EXPANSIONS[key] = _expand_vector(vector, caps)
    return expanded


def _expand_vector(vector: Vector, caps: dict) -> Vector | ExpansionProblem:
    try:
        expanded_input = _expand(copy.deepcopy(vector.input), caps, ("input",))
        expanded_expect = []
        for index, check in enumerate(vector.expect):
            check = _expand(copy.deepcopy(check), caps, ("expect", index))
            if isinstance(check.get("count"), str):
                count = evaluate_count(check["count"], caps)
                if isinstance(count, str):
                    raise _ExpansionError(f"$.expect[{index}].count", count)
                check["count"] = count
            expanded_expect.append(check)
    except _ExpansionError as error:
        return ExpansionProblem(error.json_path, error.message)
    if expanded_input == vector.input and tuple(expanded_expect) == vector.expect:
        return vector  # nothing to expand: valid as loaded
    expanded = Vector(**{**vector.__dict__, "input": expanded_input, "expect": tuple(expanded_expect)})
    # A repeated item must itself be valid where it lands (a write step, a check).
    error = best_match(_schema_errors({"vectors": [as_raw(expanded)]}))
    if error is not None:
        return ExpansionProblem(_json_path(list(error.absolute_path)[2:]), "after expansion: " + _schema_message(error))
    return expanded


def as_raw(vector: Vector) -> dict:
    """The vector as a file would state it (used to re-validate an expansion)."""
    raw = {
        "id": vector.id, "title": vector.title, "sections": list(vector.sections),
        "requirements": list(vector.requirements), "level": vector.level, "op": vector.op,
        "input": vector.input, "expect": list(vector.expect),
    }
    if vector.tags:
        raw["tags"] = list(vector.tags)
    if vector.ambiguity:
        raw["ambiguity"] = vector.ambiguity
    for key in ("min_caps", "choices"):
        if getattr(vector, key):
            raw[key] = getattr(vector, key)
    if vector.reports:
        raw["reports"] = list(vector.reports)
    return raw


# --- stores ------------------------------------------------------------------

def session_text(session: dict) -> str:
    """How the runner writes a session object given in a vector."""
    return json.dumps(session, indent=2, ensure_ascii=False)


def content_bytes(content: object) -> bytes:
    """The bytes of one file of a STORE spec (or one side of merge_sessions)."""
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, dict) and set(content) == {"$text"}:
        return content["$text"].encode("utf-8")
    if isinstance(content, dict) and set(content) == {"$base64"}:
        return base64.b64decode(content["$base64"])
    return session_text(content).encode("utf-8")


def content_text(content: object) -> str:
    """A session side of merge_sessions as the text an implementation reads."""
    return content_bytes(content).decode("utf-8", errors="surrogateescape")


def store_files(spec: dict | None, root: Path) -> dict[str, bytes]:
    """relpath -> bytes of every file a STORE spec holds: its golden store's,
    overlaid by its `files`."""
    files: dict[str, bytes] = {}
    spec = spec or {}
    if "dir" in spec:
        source = root / spec["dir"]
        for path in sorted(source.rglob("*")):
            if path.is_file():
                files[path.relative_to(source).as_posix()] = path.read_bytes()
    for relative, content in spec.get("files", {}).items():
        files[relative] = content_bytes(content)
    return files


class PlantedLink(Exception):
    """A link where the runner is about to write. Only an adapter can have left it there, and
    the runner, outside any sandbox the adapter runs in, would write wherever it points."""


def refuse_links(destination: Path, base: Path) -> None:
    """Raise PlantedLink if `destination`, or a folder between it and `base` (both included), is a link."""
    path = destination
    while True:
        if path.is_symlink():
            raise PlantedLink(f"{path.relative_to(base.parent).as_posix()} is a link (to {os.readlink(path)!r}) "
                              "where the runner writes next; it never writes through a link an adapter left")
        if path == base or path == path.parent:
            return
        path = path.parent


def materialise_store(spec: dict | None, root: Path, target: Path) -> dict[str, bytes]:
    """Write a STORE spec into `target` (created); return relpath -> bytes of
    every file written, the store's original bytes."""
    refuse_links(target, target.parent)
    target.mkdir(parents=True, exist_ok=True)
    written = store_files(spec, root)
    for relative, data in written.items():
        destination = target / relative
        refuse_links(destination, target.parent)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    return written


def snapshot(directory: Path) -> dict[str, bytes]:
    """relpath -> bytes of every file under `directory` (empty when it is missing)."""
    if not directory.is_dir():
        return {}
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*")) if path.is_file()
    }
