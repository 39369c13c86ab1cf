"""The reports: JSON valid against its schema, JUnit XML that parses, the console text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from runner_helpers import vector, write_vector_file

from conformance.protocol.messages import AdapterFault, Describe
from conformance.report import console as report_console, json_report as report_json, junit as report_junit
from conformance.runner.grading import ExpectedFailure, grade, grade_vectors
from conformance.runner.implementations import ModelImplementation
from conformance.runner.requirements import Requirement, RequirementIndex
from conformance.runner.run import RunRecord, run_vectors
from conformance.runner.vectors import load_corpus

INDEX = RequirementIndex({
    "S5.2-union-by-identity": Requirement("S5.2-union-by-identity", "5.2", "A merge MUST NOT drop an item merely because the other side lacks it", "MUST", "full", "0.1", True),
})


class FlakyModel(ModelImplementation):
    """The model, except that one vector's request crashes and read_store is not supported."""

    def describe(self) -> Describe:
        described = super().describe()
        return Describe(**{**described.__dict__, "ops": tuple(op for op in described.ops if op != "read_store")})

    def call(self, op, args):
        if op == "merge_sessions" and "CRASH" in args["local"]:
            trace = "Traceback (most recent call last):\nboom"
            if self._captured is not None:  # written to stderr while the vector ran
                self._captured.append(trace)
            return AdapterFault("crashed", "the adapter exited with code 3", trace)
        return super().call(op, args)


@pytest.fixture
def record(vectors_root, tmp_path) -> RunRecord:
    crash = {"version": 1, "current": {"goals": [{"text": "CRASH"}]}}
    vectors = [
        vector("a.pass"),
        vector("b.fail", expect=[{"path": "/live/next_actions", "identities": ["local"], "note": "deliberate"}]),
        vector("c.error", input={"local": crash, "remote": {"version": 1}}, sections=["5.3.1"]),
        vector("d.na", op="read_store", level="reader", sections=["6"], input={"store": {"files": {}}},
               expect=[{"path": "/session/status", "equals": "absent"}]),
        vector("e.xfail", expect=[{"path": "/live/next_actions", "count": 5}]),
        vector("f.amb", tags=["ambiguous"], ambiguity="AMB-CASEFOLD"),
    ]
    write_vector_file(vectors_root, "area/t.json", vectors)
    corpus = load_corpus([vectors_root])
    assert corpus.problems == []
    # The derived merge invariants have tests of their own (test_derived.py).
    chosen = [v for v in corpus.vectors if not v.derived]
    implementation = FlakyModel()
    described = implementation.describe()
    results = run_vectors(chosen, implementation, described, tmp_path / "work")
    by_id = {v.id: v for v in chosen}
    expected = [ExpectedFailure("e.xfail", "known bug", by_id["e.xfail"].digest, "https://example.invalid/7")]
    graded = grade_vectors(chosen, results, INDEX, expected)
    return RunRecord(
        kit_version="0.1.0", spec="0.1.2", corpus_digest=corpus.digest, implementation=implementation.label,
        mode=implementation.mode, described=described, protocol=1, options={"jobs": 1}, graded=graded,
        grade=grade(graded, "0.1.2", "full"), requirements=INDEX, left_out_newer=0, duration=0.5,
    )


def test_outcomes_of_the_fixture(record):
    assert [(g.vector.id, g.outcome) for g in record.graded] == [
        ("a.pass", "pass"), ("b.fail", "fail"), ("c.error", "error"), ("d.na", "not_applicable"),
        ("e.xfail", "xfail"), ("f.amb", "pass")]


def test_json_report_validates_against_its_schema(record, tmp_path):
    report = report_json.build(record)
    assert report_json.validate(report) == []
    path = tmp_path / "report.json"
    report_json.write(record, path)
    written = json.loads(path.read_text())
    assert written["corpus_digest"] == record.corpus_digest and written["kit"]["version"] == "0.1.0"
    assert written["implementation"]["describe"]["name"] == "memoir-conform reference model"
    by_id = {v["id"]: v for v in written["vectors"]}
    assert by_id["b.fail"]["failures"][0]["path"] == "/live/next_actions"
    assert by_id["b.fail"]["failures"][0]["note"] == "deliberate"
    assert by_id["b.fail"]["failures"][0]["requirements"] == ["S5.2-union-by-identity"]
    assert by_id["b.fail"]["failures"][0]["strength"] == "must" and by_id["b.fail"]["failed_strengths"] == ["must"]
    assert by_id["d.na"]["not_applicable"] == {"kind": "op", "blocks": True}
    assert by_id["c.error"]["stderr_tail"].endswith("boom")
    assert by_id["e.xfail"]["expected_failure"]["issue"] == "https://example.invalid/7"
    assert by_id["e.xfail"]["result"] == "fail" and by_id["e.xfail"]["outcome"] == "xfail"
    assert written["grade"]["levels"]["full"]["blocking"] == {
        "fail": ["b.fail"], "error": ["c.error"], "not_applicable": ["d.na"]}
    assert written["grade"]["levels"]["reader"]["blocking"] == {"not_applicable": ["d.na"]}
    assert written["grade"]["levels"]["full"]["waived"] == ["e.xfail"]
    assert written["report_version"] == 2


