"""`vectors derive`: the reader vectors derived from the merge vectors are checked in and up to date."""

from __future__ import annotations

from conformance import resources
from conformance.cli import main
from conformance.corpus import readers_from_merges
from conformance.runner.vectors import load_corpus


def test_the_checked_in_file_is_what_regeneration_gives():
    root = resources.vectors_dir()
    corpus = load_corpus([root])
    wanted = readers_from_merges.text(readers_from_merges.build(corpus.vectors))
    path = root / readers_from_merges.DERIVED_DIR / readers_from_merges.DERIVED_FILE
    assert path.read_text(encoding="utf-8") == wanted, "run `memoir-conform vectors derive` and commit the file"


def test_every_merge_vector_has_its_reader_vector():
    vectors = load_corpus([resources.vectors_dir()]).vectors
    ids = {vector.id for vector in vectors}
    bases = [v for v in vectors if v.op in readers_from_merges.MERGE_OPS and not v.derived]
    assert bases and all(readers_from_merges.derived_id(base.id) in ids for base in bases)


def test_check_mode_reports_an_out_of_date_file(monkeypatch, tmp_path, capsys):
    vectors = tmp_path / "vectors"
    (vectors / "merge").mkdir(parents=True)
    (vectors / "merge" / "m.json").write_text(
        '{"vectors": [{"id": "merge.t.one", "title": "t", "sections": ["5.2"], "requirements": ["S5.2-union-by-identity"],'
        ' "level": "full", "op": "merge_sessions", "input": {"local": {"version": 1, "current": {"goals": '
        '[{"text": "A", "set_on": "2026-01-01"}]}}, "remote": {"version": 1}}, "expect": [{"path": "/live/goals", '
        '"identities": ["A"]}]}]}', encoding="utf-8")
    monkeypatch.setattr(resources, "vectors_dir", lambda: vectors)
    assert main(["vectors", "derive", "--check"]) == 1
    assert main(["vectors", "derive"]) == 0
    assert main(["vectors", "derive", "--check"]) == 0
    derived = load_corpus([vectors])
    assert derived.problems == []
    reader = next(v for v in derived.vectors if v.id == "read.from-merge.t.one")
    assert reader.op == "read_store" and reader.level == "reader"
    assert {"path": "/session/live/goals", "identities": ["A"]} in [
        {k: v for k, v in check.items() if k != "requirements"} for check in reader.expect]
