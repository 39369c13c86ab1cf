"""`memoir-conform vectors show ID`: one vector, whole, with the files it starts from.

A failure block shows a vector's input abbreviated; this prints it all: the
vector as its file states it, the requirements it tests with their text,
and every file of every store it starts from (a golden store's files with
the vector's overlay applied, session objects as the runner writes them),
or the two replica texts of a merge. `--extract DIR` writes those stores
into DIR instead, to run an implementation on them by hand. It reads the
corpus from wherever the kit is installed, golden stores included.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import json
import sys
from pathlib import Path

from conformance import resources
from conformance.safe_text import printable
from conformance.runner.requirements import index_for
from conformance.runner.grading import LEVEL_NAMES
from conformance.runner.vectors import Vector, content_text, load_corpus, store_files

EXIT_OK, EXIT_USAGE = 0, 2


def register(actions) -> None:
    show = actions.add_parser(
        "show", help="print one vector with its files (or --extract them)",
        description="Print a vector as its file states it, the requirements it tests, and every file of the "
                    "stores it starts from. Exit codes: 0 shown, 2 no such vector or unreadable corpus.")
    show.add_argument("vector_id", metavar="ID", help="the vector's id (as `run --list` shows it)")
    show.add_argument("--vectors", action="append", default=[], metavar="DIR", type=Path,
                      help="also look in the vector files under DIR (repeatable)")
    show.add_argument("--json", action="store_true", help="print only the vector's JSON")
    show.add_argument("--extract", metavar="DIR", type=Path,
                      help="write the stores (or replica texts) the vector starts from into DIR")
    show.set_defaults(handler=run_show)


def _error(message: str) -> int:
    print(f"memoir-conform vectors show: {message}", file=sys.stderr)
    return EXIT_USAGE


def raw_vector(vector: Vector) -> dict:
    """The vector as its file states it."""
    source = vector.base or vector
    document = json.loads((source.root.parent / source.file).read_text(encoding="utf-8"))
    return next(raw for raw in document["vectors"] if raw.get("id") == source.id)


def starting_files(vector: Vector) -> dict[str, dict[str, bytes]]:
    """name -> files (relpath -> bytes) of each input the vector starts from."""
    source = vector.base or vector
    if source.op == "merge_sessions":
        return {"replicas": {f"{side}.session.json": content_text(source.input[side]).encode("utf-8", "surrogateescape")
                             for side in ("local", "remote")}}
    if source.op == "merge_stores":
        return {side: store_files(source.input.get(side), source.root) for side in ("local", "remote")}
    return {"store": store_files(source.input.get("store"), source.root)}


def _file_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"({len(data)} bytes, not UTF-8; base64:)\n{base64.b64encode(data).decode('ascii')}\n"


def render(vector: Vector, requirements) -> str:
    source = vector.base or vector
    lines = [f"{vector.id}  [{LEVEL_NAMES[vector.level]}; spec {', '.join(vector.sections)}]", f"  {vector.title}",
             f"  file: {source.file}", f"  digest: {vector.digest}", f"  op: {vector.op}"]
    if vector.derived:
        lines.append(f"  derived ({vector.derived}) from {source.id}: the runner sends that vector's inputs "
                     "swapped or re-merged (spec 5.4)")
    if vector.tags:
        lines.append(f"  tags: {' '.join(vector.tags)}")
    for requirement_id in vector.requirements:
        requirement = requirements.get(requirement_id)
        lines.append(f"  requirement {requirement_id}" + (
            "" if requirement is None else f" ({requirement.keyword}, {requirement.section}): {requirement.text}"))
    lines += ["", f"vector (as {source.file} states it):", json.dumps(raw_vector(vector), indent=2, ensure_ascii=False)]
    for name, files in starting_files(vector).items():
        lines += ["", f"input {name}: {len(files)} file{'' if len(files) == 1 else 's'}"]
        for relative, data in files.items():
            lines.append(f"=== {relative} ({len(data)} bytes) ===")
            text = _file_text(data)
            lines.append(text if text.endswith("\n") else text + "\n(no newline at end of file)")
    return "\n".join(lines)


def extract(vector: Vector, target: Path) -> list[Path]:
    """Write the vector's starting stores under `target`; the paths written."""
    written = []
    for name, files in starting_files(vector).items():
        base = target if name == "replicas" else target / name
        for relative, data in files.items():
            path = base / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written.append(path)
        if name != "replicas":
            base.mkdir(parents=True, exist_ok=True)   # an empty store is a directory too
    return written


def run_show(args: argparse.Namespace) -> int:
    missing = [str(d) for d in args.vectors if not d.is_dir()]
    if missing:
        return _error(f"no such directory: {', '.join(missing)}")
    corpus = load_corpus([resources.vectors_dir(), *args.vectors])
    by_id = {vector.id: vector for vector in corpus.vectors}
    vector = by_id.get(args.vector_id)
    if vector is None:
        if corpus.problems:
            return _error(f"no vector {args.vector_id!r} (and {len(corpus.problems)} problem(s) in the vector files: "
                          "`memoir-conform vectors check`)")
        close = difflib.get_close_matches(args.vector_id, by_id, n=3, cutoff=0.6)
        return _error(f"no vector {args.vector_id!r}" + (f"; did you mean {', '.join(close)}?" if close else
                                                          " (`memoir-conform run --list` lists them)"))
    if args.json:
        print(json.dumps(raw_vector(vector), indent=2, ensure_ascii=False))
    elif args.extract:
        if args.extract.exists() and not (args.extract.is_dir() and not any(args.extract.iterdir())):
            return _error(f"{args.extract} exists and is not an empty directory; choose a new one")
        written = extract(vector, args.extract)
        print(f"wrote {len(written)} file(s) of {vector.id} under {args.extract}")
    else:
        print(printable(render(vector, index_for(args.vectors)), multiline=True))
    return EXIT_OK

