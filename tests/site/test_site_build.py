"""`memoir-conform report` and `run --site`: the pages, what they name, and untrusted text kept inert."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance import __version__
from conformance.cli import main
from conformance.report import json_report as report_json


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_site_has_the_matrix_a_page_per_implementation_and_per_requirement(site):
    assert (site / "index.html").is_file()
    assert sorted(path.name for path in (site / "impl").iterdir()) == [
        "mutant-03-waived.html", "mutant-03.html", "reference.html"]
    requirement_pages = {path.stem for path in (site / "req").iterdir()}
    assert {"s5-3-1-hidden-sticky", "s3-4-readers-resolve-wikilinks", "s5-4-idempotent"} <= requirement_pages
    manifest = json.loads((site / "site.json").read_text())
    assert [(row["label"], row["earned"], row["waived"]) for row in manifest["implementations"]] == [
        ("reference", "full", 0), ("mutant 03", "writer", 0), ("mutant 03 (waived)", "writer", 1)]


def test_every_page_names_corpus_kit_spec_and_date(site, report_paths):
    digest = json.loads(report_paths["reference"].read_text())["corpus_digest"]
    for page in pages(site):
        text = page.read_text()
        assert digest[:16] in text and f"kit memoir-conform {__version__}" in text, page
        assert "spec v0.1.2" in text and re.search(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", text), page


def test_an_implementation_page_shows_what_was_sent_expected_and_received(site):
    text = (site / "impl" / "mutant-03.html").read_text()
    failure = text[text.index('id="v-site.merge.hidden-sticky"'):]
    failure = failure[: failure.index("</details>")]
    assert "S5.3.1-hidden-sticky" in failure and "If *any* copy of an identity" in failure  # the requirement text
    assert "merge_sessions" in failure and "hidden_at" in failure                            # what was sent
    assert 'class="expected"' in failure and 'class="received"' in failure
    assert "&lt;b&gt;bold&lt;/b&gt;" in failure                                              # the title, escaped


def test_a_waived_failure_is_shown_as_waived_and_its_issue_is_not_a_link(site):
    text = (site / "impl" / "mutant-03-waived.html").read_text()
    assert 'class="vector waived"' in text and "hidden flag lost (tracked)" in text
    assert "javascript:alert(1)" in text and 'href="javascript:' not in text


def test_untrusted_report_text_stays_text(report_paths, tmp_path, capsys):
    report = json.loads(report_paths["mutant-03"].read_text())
    report["implementation"]["describe"]["name"] = '<script>alert("name")</script>'
    report["options"]["name"] = None
    failing = next(vector for vector in report["vectors"] if vector["outcome"] == "fail")
    failing["stderr_tail"] = 'Traceback <img src=x onerror=alert(1)>\x1b[31m red\x00'
    failing["failures"][0]["message"] = "</pre><script>alert('message')</script>"
    failing["failures"][0]["actual"] = {"<k>": "</pre><iframe>"}
    assert report_json.validate(report) == []
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(report))
    assert main(["report", str(hostile), "-o", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    for page in pages(tmp_path / "site"):
        text = page.read_text()
        assert "<script>alert" not in text and "<img src=x" not in text and "<iframe>" not in text, page
        assert "\x1b" not in text and "\x00" not in text, page
    impl = next((tmp_path / "site" / "impl").iterdir()).read_text()
    assert "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;" in impl
    assert "\\u001b[31m red\\u0000" in impl


def test_the_output_directory_is_refused_unless_empty_or_a_site(report_paths, tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    assert main(["report", str(report_paths["reference"]), "-o", str(taken)]) == 2
    assert "not empty and holds no site" in capsys.readouterr().err
    assert (taken / "notes.txt").read_text() == "mine"
    out = tmp_path / "site"
    assert main(["report", str(report_paths["reference"]), str(report_paths["mutant-03"]), "-o", str(out)]) == 0
    assert main(["report", str(report_paths["reference"]), "-o", str(out)]) == 0   # a site is replaced
    assert [path.name for path in (out / "impl").iterdir()] == ["reference.html"]


def test_source_date_epoch_fixes_the_date(report_paths, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert main(["report", str(report_paths["reference"]), "-o", str(tmp_path / "site")]) == 0
    assert "generated 2026-01-01 00:00 UTC" in (tmp_path / "site" / "index.html").read_text()
    assert json.loads((tmp_path / "site" / "site.json").read_text())["generated"] == "2026-01-01 00:00 UTC"


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ('{"report_version": 1}', "not a memoir-conform run report"),
])
def test_a_file_that_is_not_a_run_report_is_refused(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["report", str(bad), "-o", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()


def test_a_missing_report_is_refused(tmp_path, capsys):
    assert main(["report", str(tmp_path / "absent.json"), "-o", str(tmp_path / "site")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_reports_of_different_corpora_are_flagged_on_every_page(report_paths, tmp_path, capsys):
    other = json.loads(report_paths["mutant-03"].read_text())
    other["corpus_digest"] = "f" * 64
    other_path = tmp_path / "other.json"
    other_path.write_text(json.dumps(other))
    assert main(["report", str(report_paths["reference"]), str(other_path), "-o", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    for page in pages(tmp_path / "site"):
        text = page.read_text()
        assert "2 corpus digests, 1 kit versions" in text and "ffffffffffffffff" in text, page


def test_a_hand_edited_grade_earns_no_badge(report_paths, tmp_path, capsys):
    # Issue 24: `report` grades the vectors again; the `grade` field is not trusted.
    report = json.loads(report_paths["mutant-03"].read_text())
    assert any(vector["outcome"] == "fail" for vector in report["vectors"])
    report["grade"]["earned"] = report["grade"]["claimed"] = "full"
    for status in report["grade"]["levels"].values():
        status.update(earned=True, blocking={}, deciding=0)
    report["grade"]["verdict"] = "memoir Full earned"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(report))
    assert main(["report", str(tampered), "-o", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    badge = next((tmp_path / "site").rglob("*.svg")).read_text()
    assert "Full" not in badge


def test_invisible_characters_are_shown_on_the_site(report_paths, tmp_path, capsys):
    report = json.loads(report_paths["mutant-03"].read_text())
    failing = next(vector for vector in report["vectors"] if vector["outcome"] == "fail")
    failing["failures"][0]["message"] = "a\u202eb c\u00a0d e\u3000f g\u200bh i\U000e0041j"
    failing["stderr_tail"] = "\ufeff\u2066trace\u2069"
    report["implementation"]["describe"]["name"] = "impl\u00a0\u200d\u202e"
    report["options"]["name"] = None
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert main(["report", str(tmp_path / "r.json"), "-o", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    text = "".join(page.read_text() for page in pages(tmp_path / "site"))
    for raw in ("\u202e", "\u00a0", "\u3000", "\u200b", "\U000e0041", "\ufeff", "\u2066", "\u200d"):
        assert raw not in text
    assert "\\u202e" in text and "\\u00a0" in text and "\\u3000" in text and "\\udb40\\udc41" in text


def test_outcomes_by_section_count_a_should_only_failure_as_should_not_as_fail(report_paths, tmp_path, capsys):
    report = json.loads(report_paths["mutant-03"].read_text())
    for vector in report["vectors"]:
        if vector["result"] == "fail":
            vector["failed_strengths"] = ["should"]
            for failure in vector["failures"]:
                failure["strength"] = "should"
    edited = tmp_path / "should-only.json"
    edited.write_text(json.dumps(report))
    assert main(["report", str(edited), "-o", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    page = next((tmp_path / "site" / "impl").iterdir()).read_text()
    table = page[page.index('<table class="by-section">'):]
    header = table[:table.index("</thead>")]
    assert '<th scope="col">SHOULD only</th>' in header and '<th scope="col">fail</th>' not in header, header
