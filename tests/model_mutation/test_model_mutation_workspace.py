"""The mutmut project a run builds: the whole kit, mutmut's configuration, stale results dropped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.model_mutation import workspace


def test_the_project_holds_the_whole_kit_and_mutmuts_configuration(tmp_path):
    workspace.build(tmp_path, "c0ffee")
    for needed in ("conformance/model/merge.py", "conformance/mutants/evaluate.py",
                   "conformance/model_mutation/harness.py", "vectors/requirements.json",
                   "runners/mutants/_mutant.py", "schema/vector.schema.json"):
        assert (tmp_path / needed).is_file(), needed
    assert not list(tmp_path.rglob("__pycache__"))
    assert workspace.results_corpus(tmp_path) == "c0ffee"
    config = (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    assert 'only_mutate = ["conformance/model/*"]' in config


def _results(project, exit_codes) -> Path:
    meta = project / "mutants" / "conformance" / "model" / "merge.py.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": exit_codes, "durations_by_key": {}}), encoding="utf-8")
    return meta


def test_results_are_kept_until_something_but_the_model_changes(tmp_path, monkeypatch):
    kit = _own_copy(tmp_path / "kit", monkeypatch)
    project = tmp_path / "project"
    workspace.build(project, "c0ffee")
    _results(project, {"m1": 1})
    workspace.build(project, "c0ffee")  # nothing changed
    assert workspace.has_results(project)
    (kit / "conformance" / "model" / "merge.py").write_text("# edited\n", encoding="utf-8")
    (kit / "conformance" / "model_mutation" / "equivalents.json").write_text("{}", encoding="utf-8")
    workspace.build(project, "c0ffee")  # mutmut tracks the model; explanations change no outcome
    assert workspace.has_results(project)
    (kit / "conformance" / "runner" / "grading.py").write_text("# edited\n", encoding="utf-8")
    workspace.build(project, "c0ffee")
    assert not workspace.has_results(project)


def test_vectors_only_added_keep_the_kills_and_test_the_others_again(tmp_path, monkeypatch):
    kit = _own_copy(tmp_path / "kit", monkeypatch)
    project = tmp_path / "project"
    workspace.build(project, "c0ffee")
    meta = _results(project, {"killed": 1, "timeout": -24, "survived": 0, "unreached": 33, "not_run": None})
    vectors = kit / "vectors" / "merge" / "identity.json"
    document = json.loads(vectors.read_text(encoding="utf-8"))
    document["vectors"].append({**document["vectors"][0], "id": "merge.identity.a-new-boundary"})
    vectors.write_text(json.dumps(document), encoding="utf-8")
    (kit / "vectors" / "stores" / "a-new-golden-store").mkdir()
    (kit / "vectors" / "stores" / "a-new-golden-store" / "session.json").write_text("{}", encoding="utf-8")
    workspace.build(project, "c0ffee")
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    assert codes == {"killed": 1, "timeout": -24, "survived": None, "unreached": None, "not_run": None}


@pytest.mark.parametrize("edit", ["change", "remove"])
def test_a_vector_changed_or_removed_starts_afresh(tmp_path, monkeypatch, edit):
    kit = _own_copy(tmp_path / "kit", monkeypatch)
    project = tmp_path / "project"
    workspace.build(project, "c0ffee")
    _results(project, {"killed": 1, "survived": 0})
    vectors = kit / "vectors" / "merge" / "identity.json"
    document = json.loads(vectors.read_text(encoding="utf-8"))
    if edit == "change":
        document["vectors"][0]["title"] = "retitled"
    else:
        del document["vectors"][0]
    vectors.write_text(json.dumps(document), encoding="utf-8")
    workspace.build(project, "c0ffee")
    assert not workspace.has_results(project)


def _own_copy(kit: Path, monkeypatch) -> Path:
    """A copy of the kit's sources for a test to edit, as the workspace's sources."""
    copied = {}
    for name, source in workspace.sources().items():
        copied[name] = kit / name
        shutil.copytree(source, copied[name], ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(workspace, "sources", lambda: copied)
    return kit


def test_only_patterns_become_mutmut_name_globs():
    assert workspace.mutmut_pattern("identity") == "conformance.model.identity.*"
    assert workspace.mutmut_pattern("frontmatter._Reader.read_*") == \
        "conformance.model.frontmatter.x\u01c1_Reader\u01c1read_*__mutmut_*"
    assert workspace.mutmut_pattern("merge.merge_*") == "conformance.model.merge.x_merge_*__mutmut_*"


def test_only_mutates_the_modules_it_names_and_a_new_scope_starts_afresh(tmp_path):
    workspace.build(tmp_path, "c0ffee", ["dates._offset", "dates.parse_date"])
    config = (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    assert 'only_mutate = ["conformance/model/dates.py"]' in config
    assert workspace.mutated_files(["merge", "identity.normalize"]) == ["conformance/model/identity.py",
                                                                        "conformance/model/merge.py"]
    assert workspace.mutated_files(["*.merge_*"]) == ["conformance/model/*"]  # a module glob: every module
    results = tmp_path / "mutants" / "conformance" / "model"
    results.mkdir(parents=True)
    (results / "dates.py.meta").write_text("{}", encoding="utf-8")
    workspace.build(tmp_path, "c0ffee", ["dates._offset"])  # the same scope: results kept
    assert workspace.has_results(tmp_path)
    workspace.build(tmp_path, "c0ffee")  # every module now: the narrow results are not of this scope
    assert not workspace.has_results(tmp_path)
