"""GitHub Actions output (`--github`): workflow commands in GitHub's documented format,
annotations for run and validate, and the job summary."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from runner_helpers import vector, write_vector_file

from conformance.cli import main
from conformance.github import SHOWN_PER_LEVEL, Annotations, anchor, workflow_command

# GitHub's documented form: `::name key=value,key=value::message`. In the
# message `%`, CR and LF are escaped as %25, %0D, %0A; in a property value
# also `:` and `,` (as %3A, %2C).
COMMAND = re.compile(r"^::(?P<name>[a-z]+)(?: (?P<props>[^:]*))?::(?P<data>.*)$")


def unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(text: str) -> str:
    return unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def parse(line: str) -> tuple[str, dict, str]:
    """A workflow command line as GitHub's runner reads it."""
    match = COMMAND.match(line)
    assert match, line
    props = {}
    for pair in (match["props"] or "").split(","):
        if pair:
            key, _, value = pair.partition("=")
            props[key] = unescape_property(value)
    return match["name"], props, unescape_data(match["data"])


def commands(text: str) -> list[tuple[str, dict, str]]:
    return [parse(line) for line in text.splitlines() if line.startswith("::")]


# Text without control or invisible characters other than CR and LF (those others are made
# visible: next test; conformance.safe_text).
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cn", "Cs", "Zl", "Zp", "Zs"),
                                      blacklist_characters="\u115f\u1160\u3164\uffa0",
                                      whitelist_characters="\r\n%:,= "))


@given(message=TEXT, title=TEXT, file=TEXT.filter(bool))
def test_any_text_survives_the_documented_escaping(message, title, file):
    line = workflow_command("error", message, title=title, file=file, line=3, col=9)
    assert "\n" not in line and "\r" not in line
    name, props, data = parse(line)
    assert name == "error" and data == message
    assert props["file"] == file and props["line"] == "3" and props["col"] == "9"
    assert props.get("title", "") == title


def test_escapes_are_the_documented_ones():
    line = workflow_command("warning", "100% done\r\nnext: a,b", title="a:b,c%", file="x,y.md")
    assert line == "::warning file=x%2Cy.md,title=a%3Ab%2Cc%25::100%25 done%0D%0Anext: a,b"


def test_other_control_characters_cannot_drive_the_log_viewer():
    line = workflow_command("error", "\x1b[2Jred\x07", title="\x1b]0;title\x07")
    assert "\x1b" not in line and "\x07" not in line
    assert parse(line) == ("error", {"title": "\\u001b]0;title\\u0007"}, "\\u001b[2Jred\\u0007")


def test_annotations_per_level_are_capped_and_the_rest_counted(capsys):
    found = Annotations()
    for number in range(SHOWN_PER_LEVEL + 3):
        found.add("error", f"problem {number}")
    found.add("warning", "a warning")
    found.write(__import__("sys").stdout)
    parsed = commands(capsys.readouterr().out)
    assert [name for name, _, _ in parsed].count("error") == SHOWN_PER_LEVEL
    assert parsed[-1] == ("notice", {}, "3 more errors not annotated: see the job summary")


def test_anchor_is_githubs_heading_slug():
    assert anchor("S5.3.1-hidden-sticky") == "s531-hidden-sticky"
    assert anchor("SA-readers apply legacy") == "sa-readers-apply-legacy"


# --- run --github -------------------------------------------------------------------

@pytest.fixture
def mixed_vectors(vectors_root) -> Path:
    store = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}
    write_vector_file(vectors_root, "t/mixed.json", [
        vector("t.read.must", op="read_store", level="reader", sections=["3.3"],
               requirements=["S8-reader-unknown-type-opaque"], input={"store": store},
               expect=[{"path": "/entries", "count": 2, "note": "a, b: c"}]),
        vector("t.read.should", op="read_store", level="reader", sections=["3.4"],
               requirements=["S3.4-readers-resolve-wikilinks"], input={"store": store},
               expect=[{"path": "/entries", "count": 2}]),
        vector("t.read.passes", op="read_store", level="reader", sections=["3.3"],
               requirements=["S8-reader-unknown-type-opaque"], input={"store": store},
               expect=[{"path": "/entries", "count": 1}]),
    ])
    return vectors_root


def test_run_github_annotates_deciding_failures_as_errors_and_should_ones_as_warnings(
        capsys, monkeypatch, mixed_vectors, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.chdir(mixed_vectors.parent)   # the vector file lies under the workspace: annotated on it
    code = main(["run", "--model", "--no-bundled", "--vectors", str(mixed_vectors), "--level", "reader"])
    out = capsys.readouterr().out
    assert code == 1
    parsed = commands(out)
    assert [(name, props.get("title")) for name, props, _ in parsed] == [
        ("error", "memoir Reader: t.read.must: MUST checks failed"),
        ("warning", "memoir Reader: t.read.should: only SHOULD checks failed: no level cost")]
    error = parsed[0]
    assert error[1]["file"] == "vectors/t/mixed.json"
    lines = (mixed_vectors / "t" / "mixed.json").read_text().splitlines()
    assert '"t.read.must"' in lines[int(error[1]["line"]) - 1]
    assert "at /entries (count; MUST S8-reader-unknown-type-opaque)" in error[2] and "note: a, b: c" in error[2]
    assert out.splitlines()[-1].startswith("no memoir level (v0.1.2) earned")  # the verdict stays last

    text = summary.read_text()
    assert "| Reader | not earned, 1 MUST vector failed |" in text
    assert "| Writer | not graded (run limited to --level reader) |" in text
    assert "[S8-reader-unknown-type-opaque](#s8-reader-unknown-type-opaque)" in text
    assert "#### S8-reader-unknown-type-opaque" in text and "### Failures that cost no level (1)" in text


def test_github_output_is_off_outside_actions_and_with_no_github(capsys, monkeypatch, mixed_vectors, tmp_path):
    main(["run", "--model", "--no-bundled", "--vectors", str(mixed_vectors)])
    assert "::error" not in capsys.readouterr().out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    main(["run", "--model", "--no-bundled", "--vectors", str(mixed_vectors), "--no-github"])
    assert "::error" not in capsys.readouterr().out and not (tmp_path / "summary.md").exists()


# --- validate --github -----------------------------------------------------------------

@pytest.fixture
def broken_store(tmp_path) -> Path:
    memory = tmp_path / "store" / "memory"
    memory.mkdir(parents=True)
    (memory / "fact_x.md").write_text("---\ntype: fact\nname: &oops X\n---\nbody\n", encoding="utf-8")
    return tmp_path / "store"


def test_validate_github_annotates_each_finding_at_file_line_and_column(capsys, monkeypatch, broken_store, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.chdir(broken_store.parent)
    code = main(["validate", "store"])
    assert code == 1
    anchor = [(props, data) for name, props, data in commands(capsys.readouterr().out)
              if name == "error" and props["title"].startswith("MEMOIR-E-YAML-ANCHOR")]
    assert anchor and anchor[0][0]["file"] == "store/memory/fact_x.md"
    assert (anchor[0][0]["line"], anchor[0][0]["col"]) == ("3", "7")
    assert "| `store/memory/fact_x.md:3:7` | error | `MEMOIR-E-YAML-ANCHOR` |" in summary.read_text()


def test_validate_github_keeps_a_machine_report_on_stdout_clean(capsys, monkeypatch, broken_store):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.chdir(broken_store.parent)
    main(["validate", "store", "--format", "json"])
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["error"] >= 1
    assert any(line.startswith("::error file=store/memory/fact_x.md") for line in captured.err.splitlines())
