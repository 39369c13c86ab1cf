"""`memoir-conform merge-reports`: shard reports of one run graded as one, or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runner_helpers import vector, write_vector_file

from conformance.cli import main
from conformance.runner.shards import Shard, pick
from conformance.runner.vectors import load_corpus

COUNT = 3
VECTORS = [
    vector("m.read.fact", op="read_store", level="reader", sections=["3.2"], requirements=["S8-reader-ignore-unknown-fields"],
           input={"store": {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\nextra: 1\n---\nbody\n"}}},
           expect=[{"path": "/entries/fact_a", "matches": {"status": "ok", "type": "fact"}}]),
    vector("m.read.wrong", op="read_store", level="reader", sections=["3.2"], requirements=["S8-reader-ignore-unknown-fields"],
           input={"store": {"files": {"memory/fact_b.md": "---\ntype: fact\nname: B\n---\nbody\n"}}},
           expect=[{"path": "/entries/fact_b", "matches": {"type": "lesson"}}]),
    vector("m.write.add", op="write", level="writer", sections=["5.3.2"],
           requirements=["S5.3.2-complete-removes-and-records"],
           input={"steps": [{"op": "add_next_action", "args": {"text": "Ship it"}},
                            {"op": "complete_next_action", "args": {"text": "ship it"}}]},
           expect=[{"path": "/live/next_actions", "count": 0}]),
    vector("m.merge.union"),
    vector("m.merge.wrong", expect=[{"path": "/live/next_actions", "identities": ["local"]}]),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("vectors")
    write_vector_file(root, "m/vectors.json", VECTORS)
    return root


def run(capsys, corpus: Path, *args) -> int:
    code = main(["run", "--model", "--no-bundled", "--vectors", str(corpus), "--quiet", *map(str, args)])
    capsys.readouterr()
    return code


@pytest.fixture(scope="module")
def shards(corpus, tmp_path_factory) -> list[Path]:
    out = tmp_path_factory.mktemp("shards")
    paths = []
    for index in range(1, COUNT + 1):
        path = out / f"shard-{index}.json"
        main(["run", "--model", "--no-bundled", "--vectors", str(corpus), "--quiet", "--shard", f"{index}/{COUNT}",
              "--json", str(path)])
        paths.append(path)
    return paths


def shard_of(corpus: Path, vector_id: str, count: int = COUNT) -> int:
    vectors = load_corpus([corpus]).vectors
    return next(k for k in range(1, count + 1) if vector_id in {v.id for v in pick(vectors, Shard(k, count))})


def merge(capsys, *paths, out: Path, extra=()) -> tuple[int, str]:
    code = main(["merge-reports", *map(str, paths), "-o", str(out), *extra])
    return code, capsys.readouterr().err


def test_merged_shards_grade_like_one_run(capsys, corpus, shards, tmp_path):
    whole = tmp_path / "whole.json"
    whole_code = run(capsys, corpus, "--json", whole)
    code = main(["merge-reports", *map(str, shards), "-o", str(tmp_path / "merged.json"),
                 "--junit", str(tmp_path / "merged.xml")])
    out = capsys.readouterr().out
    merged, single = json.loads((tmp_path / "merged.json").read_text()), json.loads(whole.read_text())
    assert code == whole_code == 1
    for key in ("claimed", "earned", "reached_if_waived_fixed", "levels", "must", "should", "advisory", "verdict"):
        assert merged["grade"][key] == single["grade"][key], key
    assert [(v["id"], v["outcome"]) for v in merged["vectors"]] == [(v["id"], v["outcome"]) for v in single["vectors"]]
    assert merged["grade"]["filtered"] is False and merged["options"]["shard"] is None
    assert merged["options"]["merged_shards"] == COUNT and merged["corpus_digest"] == single["corpus_digest"]
    assert out.splitlines()[-1] == single["grade"]["verdict"]
    assert (tmp_path / "merged.xml").is_file()


def test_a_shard_grades_no_level_and_fails_only_for_what_fails_the_run(capsys, corpus, tmp_path):
    reader_shard, full_shard = shard_of(corpus, "m.read.wrong"), shard_of(corpus, "m.merge.wrong")
    report = tmp_path / "s.json"
    assert run(capsys, corpus, "--shard", f"{reader_shard}/{COUNT}", "--json", report) == 1
    grade = json.loads(report.read_text())["grade"]
    assert grade["earned"] is None and grade["filtered"] is True and grade["verdict"].startswith(f"shard {reader_shard}/")
    assert full_shard != reader_shard   # so the ids are chosen
    # Claiming Reader, a failed Full vector fails no shard (as it fails no whole run).
    assert run(capsys, corpus, "--shard", f"{full_shard}/{COUNT}", "--claim", "reader") == 0
    assert run(capsys, corpus, "--shard", f"{full_shard}/{COUNT}") == 1


def test_the_shards_verdicts_are_not_trusted(capsys, corpus, shards, tmp_path):
    index = shard_of(corpus, "m.read.wrong") - 1
    forged = json.loads(shards[index].read_text())
    for record in forged["vectors"]:
        record.update(outcome="pass", failed_strengths=[], decides=False)
    forged["grade"].update(earned="full", reached_if_waived_fixed="full", exit_code=0, verdict="memoir Full earned")
    forged_path = tmp_path / "forged.json"
    forged_path.write_text(json.dumps(forged))
    paths = [forged_path if n == index else path for n, path in enumerate(shards)]
    code, _ = merge(capsys, *paths, out=tmp_path / "merged.json")
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert code == 1 and merged["grade"]["earned"] is None
    assert next(v for v in merged["vectors"] if v["id"] == "m.read.wrong")["outcome"] == "fail"


def _changed(path: Path, tmp_path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    changed = tmp_path / f"changed-{path.name}"
    changed.write_text(json.dumps(data))
    return changed


@pytest.mark.parametrize("change, message", [
    (lambda r: r["kit"].update(version="9.9.9"), "their kit version differs"),
    (lambda r: r.update(corpus_digest="0" * 64), "their corpus digest differs"),
    (lambda r: r["implementation"]["describe"].update(name="another"), "their implementation (describe answer) differs"),
    (lambda r: r["options"].update(claim="reader"), "their vector selection differs"),
    (lambda r: r["options"].update(shard="2/4"), "is shard 2/4"),
    (lambda r: r["options"].update(shard=None), "not a shard report"),
    (lambda r: r["vectors"].pop(), "ran"),
    (lambda r: r.update(report_version=1), "not a memoir-conform run report"),
])
def test_shards_of_different_runs_are_refused(capsys, shards, tmp_path, change, message):
    paths = [shards[0], _changed(shards[1], tmp_path, change), *shards[2:]]
    code, err = merge(capsys, *paths, out=tmp_path / "merged.json")
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "merged.json").exists()


def test_a_missing_or_repeated_shard_is_refused(capsys, shards, tmp_path):
    code, err = merge(capsys, *shards[:-1], out=tmp_path / "m.json")
    assert code == 2 and f"shard {COUNT}/{COUNT} missing" in err
    code, err = merge(capsys, shards[0], *shards, out=tmp_path / "m.json")
    assert code == 2 and "given twice" in err


def test_a_corpus_other_than_the_shards_is_refused(capsys, shards, tmp_path):
    other = tmp_path / "other"
    write_vector_file(other, "m/vectors.json", VECTORS[:2])
    code, err = merge(capsys, *shards, out=tmp_path / "m.json", extra=["--vectors", str(other)])
    assert code == 2 and "the shards ran corpus" in err
