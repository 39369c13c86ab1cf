"""The mutmut project a run builds: the whole kit, mutmut's configuration, stale results dropped."""

from __future__ import annotations

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


def test_results_are_kept_until_something_but_the_model_changes(tmp_path):
    workspace.build(tmp_path, "c0ffee")
    results = tmp_path / "mutants" / "conformance" / "model"
    results.mkdir(parents=True)
    (results / "merge.py.meta").write_text("{}", encoding="utf-8")
    workspace.build(tmp_path, "c0ffee")  # nothing changed
    assert workspace.has_results(tmp_path)
    before = workspace.fingerprint(tmp_path)
    (tmp_path / "conformance" / "model" / "merge.py").write_text("# edited\n", encoding="utf-8")
    (tmp_path / "conformance" / "model_mutation" / "equivalents.json").write_text("{}", encoding="utf-8")
    assert workspace.fingerprint(tmp_path) == before  # mutmut tracks the model; explanations change no outcome
    (tmp_path / workspace.FINGERPRINT).write_text("the fingerprint of a run with another corpus", encoding="utf-8")
    workspace.build(tmp_path, "c0ffee")
    assert not workspace.has_results(tmp_path)


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
