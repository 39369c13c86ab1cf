"""Builders for the runner tests: tiny synthetic vectors and vector files."""

from __future__ import annotations

import json
from pathlib import Path


def vector(id: str = "t.merge.union", *, op: str = "merge_sessions", level: str = "full",
           input: dict | None = None, expect: list | None = None, **extra) -> dict:
    """A minimal valid vector; override any field."""
    if input is None:
        input = {
            "local": {"version": 1, "current": {"next_actions": [{"text": "Local", "added": "2026-01-01T00:00:00Z"}]}},
            "remote": {"version": 1, "current": {"next_actions": [{"text": "Remote", "added": "2026-01-02T00:00:00Z"}]}},
        }
    if expect is None:
        expect = [{"path": "/live/next_actions", "identities": ["local", "remote"]}]
    data = {
        "id": id,
        "title": f"title of {id}",
        "sections": ["5.2"],
        "requirements": ["S5.2-union-by-identity"],
        "level": level,
        "op": op,
        "input": input,
        "expect": expect,
    }
    data.update(extra)
    return data


def write_vector_file(root: Path, relative: str, vectors: list[dict], **extra) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"description": "test vectors", "vectors": vectors, **extra}, indent=2), encoding="utf-8")
    return path


def run_report(capsys, vectors_root: Path, vectors: list[dict], *options) -> tuple[int, str, dict]:
    """`memoir-conform run` of `vectors` with a JSON report: (exit code, stdout, vector id -> its report
    entry, and "$report" -> the whole report)."""
    from conformance.cli import main

    write_vector_file(vectors_root, "t/run.json", vectors)
    report = vectors_root.parent / "report.json"
    code = main(["run", "--no-bundled", "--vectors", str(vectors_root), "--json", str(report), *map(str, options)])
    out = capsys.readouterr().out
    document = json.loads(report.read_text(encoding="utf-8"))
    return code, out, {item["id"]: item for item in document["vectors"]} | {"$report": document}