def test_json_schema_rejects_a_broken_report(record):
    report = report_json.build(record)
    report["vectors"][0]["outcome"] = "passed"
    del report["corpus_digest"]
    problems = report_json.validate(report)
    assert any("corpus_digest" in p for p in problems) and any("$.vectors[0].outcome" in p for p in problems)


def test_junit_parses_with_standard_attributes(record, tmp_path):
    path = tmp_path / "junit.xml"
    report_junit.write(record, path)
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    # b.fail and d.na (a missing op at the claimed level) fail; c.error errs; e.xfail is skipped. The
    # verdict does not fail as well: the vectors carry the run's failure (counted once).
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("7", "2", "1", "1")
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    assert sorted(suites) == ["grade", "spec 5.2", "spec 5.3.1", "spec 6"]
    for suite in suites.values():
        assert {"name", "tests", "failures", "errors", "skipped", "time"} <= set(suite.attrib)
        assert int(suite.get("tests")) == len(suite.findall("testcase"))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    failure = cases["b.fail"].find("failure")
    assert failure.get("message").startswith("/live/next_actions:")
    assert "expected:" in failure.text and "actual:" in failure.text
    assert "    | boom" in cases["c.error"].find("error").text
    assert cases["d.na"].find("failure").get("message").startswith("not applicable")
    verdict = cases["verdict"]
    assert verdict.find("failure") is None and record.grade.verdict in verdict.find("system-out").text
    counts = {prop.get("name"): prop.get("value") for prop in verdict.iter("property")}
    assert counts["must_failed"] == "1" and counts["errors"] == "1" and counts["waived"] == "1"
    assert "expected failure" in cases["e.xfail"].find("skipped").get("message")
    assert cases["a.pass"].find("failure") is None and cases["a.pass"].get("classname") == "memoir.full.5.2"


def test_console_report_shows_table_failures_and_verdict(record):
    text = report_console.render(record)
    lines = text.splitlines()
    assert lines[-1] == record.grade.verdict
    assert lines[-1].startswith("no memoir level (v0.1.2) earned; Full claimed, not earned: 1 MUST vector failed, "
                                "1 adapter error, 1 vector needs an unsupported op")
    assert "SHOULD 0/0; advisory 1/1; 1 expected failure" in lines[-1]
    assert any(line.split()[:2] == ["section", "level"] for line in lines)
    assert "FAIL b.fail  [Full; spec 5.2]" in text
    assert "requirement S5.2-union-by-identity (MUST, 5.2): A merge MUST NOT drop" in text
    assert "at /live/next_actions (identities; MUST S5.2-union-by-identity): unexpected [\"Remote\"]" in text
    assert '    expected: ["local"]' in text and "    note: deliberate" in text
    assert "sent: merge_sessions" in text
    assert "ERROR c.error" in text and "    | boom" in text
    assert "not applicable (1): the adapter does not declare op read_store" in text
    assert "a.pass" not in text


def test_a_vector_whose_failed_checks_cost_no_level_is_not_headed_fail(vectors_root, tmp_path):
    advisory = vector("g.amb-fails", tags=["ambiguous"], ambiguity="AMB-CASEFOLD",
                      expect=[{"path": "/live/next_actions", "count": 5}])
    write_vector_file(vectors_root, "area/t.json", [advisory])
    chosen = load_corpus([vectors_root]).vectors
    implementation = ModelImplementation()
    described = implementation.describe()
    graded = grade_vectors(chosen, run_vectors(chosen, implementation, described, tmp_path / "work"), INDEX, [])
    record = RunRecord(
        kit_version="0.1.0", spec="0.1.2", corpus_digest="d", implementation=implementation.label,
        mode=implementation.mode, described=described, protocol=1, options={"jobs": 1}, graded=graded,
        grade=grade(graded, "0.1.2", "full"), requirements=INDEX, left_out_newer=0, duration=0.5)
    text = report_console.render(record)
    assert "ADVISORY FAILED g.amb-fails  [Full, only advisory checks failed: no level cost; spec 5.2]" in text
    assert "FAIL g.amb-fails" not in text
