"""Checks of a store as a whole, and how the validator reads files (spec 2, 3.4, 9)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.validator import memoir
from conformance.validator.core.findings import FileChecked
from conformance.validator.memoir import pipeline, rules
from conformance.validator.memoir.pipeline import check_file
from conformance.validator.memoir.sources import MAX_BYTES

ENTRY = "---\ntype: {type}\nname: {name}\ndescription: d\ncreated: 2026-05-01\n{extra}---\n{body}\n"


def write_entry(store: Path, link: str, type: str = "fact", name: str | None = None, body: str = "text",
                extra: str = "") -> Path:
    path = store / "memory" / f"{link}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if type == "lesson":
        extra += "trigger: t\nhow_to_apply: h\n"
    path.write_text(ENTRY.format(type=type, name=name or link, extra=extra, body=body), encoding="utf-8")
    return path


def run(*paths, jobs: int = 1):
    return memoir.validate([str(path) for path in paths], jobs=jobs)


def by_rule(report, rule) -> list:
    return [d for d in report.diagnostics if d.rule == rule.id]


def test_clean_store(tmp_path):
    write_entry(tmp_path, "fact_a", body="see [[lesson_b]]")
    write_entry(tmp_path, "lesson_b", type="lesson", body="see [[fact_a]]")
    report = run(tmp_path)
    assert report.diagnostics == ()
    assert report.files == (str(tmp_path / "memory" / "fact_a.md"), str(tmp_path / "memory" / "lesson_b.md"))


def test_unresolved_link_is_info(tmp_path):
    write_entry(tmp_path, "fact_a", body="see [[nowhere]]")
    [found] = by_rule(run(tmp_path), rules.LINK_UNRESOLVED)
    assert (found.severity, found.line, found.column) == ("info", 7, 5)


def test_link_matching_a_name_says_which_file_it_probably_means(tmp_path):
    # Real-world file 021: links use the name: slug, not the file name.
    write_entry(tmp_path, "fact_a", body="see [[factor-command-semantics]]")
    write_entry(tmp_path, "project_factor_command_semantics", type="project", name="factor-command-semantics")
    [found] = by_rule(run(tmp_path), rules.LINK_BY_NAME)
    assert "the name: of" in found.message and "[[project_factor_command_semantics]]" in found.message
    assert found.path.endswith("fact_a.md")


@pytest.mark.parametrize("link, hint", [("Fact_B", "case"), ("fact_b.md", ".md"), ("fact-b", "near spelling"),
                                         ("b", "near spelling")])
def test_near_spellings_of_link_names(tmp_path, link, hint):
    write_entry(tmp_path, "fact_a", body=f"see [[{link}]]")
    write_entry(tmp_path, "fact_b")
    [found] = by_rule(run(tmp_path), rules.LINK_BY_NAME)
    assert hint in found.message and "fact_b" in found.message


def test_link_names_slug_prefix_and_collision(tmp_path):
    write_entry(tmp_path, "Fact_A")
    write_entry(tmp_path, "fact_a")
    write_entry(tmp_path, "project_x", type="reference")
    write_entry(tmp_path, "orphan", type="decision", extra="why: w\nrejected: r\n")
    write_entry(tmp_path, "feedback_ok", type="feedback", body="**How to apply:** x")
    report = run(tmp_path)
    slugs = by_rule(report, rules.LINK_NAME_SLUG)
    assert [Path(d.path).name for d in slugs] == ["Fact_A.md"]
    collisions = by_rule(report, rules.LINK_NAME_COLLISION)
    assert len(collisions) == 1 and "only in case" in collisions[0].message
    prefixes = {Path(d.path).name: d.message for d in by_rule(report, rules.LINK_NAME_PREFIX)}
    assert set(prefixes) == {"project_x.md", "orphan.md"}
    assert "disagrees" in prefixes["project_x.md"] and "'decision_'" in prefixes["orphan.md"]
    assert "rename" in prefixes["orphan.md"] and "rename" in collisions[0].message


def test_store_layout_session_other_files_and_index(tmp_path):
    write_entry(tmp_path, "fact_a")
    (tmp_path / "memory" / "MEMORY.md").write_text("- [A](fact_a.md)\n", encoding="utf-8")
    (tmp_path / "memory" / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / "memory" / "sub").mkdir()
    (tmp_path / "memory" / ".hidden.md").write_text("x", encoding="utf-8")
    (tmp_path / "session.json").write_text("{broken", encoding="utf-8")
    report = run(tmp_path)
    assert {(Path(d.path).name, d.rule) for d in report.diagnostics} == {
        ("MEMORY.md", rules.INDEX_FILE.id), ("notes.txt", rules.OTHER_FILE.id), ("sub", rules.OTHER_FILE.id),
        ("session.json", rules.SESSION_JSON.id),
    }
    # What is not read (a folder, a file that is no entry) is not counted as checked.
    assert [Path(path).name for path in report.files] == ["session.json", "MEMORY.md", "fact_a.md"]


def test_a_memory_directory_without_store_layout(tmp_path):
    write_entry(tmp_path, "fact_a")
    report = run(tmp_path / "memory")
    assert report.files == (str(tmp_path / "memory" / "fact_a.md"),)


def test_loose_files_resolve_links_against_their_directory(tmp_path):
    write_entry(tmp_path, "fact_b")
    path = write_entry(tmp_path, "fact_a", body="[[fact_b]] [[fact_c]]")
    report = run(path)
    assert [d.message.split()[0] for d in report.diagnostics] == ["[[fact_c]]"]
    assert report.files == (str(path),)


def test_symlinks_out_of_the_store_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "fact_s.md"
    secret.write_text("---\ntype: fact\n---\n", encoding="utf-8")
    store = tmp_path / "store"
    write_entry(store, "fact_a")
    os.symlink(secret, store / "memory" / "fact_s.md")
    os.symlink(store / "memory" / "fact_a.md", store / "memory" / "fact_inside.md")
    report = run(store)
    [found] = by_rule(report, rules.SYMLINK_OUTSIDE)
    assert found.path.endswith("fact_s.md")
    assert not any(d.path.endswith("fact_s.md") and d.rule != rules.SYMLINK_OUTSIDE.id for d in report.diagnostics)
    assert str(store / "memory" / "fact_inside.md") in report.files


def test_memory_dir_linked_out_of_the_store(tmp_path):
    outside = tmp_path / "elsewhere"
    write_entry(outside, "fact_a")
    store = tmp_path / "store"
    store.mkdir()
    (store / "session.json").write_text(json.dumps({"version": 2}), encoding="utf-8")
    os.symlink(outside / "memory", store / "memory")
    report = run(store)
    assert {d.rule for d in report.diagnostics} == {rules.SYMLINK_OUTSIDE.id, rules.SESSION_VERSION_NEWER.id}


def test_not_utf8_binary_and_huge_files(tmp_path):
    memory = tmp_path / "memory"
    write_entry(tmp_path, "fact_a")
    (memory / "fact_latin1.md").write_bytes("---\ntype: fact\nname: caf\xe9\ndescription: d\n---\n".encode("latin-1"))
    (memory / "fact_binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (memory / "fact_huge.md").write_bytes(b"---\ntype: fact\nname: h\ndescription: d\n---\n" + b"x" * (MAX_BYTES + 10))
    report = run(tmp_path)
    [latin] = by_rule(report, rules.NOT_UTF8)
    assert (Path(latin.path).name, latin.line, latin.column) == ("fact_latin1.md", 3, 10)
    [binary] = by_rule(report, rules.BINARY)
    assert binary.path.endswith("fact_binary.md")
    [huge] = by_rule(report, rules.TOO_LARGE)
    assert huge.path.endswith("fact_huge.md") and str(MAX_BYTES) in huge.message
    assert not by_rule(report, rules.TOO_LARGE_TO_CHECK)


def test_secrets_are_reported_without_the_value(tmp_path):
    # Assembled at run time so the repository holds no credential-shaped text.
    key_id = "AKIA" + "ABCDEFGHIJKLMNOP"
    token = "gh" + "p_" + "a1B2" * 9
    private = "-----BEGIN " + "OPENSSH PRIVATE KEY-----"
    write_entry(tmp_path, "fact_a", body=f"aws {key_id}\n\n  {token}\n{private}\nxxx")
    report = run(tmp_path)
    found = by_rule(report, rules.SECRET)
    assert [(d.line, d.column) for d in found] == [(7, 5), (9, 3), (10, 1)]
    assert all(key_id not in d.message and token not in d.message for d in report.diagnostics)
    assert {d.message.split(" (")[0] for d in found} == {
        "something shaped like a AWS access key id", "something shaped like a GitHub token",
        "something shaped like a private key"}
    assert all("rotate" in d.message for d in found)


def test_validator_never_writes(tmp_path):
    write_entry(tmp_path, "fact_a", body="[[x]]")
    (tmp_path / "session.json").write_text('{"version": 9}', encoding="utf-8")
    (tmp_path / "memory" / "bad.md").write_text("---\nname: &a x\n", encoding="utf-8")

    def snapshot():
        return {str(path): (path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
                for path in sorted(tmp_path.rglob("*")) if path.is_file()}

    before = snapshot()
    run(tmp_path)
    assert snapshot() == before


def test_output_is_the_same_whatever_the_parallelism(tmp_path, monkeypatch):
    for index in range(40):
        write_entry(tmp_path, f"fact_{index:02d}", body=f"[[fact_{index + 1:02d}]] [[x{index % 3}]]",
                    extra="tags: [a]\n" if index % 7 == 0 else "")
    monkeypatch.setattr(pipeline, "PARALLEL_THRESHOLD", 1)
    serial = run(tmp_path, jobs=1)
    parallel = run(tmp_path, jobs=2)
    assert serial == parallel
    assert serial.diagnostics


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=400) | st.text(max_size=300).map(lambda text: text.encode("utf-8", "surrogatepass")))
def test_arbitrary_bytes_as_entry_files_give_diagnostics(tmp_path, content):
    path = tmp_path / "fact_fuzz.md"
    path.write_bytes(content)
    found, _summary = check_file(str(path), "fact_fuzz.md", "entry")
    assert rules.CHECK_FAILED.id not in {d.rule for d in found}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=300))
def test_arbitrary_bytes_as_session_files_give_diagnostics(tmp_path, content):
    path = tmp_path / "session.json"
    path.write_bytes(content)
    found, _summary = check_file(str(path), "session.json", "session")
    assert rules.CHECK_FAILED.id not in {d.rule for d in found}
    if content.strip() == b"":
        assert [d.rule for d in found] == [rules.SESSION_JSON.id]


def test_a_pipe_in_the_store_is_never_opened(tmp_path):
    write_entry(tmp_path, "fact_a")
    os.mkfifo(tmp_path / "memory" / "fact_pipe.md")
    [found] = by_rule(run(tmp_path), rules.UNREADABLE)
    assert found.path.endswith("fact_pipe.md") and "regular file" in found.message


def test_findings_stream_out_before_the_store_has_been_read(tmp_path, monkeypatch):
    """Each file's findings come out as it is checked: nothing waits for the whole store (issue 15)."""
    for index in range(50):
        write_entry(tmp_path, f"fact_{index:02d}", extra="tags: [a]\n")
    checked = []
    original = pipeline.check_file
    monkeypatch.setattr(pipeline, "check_file", lambda *item: checked.append(item[1]) or original(*item))
    stream = pipeline.events(memoir.plan([str(tmp_path)]))
    first_file = next(event for event in stream if isinstance(event, FileChecked))
    assert first_file.path.endswith("fact_00.md") and first_file.diagnostics
    assert len(checked) == 1
    stream.close()


@pytest.mark.parametrize("store", ["canonical", "legacy-mixed"])
def test_the_kits_golden_stores_have_no_error(store):
    from conformance.resources import vectors_dir

    report = run(vectors_dir() / "stores" / store)
    assert [(d.path, d.rule) for d in report.diagnostics if d.severity == "error"] == []
