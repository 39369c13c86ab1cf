"""One run, every output, the same numbers: console, JSON, JUnit, GitHub (summary and
step outputs), the pytest plugin and the site all count MUST failures apart from
SHOULD and advisory ones, and the waived ones apart from both."""

from __future__ import annotations

import html
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.resources import runners_dir
from conformance.runner.vectors import load_corpus

REFERENCE = shlex.join([sys.executable, str(runners_dir() / "reference" / "adapter.py")])
STORE = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}
WRONG = [{"path": "/entries", "count": 3}]     # the store holds one entry: any correct reader fails it
RIGHT = [{"path": "/entries", "count": 1}]
MUST_REQUIREMENT, SHOULD_REQUIREMENT = "S8-reader-unknown-type-opaque", "S3.4-readers-resolve-wikilinks"


def read_vector(vector_id: str, requirement: str, expect: list, **extra) -> dict:
    return {"id": vector_id, "title": f"title of {vector_id}", "sections": ["3.3"], "requirements": [requirement],
            "level": "reader", "op": "read_store", "input": {"store": STORE}, "expect": expect, **extra}


VECTORS = [
    read_vector("rmodel.must.one", MUST_REQUIREMENT, WRONG),
    read_vector("rmodel.must.two", MUST_REQUIREMENT, WRONG),
    read_vector("rmodel.should", SHOULD_REQUIREMENT, WRONG),
    read_vector("rmodel.advisory", MUST_REQUIREMENT, WRONG, ambiguity="AMB-CASEFOLD", tags=["ambiguous"]),
    read_vector("rmodel.waived", MUST_REQUIREMENT, WRONG),
    read_vector("rmodel.passes", MUST_REQUIREMENT, RIGHT),
]
EXPECTED = {"passed": 1, "must_failed": 2, "errors": 0, "should_failed": 1, "advisory_failed": 1, "waived": 1,
            "not_applicable": 0, "xpass": 0, "stale": 0}
COUNTS_LINE = "6 vectors: 1 passed, 2 MUST failed, 1 SHOULD failed, 1 advisory failed, 1 waived"


@pytest.fixture
def corpus(tmp_path) -> tuple[Path, Path]:
    """The vectors and an expect-fail file that waives rmodel.waived."""
    root = tmp_path / "vecs"
    (root / "t").mkdir(parents=True)
    (root / "t" / "mixed.json").write_text(json.dumps({"description": "result model", "vectors": VECTORS}))
    digest = next(v.digest for v in load_corpus([root]).vectors if v.id == "rmodel.waived")
    known = tmp_path / "known.json"
    known.write_text(json.dumps([{"id": "rmodel.waived", "reason": "known bug", "digest": digest}]))
    return root, known


def test_every_output_of_one_run_gives_the_same_counts(corpus, tmp_path, capsys, monkeypatch, pytester):
    root, known = corpus
    outputs, summary = tmp_path / "github-output", tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = main(["run", "--adapter", REFERENCE, "--no-bundled", "--vectors", str(root), "--expect-fail", str(known),
                 "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml"), "--github", "--quiet"])
    console = capsys.readouterr().out
    assert code == 1

    # console: the table's `all` row, the short verdict (about 100 characters at most), the long one below it
    header = next(line for line in console.splitlines() if line.startswith("section"))
    total = next(line for line in console.splitlines() if line.startswith("all"))
    columns = re.split(r"\s{2,}", header.strip())[2:]
    assert dict(zip(columns, map(int, total.split()[1:]))) == {
        "passed": 1, "MUST failed": 2, "adapter errors": 0, "SHOULD failed": 1, "advisory failed": 1, "waived": 1,
        "n/a": 0}
    verdict = next(line for line in console.splitlines() if line.startswith("verdict: "))
    assert verdict == ("verdict: FAIL no memoir level earned (Full claimed): 2 MUST failed, 1 SHOULD failed, "
                       "1 advisory failed, 1 waived")
    assert len(verdict.removeprefix("verdict: ")) <= 105
    assert console.splitlines()[-1].startswith("no memoir level (v0.1.2) earned")

    # JSON
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["results"]["counts"] == EXPECTED
    assert report["summary"]["results"]["headline"] == verdict.removeprefix("verdict: ")

    # JUnit: the MUST failures fail, the rest is skipped; the verdict carries the counts and fails nothing more
    junit = ET.parse(tmp_path / "r.xml").getroot()
    assert (junit.get("failures"), junit.get("errors"), junit.get("skipped")) == ("2", "0", "3")
    verdict_case = next(case for case in junit.iter("testcase") if case.get("name") == "verdict")
    assert {p.get("name"): int(p.get("value")) for p in verdict_case.iter("property")} == EXPECTED

    # GitHub: the step outputs a workflow gates on, and the job summary
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert written["level"] == "none" and written["claimed"] == "full" and written["exit_code"] == "1"
    assert {name: int(written[name]) for name in EXPECTED} == EXPECTED
    assert COUNTS_LINE in summary.read_text()

    # the pytest plugin, the same vectors and expect-fail file
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE, "--memoir-vectors",
                                str(root), "--memoir-expect-fail", str(known), "-k", "rmodel")
    # pytest's own words: failed = MUST failed; xfailed = SHOULD + advisory + waived
    result.assert_outcomes(passed=1, failed=2, xfailed=3, deselected=result.parseoutcomes()["deselected"])
    result.stdout.fnmatch_lines(["*: filtered run, no level graded: 1 of 6 passed; 2 MUST failed*",
                                 "6 vectors: 1 passed, 2 MUST failed, "
                                 "1 SHOULD failed, 1 advisory failed, 1 waived"])

    # the site, built from the JSON report
    assert main(["report", str(tmp_path / "r.json"), "-o", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    page = next((tmp_path / "site" / "impl").glob("*.html")).read_text()
    assert html.unescape(re.search(r'<p class="counts">(.*?)</p>', page).group(1)) == COUNTS_LINE
    assert html.unescape(re.search(r'<p class="verdict">(.*?)</p>', page).group(1)) == verdict.removeprefix("verdict: ")
    reader_row = re.search(r'data-level-row="reader">(.*?)</tr>', page, re.S).group(1)
    cells = dict(re.findall(r'data-bucket="(\w+)">(\d*)</td>', reader_row))
    assert {name: int(cells[name] or 0) for name in cells} == {name: EXPECTED[name] for name in cells}


def test_with_k_the_plugin_summary_agrees_with_pytest(corpus, pytester):
    root, _ = corpus
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE, "--memoir-vectors",
                                str(root), "-k", "rmodel.should or rmodel.passes")
    # pytest is green: a SHOULD failure costs nothing, and the summary says it is a SHOULD failure
    assert result.ret == 0
    result.assert_outcomes(passed=1, xfailed=1, deselected=result.parseoutcomes()["deselected"])
    result.stdout.fnmatch_lines(["*: filtered run, no level graded: 1 of 2 passed; 1 SHOULD failed",
                                 "2 vectors: 1 passed, 1 SHOULD failed"])
    assert "MUST failed" not in result.stdout.str()
