"""The pytest plugin, driven by pytest's own `pytester`: inert by default, one item per
vector when asked, the runner's failure block, strength-aware outcomes, expect-fail as
strict xfail, ini options."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.pytest_plugin import RUN_KEY, VectorItem
from conformance.resources import runners_dir, vectors_dir
from conformance.runner.selection import Filters, matches_pattern
from conformance.runner.vectors import load_corpus

REFERENCE = shlex.join([sys.executable, str(runners_dir() / "reference" / "adapter.py")])
STORE = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}


def read_vector(vector_id: str, requirement: str, expect: list, level: str = "reader") -> dict:
    return {"id": vector_id, "title": f"title of {vector_id}", "sections": ["3.3"], "requirements": [requirement],
            "level": level, "op": "read_store", "input": {"store": STORE}, "expect": expect}


WRONG = [{"path": "/entries", "count": 3}]     # the store holds one entry: any correct reader fails it
RIGHT = [{"path": "/entries", "count": 1}]
OURS = "t.must or t.should or t.full"   # a -k expression for the vectors below only
VECTORS = [
    read_vector("t.must.fails", "S8-reader-unknown-type-opaque", WRONG),
    read_vector("t.should.fails", "S3.4-readers-resolve-wikilinks", WRONG),
    read_vector("t.must.passes", "S8-reader-unknown-type-opaque", RIGHT),
    read_vector("t.full.fails", "S8-reader-unknown-type-opaque", WRONG, level="full"),
]


@pytest.fixture
def vectors(pytester) -> Path:
    root = pytester.path / "vecs"
    (root / "t").mkdir(parents=True)
    (root / "t" / "tiny.json").write_text(json.dumps({"description": "plugin tests", "vectors": VECTORS}))
    return root


def digest_of(vector_id: str, root: Path) -> str:
    return next(v.digest for v in load_corpus([root]).vectors if v.id == vector_id)


# --- inert unless asked --------------------------------------------------------------

def test_without_an_option_the_plugin_adds_nothing(pytester):
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--co", "-q")
    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == ["test_own.py::test_own"]
    markers = pytester.runpytest("-p", "no:cacheprovider", "--markers")
    assert "memoir" not in markers.stdout.str()


def test_the_kits_own_test_run_has_no_vector_items(request, pytestconfig):
    # This very session runs with the plugin installed (entry point pytest11).
    assert pytestconfig.pluginmanager.has_plugin("memoir_conform")
    assert RUN_KEY not in pytestconfig.stash
    assert pytestconfig.getini("memoir_adapter") == "" and pytestconfig.getini("memoir_cli") == ""
    assert not any(isinstance(item, VectorItem) for item in request.session.items)


# --- one item per vector ---------------------------------------------------------------

def test_one_item_per_vector_named_by_its_id_and_k_selects_by_id(pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE, "--co", "-q",
                                "-k", "read.golden")
    collected = sorted(line.split("::", 1)[1] for line in result.outlines if line.startswith("memoir::"))
    corpus = load_corpus([vectors_dir()]).vectors
    assert collected == sorted(v.id for v in corpus if matches_pattern(v, "read.golden"))
    assert len(collected) > 5


def test_markers_select_by_level_section_and_tag(pytester):
    corpus = load_corpus([vectors_dir()]).vectors
    result = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers", "--memoir-adapter", REFERENCE,
                                "--co", "-q", "-m", "memoir_reader and memoir_section_5_3 and not memoir_tag_golden")
    collected = {line.split("::", 1)[1] for line in result.outlines if line.startswith("memoir::")}
    wanted = {v.id for v in corpus if v.level == "reader" and "golden" not in v.tags
              and any(s == "5.3" or s.startswith("5.3.") for s in v.sections)}
    assert collected == wanted and wanted
    assert Filters(level="reader").active  # the runner's own filters say the same thing another way


# --- outcomes ------------------------------------------------------------------------

def test_a_must_failure_fails_with_the_runners_failure_block(pytester, vectors, capsys):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE,
                                "--memoir-vectors", str(vectors), "-k", "t.must.fails")
    result.assert_outcomes(failed=1)
    capsys.readouterr()  # the inner session's output
    main(["run", "--adapter", REFERENCE, "--no-bundled", "--vectors", str(vectors), "-k", "t.must.fails"])
    console = capsys.readouterr().out
    start = console.index("FAIL t.must.fails  [")
    runner_block = console[start: console.index("\n\n", start)]
    assert "at /entries (count; MUST S8-reader-unknown-type-opaque)" in runner_block
    assert runner_block in result.stdout.str()


def test_a_should_only_failure_is_an_xfail_with_its_reason_and_fails_with_runxfail(pytester, vectors):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE,
                                "--memoir-vectors", str(vectors), "-k", "t.should.fails", "-rx")
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*t.should.fails*only SHOULD checks failed: no level cost*"])
    strict = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE,
                                "--memoir-vectors", str(vectors), "-k", "t.should.fails", "--runxfail")
    strict.assert_outcomes(failed=1)
    assert "SHOULD FAILED t.should.fails  [Reader, only SHOULD checks failed: no level cost; spec 3.3]" in strict.stdout.str()


def test_a_failure_above_the_claimed_level_costs_nothing(pytester, vectors):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE, "--memoir-claim", "reader",
                                "--memoir-vectors", str(vectors), "-k", OURS, "-rx")
    result.assert_outcomes(passed=1, failed=1, xfailed=2)
    result.stdout.fnmatch_lines(["*XFAIL*t.full.fails*above the claimed level (Reader)*"])


def test_expect_fail_entries_are_strict_xfails_and_stale_ones_fail(pytester, vectors):
    listed = pytester.path / "known.yaml"
    listed.write_text(
        f"- id: t.must.fails\n  reason: tracked\n  digest: {digest_of('t.must.fails', vectors)}\n"
        f"- id: t.must.passes\n  reason: fixed since\n  digest: {digest_of('t.must.passes', vectors)}\n"
        f"- id: t.full.fails\n  reason: old entry\n  digest: {'0' * 64}\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE, "--memoir-vectors",
                                str(vectors), "--memoir-expect-fail", str(listed), "-k", OURS, "-rxX")
    result.assert_outcomes(xfailed=2, failed=2)   # t.should.fails costs nothing; t.must.passes XPASS(strict)
    out = result.stdout.str()
    assert "[XPASS(strict)] expect-fail: fixed since" in out
    assert f"entry digest:  {'0' * 64}" in out and f"vector digest: {digest_of('t.full.fails', vectors)}" in out
    result.stdout.fnmatch_lines(["*XFAIL*t.must.fails*expect-fail: tracked*"])


def test_the_summary_ends_with_the_runners_verdict(pytester, vectors):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", REFERENCE,
                                "--memoir-vectors", str(vectors), "-k", "t.must")
    result.stdout.fnmatch_lines(["*memoir-conform*", "memoir-conform reference model *: filtered run, no level graded: 1 of 2 passed; 1 MUST failed", "2 vectors: 1 passed, 1 MUST failed", "filtered run, no level "
                                 "graded: 1 of 2 selected vectors passed (1 MUST failed)*"])


def test_ini_options_work_relative_to_the_ini_file(pytester, vectors):
    pytester.makeini(f"[pytest]\nmemoir_adapter = {REFERENCE}\nmemoir_vectors = vecs\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-k", "t.must.passes")
    result.assert_outcomes(passed=1)


def test_an_adapter_that_cannot_start_fails_the_items_and_names_the_path(pytester, vectors):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", f"{sys.executable} nowhere/adapter.py",
                                "--memoir-vectors", str(vectors), "-k", "t.must")
    result.assert_outcomes(failed=2)
    assert "hint: the adapter command names 'nowhere/adapter.py', which does not exist" in result.stdout.str()


def test_the_bundled_adapters_short_name_works_as_the_adapter(pytester, vectors):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-adapter", "reference",
                                "--memoir-vectors", str(vectors), "-k", "t.must.passes")
    result.assert_outcomes(passed=1, deselected=result.parseoutcomes()["deselected"])
