"""`memoir-conform mutants`: listing, usage errors, and a small real run end to end."""

from __future__ import annotations

import json

import pytest

from conformance import resources
from conformance.cli import main
from conformance.mutants import command
from conformance.mutants.evaluate import Selection
from conformance.mutants.registry import Registry
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import load_corpus


def test_list_names_every_mutant(capsys, registry):
    assert main(["mutants", "--list"]) == 0
    out = capsys.readouterr().out
    for mutant in registry.mutants:
        assert mutant.name in out


def test_an_unknown_mutant_is_a_usage_error(capsys):
    assert main(["mutants", "no-such-mutant"]) == 2
    assert "no mutant matches 'no-such-mutant'" in capsys.readouterr().err


def test_a_broken_mutant_table_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setattr(command, "load_registry", lambda: Registry([], ["mutants.json: mutants[0]: level 'x' ..."]))
    assert main(["mutants"]) == 2
    assert "the mutant table is broken" in capsys.readouterr().err


def _small_selection(_roots=()) -> Selection:
    """A few real vectors, at least one per level, among them those that catch mutant 26."""
    corpus = load_corpus([resources.vectors_dir()])
    wanted = {"read.session.absent", "write.stamp.new-session-has-version"}
    vectors = [v for v in corpus.vectors if v.id in wanted or v.id.startswith("merge.machines.")]
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    return Selection(vectors, index, corpus.digest)


@pytest.mark.slow
def test_a_real_run_writes_both_reports(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(command, "load_selection", _small_selection)
    markdown, report_json = tmp_path / "reports" / "mutants.md", tmp_path / "mutants.json"
    code = main(["mutants", "26", "-j", "2", "--report", str(markdown), "--json", str(report_json)])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert captured.err == ""   # no progress off a terminal
    assert "Mutation score: 1/1 mutants of MUST rules killed (100%)" in captured.out
    data = json.loads(report_json.read_text(encoding="utf-8"))
    (verdict,) = data["mutants"]
    assert verdict["name"] == "26_machines_older_last_seen" and verdict["killed"]
    assert verdict["earned"] == "writer" and verdict["lost"] == "full"
    assert "merge.machines.local-newer-last-seen-wins" in verdict["caught_at_level"]
    assert "| `26_machines_older_last_seen` |" in markdown.read_text(encoding="utf-8")
