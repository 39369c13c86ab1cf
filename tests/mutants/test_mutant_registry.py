"""The mutant table (runners/mutants/mutants.json) and the mutant files agree, and cite real requirements."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from conformance import resources
from conformance.mutants.registry import load_registry, mutants_dir, select_mutants
from conformance.runner.requirements import load_requirements

REQUIREMENTS = load_requirements(resources.vectors_dir() / "requirements.json")


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_the_bundled_table_loads_and_has_at_least_26_mutants(registry):
    assert len(registry.mutants) >= 26
    assert [mutant.id for mutant in registry.mutants] == sorted(mutant.id for mutant in registry.mutants)


def test_every_mutant_file_is_listed(registry):
    on_disk = {path.name for path in mutants_dir().glob("[0-9]*.py")}
    assert on_disk == {mutant.file for mutant in registry.mutants}


@pytest.mark.parametrize("mutant", load_registry().mutants, ids=lambda mutant: mutant.name)
def test_requirements_are_known_and_sections_match(mutant):
    for requirement_id in mutant.requirements:
        requirement = REQUIREMENTS.get(requirement_id)
        assert requirement is not None, f"{requirement_id} is not in vectors/requirements.json"
        assert requirement.section in mutant.sections, f"{requirement_id} is of section {requirement.section}"


@pytest.mark.parametrize("mutant", load_registry().mutants, ids=lambda mutant: mutant.name)
def test_docstring_states_the_rule_and_level(mutant):
    text = _docstring(mutant.path)
    assert text.startswith(f"Mutant {mutant.id}:"), text[:60]
    assert f"Level: {mutant.level}." in " ".join(text.split())
    for requirement_id in mutant.requirements:
        assert requirement_id in text
    for section in mutant.sections:
        cited = r"Appendix A\b" if section == "A" else r"(?<![\d.])" + re.escape(section) + r"(?![\d])"
        assert re.search(cited, text), f"the docstring does not cite section {section}"


@pytest.mark.parametrize("mutant", load_registry().mutants, ids=lambda mutant: mutant.name)
def test_a_mutant_is_an_override_not_a_copy(mutant):
    source = mutant.path.read_text(encoding="utf-8")
    assert "serve_mutant(__file__, mutate)" in source
    assert len(source.splitlines()) < 80, "a mutant overrides one rule; it does not copy the model"


def _table(tmp_path: Path, rows: list, files: tuple[str, ...] = ()) -> Path:
    for name in files:
        (tmp_path / name).write_text('"""x"""\n', encoding="utf-8")
    (tmp_path / "mutants.json").write_text(json.dumps({"mutants": rows}), encoding="utf-8")
    return tmp_path


def _row(**overrides) -> dict:
    row = {"id": "01", "file": "01_x.py", "rule": "r", "sections": ["5.2"], "requirements": ["S5.2-newest-wins"],
           "level": "full"}
    row.update(overrides)
    return row


def test_a_valid_table(tmp_path):
    loaded = load_registry(_table(tmp_path, [_row()], ("01_x.py",)))
    assert loaded.problems == []
    assert loaded.mutants[0].name == "01_x"
    assert loaded.mutants[0].command()[-1] == str(tmp_path / "01_x.py")


@pytest.mark.parametrize("row, message", [
    (_row(level="sometimes"), "level 'sometimes' must be one of reader, writer, full"),
    (_row(file="02_x.py"), "must be `01_<slug>.py`"),
    (_row(file="01_missing.py"), "does not exist"),
    (_row(requirements=[]), "`requirements` must be a non-empty list of strings"),
    (_row(id="1"), "must be two or more digits"),
    (_row(rule=""), "`rule` must be a non-empty string"),
])
def test_a_bad_row_is_a_problem_naming_it(tmp_path, row, message):
    loaded = load_registry(_table(tmp_path, [row], ("01_x.py",)))
    assert loaded.mutants == []
    assert len(loaded.problems) == 1 and "mutants[0]" in loaded.problems[0] and message in loaded.problems[0]


def test_a_duplicate_id_is_a_problem(tmp_path):
    loaded = load_registry(_table(tmp_path, [_row(), _row()], ("01_x.py",)))
    assert len(loaded.mutants) == 1
    assert loaded.problems == ["mutants.json: mutants[1]: id '01' is listed twice"]


def test_an_unreadable_table_is_a_problem_not_a_traceback(tmp_path):
    assert "cannot read" in load_registry(tmp_path).problems[0]
    (tmp_path / "mutants.json").write_text("{", encoding="utf-8")
    assert "not JSON" in load_registry(tmp_path).problems[0]
    (tmp_path / "mutants.json").write_text("[]", encoding="utf-8")
    assert "`mutants` list" in load_registry(tmp_path).problems[0]


def test_select_by_id_name_or_part_of_a_name(registry):
    chosen, unmatched = select_mutants(registry.mutants, ["03", "no_lock", "26_machines_older_last_seen", "nope"])
    assert [mutant.id for mutant in chosen] == ["03", "23", "26"]
    assert unmatched == ["nope"]
    assert select_mutants(registry.mutants, [])[0] == registry.mutants
