"""The mutation reports: the committed Markdown table, the JSON, the console."""

from __future__ import annotations

import json

from mutant_helpers import adapter_run, mutant, mutation_run

from conformance.mutants import report
from conformance.runner.execute import FAIL

KILLED = (mutant("full", "01", "caught"), adapter_run("m1", {"f.one": FAIL, "f.two": FAIL, "f.three": FAIL,
                                                             "f.four": FAIL, "s.should": FAIL}))
SURVIVED = (mutant("writer", "02", "missed"), adapter_run("m2", {"r.one": FAIL}))


def _row(text: str, name: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| `{name}`"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


def test_markdown_table_has_rule_levels_catches_and_score():
    text = report.markdown(mutation_run(KILLED, SURVIVED))
    assert "**Mutation score: 1/2 mutants of MUST rules killed (50%).**" in text
    assert "the reference adapter earns memoir Full" in text
    cells = _row(text, "01_caught")
    assert cells[1] == "a synthetic \\| bug"          # a pipe in a cell does not split the row
    assert cells[2:10] == ["5.2", "S5.2-newest-wins", "MUST", "Full", "Full", "Writer", "Full",
                           "4: `f.four`, `f.one`, `f.three` (+1 more)"]
    assert cells[10] == "killed"
    assert _row(text, "02_missed")[7:11] == ["none", "Reader", "1: `r.one`", "SURVIVED"]


def test_markdown_lists_survivors_and_every_catching_vector():
    text = report.markdown(mutation_run(KILLED, SURVIVED))
    assert "## Survivors" in text
    assert "- `02_missed`: no writer vector catches it (only reader vectors do)" in text
    assert ("- `01_caught` (Full bug): Full vectors: `f.four`, `f.one`, `f.three`, `f.two`; "
            "failed only SHOULD or advisory checks (not counted as catches): `s.should` (should)") in text


def test_markdown_is_the_same_for_the_same_results():
    """It is committed: no timings, nothing that changes between two runs of one corpus."""
    first = report.markdown(mutation_run(KILLED))
    again = mutation_run(KILLED)
    again.duration = 99.0
    again.verdicts[0].run.duration = 42.0
    assert report.markdown(again) == first
    assert "Survivors" not in first


def test_a_reference_that_does_not_conform_is_said_in_the_report():
    text = report.markdown(mutation_run(KILLED, reference=adapter_run("reference", {"w.one": FAIL})))
    assert "the reference adapter earns memoir Reader, not Full (1 vectors do not pass: w.one)" in text


def test_json_report(tmp_path):
    path = tmp_path / "out" / "mutants.json"
    report.write_json(mutation_run(KILLED, SURVIVED), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["score"] == {"killed": 1, "total": 2}
    assert data["reference"]["earned"] == "full" and data["reference"]["not_passing"] == []
    first, second = data["mutants"]
    assert first["caught_by"] == ["f.four", "f.one", "f.three", "f.two"]
    assert first["other_failures"] == ["s.should"] and first["killed"] is True
    assert second["killed"] is False and second["caught_at_level"] == [] and second["lost"] == "reader"


def test_console_shows_survivors_score_and_time():
    text = report.console(mutation_run(KILLED, SURVIVED))
    assert "SURVIVED 02_missed: no writer vector catches it" in text
    assert "Mutation score: 1/2 mutants of MUST rules killed (50%); 3 runs of 8 vectors in 3.5s with 2 jobs" in text
