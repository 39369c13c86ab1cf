"""REME vault rules: the interpretations behind each one (docs/sibling-formats.md)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conformance.validator import reme_vault
from conformance.validator.reme_vault.layout import scan_vault
from conformance.validator.reme_vault.links import Resolver, materials_section, wikilinks

AXES = "lifecycle: evolving\nscope: class\nsource: curated\nrole: concept\n"
EVENT_AXES = "lifecycle: streaming\nscope: instance\nsource: curated\nrole: observation\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def topic(extra: str = "", body: str = "") -> str:
    return f"---\n{AXES}{extra}---\n{body}"


def event(status: str | None = None, body: str = "") -> str:
    status_line = f"status: {status}\n" if status else ""
    return f"---\n{EVENT_AXES}{status_line}---\n{body}"


def findings(root: Path, **options) -> list[tuple[str, str]]:
    """(path relative to the vault, rule id) of every finding."""
    return [(os.path.relpath(f.path, root).replace(os.sep, "/"), f.rule)
            for f in reme_vault.validate_paths([str(root)], **options)]


# -- the rule catalogue ----------------------------------------------------------

def test_rule_ids_are_unique_and_say_their_severity():
    ids = [rule.id for rule in reme_vault.RULES]
    assert len(ids) == len(set(ids))
    for rule in reme_vault.RULES:
        match = re.fullmatch(r"REME-([EWI])-[A-Z0-9-]+", rule.id)
        assert match, rule.id
        assert {"E": "error", "W": "warning", "I": "info"}[match.group(1)] == rule.severity
        assert rule.format == "reme-vault" and rule.section.startswith("reme: ")


# -- wikilinks --------------------------------------------------------------------

def test_wikilinks_skip_code_and_drop_aliases_and_headings():
    text = "See [[A|alias]] and ![[B#Part]] and `[[C]]`.\n```\n[[D]]\n```\n~~~~\n[[E]]\n~~~~\n[[F^block]] [[#local]]\n"
    assert [(link.target, link.line, link.column) for link in wikilinks(text)] == [
        ("A", 1, 5), ("B", 1, 21), ("F", 8, 1)]


def test_stem_form_prefers_the_folder_topic(tmp_path):
    write(tmp_path, {"topics/X/X.md": topic(), "topics/Y/X.md": topic(), "topics/Z/X.md": topic()})
    resolver = Resolver(scan_vault(str(tmp_path)))
    assert resolver.resolve("X") == ["topics/X/X.md"]
    assert resolver.resolve("X.md") == ["topics/X/X.md"]


def test_stem_form_without_a_folder_topic_needs_a_unique_stem(tmp_path):
    write(tmp_path, {"topics/Y/X.md": topic(), "topics/Z/X.md": topic(), "topics/Z/Only.md": topic()})
    resolver = Resolver(scan_vault(str(tmp_path)))
    assert resolver.resolve("X") == ["topics/Y/X.md", "topics/Z/X.md"]
    assert resolver.resolve("Only") == ["topics/Z/Only.md"]


def test_path_form_is_anchored_at_the_root_and_never_leaves_it(tmp_path):
    write(tmp_path / "vault", {"topics/X/X.md": topic()})
    write(tmp_path, {"secret.md": "outside"})
    resolver = Resolver(scan_vault(str(tmp_path / "vault")))
    assert resolver.resolve("topics/X/X") == ["topics/X/X.md"]
    assert resolver.resolve("/topics/X/X.md") == ["topics/X/X.md"]
    assert resolver.resolve("X/X") == []
    assert resolver.resolve("../secret") == []


def test_a_non_markdown_target_resolves_by_file_name(tmp_path):
    write(tmp_path, {"topics/X/X.md": topic(body="![[chart.png]]\n"), "topics/X/chart.png": "png"})
    assert findings(tmp_path) == []


# -- materials --------------------------------------------------------------------

def test_the_materials_section_lists_links_code_and_file_names():
    text = (
        "# Event\n## Materials\n"
        "- [[raw.txt]]\n- [dump](data/dump%20one.csv)\n- `tool.log` — tool output\n"
        "- notes.md — my notes\n- (none yet)\n- https://example.org/x.txt\n- [site](https://example.org)\n"
        "### still materials\n- late.txt\n## Next\n- other.txt\n"
    )
    found, entries = materials_section(text)
    assert found
    assert [reference for reference, _, _ in entries] == [
        "raw.txt", "data/dump one.csv", "tool.log", "notes.md", "late.txt"]
    assert entries[0][1:] == (3, 3)


def test_an_event_without_a_materials_section_leaves_every_material_unlisted(tmp_path):
    write(tmp_path, {"events/2026-07-01/e/e.md": event(), "events/2026-07-01/e/raw.txt": "x",
                     "events/2026-07-01/e/sub/deep.txt": "y"})
    assert findings(tmp_path) == [("events/2026-07-01/e/raw.txt", "REME-W-MATERIAL-UNLISTED"),
                                  ("events/2026-07-01/e/sub/deep.txt", "REME-W-MATERIAL-UNLISTED")]


def test_materials_may_lack_frontmatter_but_declared_axes_are_checked(tmp_path):
    write(tmp_path, {
        "events/2026-07-01/e/e.md": event(body="## Materials\n- plain.md\n- broken.md\n- bad.md\n"),
        "events/2026-07-01/e/plain.md": "just text\n",
        "events/2026-07-01/e/broken.md": "---\nnot: [closed\n---\n",
        "events/2026-07-01/e/bad.md": "---\nlifecycle: evolving\nrole: rumour\n---\n",
    })
    assert sorted(findings(tmp_path)) == [("events/2026-07-01/e/bad.md", "REME-E-AXIS-VALUE"),
                                          ("events/2026-07-01/e/bad.md", "REME-W-LIFECYCLE-PATH")]


# -- frontmatter ------------------------------------------------------------------

def test_a_legacy_category_says_how_it_reads_and_whether_the_spec_names_it(tmp_path):
    write(tmp_path, {"topics/A/A.md": "---\ncategory: questions\nconfidence: ⏳\n---\n",
                     "topics/B/B.md": "---\ncategory: method\n---\n"})
    messages = {os.path.basename(f.path): f.message for f in reme_vault.validate_paths([str(tmp_path)])}
    assert "role: question" in messages["A.md"] and "named by the protocol" in messages["A.md"]
    assert "role: method" in messages["B.md"] and "inferred" in messages["B.md"]


def test_an_unknown_legacy_category_leaves_the_axes_missing(tmp_path):
    write(tmp_path, {"topics/A/A.md": "---\ncategory: musings\n---\n"})
    assert sorted(rule for _, rule in findings(tmp_path)) == ["REME-E-AXIS-MISSING"] * 4 + ["REME-W-LEGACY-CATEGORY"]


def test_a_legacy_claim_still_needs_confidence(tmp_path):
    write(tmp_path, {"topics/A/A.md": "---\ncategory: thesis\n---\n"})
    assert sorted(rule for _, rule in findings(tmp_path)) == ["REME-E-CONFIDENCE", "REME-W-LEGACY-CATEGORY"]


@pytest.mark.parametrize(("value", "valid"), [("✅", True), ("✅\ufe0f", True), ("⏳", True), ("❌", True),
                                              ("yes", False), ("'✅ sure'", False), ("1", False)])
def test_confidence_values(tmp_path, value, valid):
    write(tmp_path, {"topics/A/A.md": f"---\n{AXES.replace('concept', 'claim')}confidence: {value}\n---\n"})
    assert (findings(tmp_path) == []) is valid


def test_status_is_checked_on_any_memory_but_only_meaningful_on_streaming(tmp_path):
    write(tmp_path, {"topics/A/A.md": topic("status: distilled\n"), "events/2026-07-01/e/e.md": event("paused")})
    assert sorted(findings(tmp_path)) == [("events/2026-07-01/e/e.md", "REME-E-STATUS-VALUE"),
                                          ("topics/A/A.md", "REME-W-STATUS-NOT-STREAMING")]


def test_frontmatter_positions_are_file_lines(tmp_path):
    write(tmp_path, {"topics/A/A.md": "---\ntitle: A\nlifecycle: evolving\nscope: class\nsource: curated\nrole: guess\n---\n"})
    [finding] = reme_vault.validate_paths([str(tmp_path)])
    assert (finding.rule, finding.line, finding.column) == ("REME-E-AXIS-VALUE", 6, 1)


# -- reading the vault ---------------------------------------------------------------

def test_a_symlinked_directory_is_reported_and_not_entered(tmp_path):
    write(tmp_path / "elsewhere", {"Bad.md": "no frontmatter"})
    vault = write(tmp_path / "vault", {"topics/A/A.md": topic()})
    os.symlink(tmp_path / "elsewhere", vault / "topics" / "B")
    assert findings(vault) == [("topics/B", "REME-W-SYMLINK")]


def test_hidden_folders_are_not_part_of_the_vault(tmp_path):
    write(tmp_path, {"topics/A/A.md": topic(), ".obsidian/workspace.md": "x", "topics/A/.draft.md": "x"})
    assert findings(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_not_read(tmp_path):
    write(tmp_path, {"topics/A/A.md": topic()})
    os.mkfifo(tmp_path / "topics" / "A" / "pipe.md")
    assert findings(tmp_path) == [("topics/A/pipe.md", "REME-E-READ")]


def test_a_vault_that_is_not_a_directory_is_a_diagnostic(tmp_path):
    (tmp_path / "file").write_text("x")
    results = reme_vault.validate_paths([str(tmp_path / "file"), str(tmp_path / "absent")])
    assert [(f.rule, f.message) for f in results] == [
        ("REME-E-READ", "no such directory"), ("REME-E-READ", "not a directory; a REME vault is a directory")]


def test_an_unreadable_since_snapshot_is_a_diagnostic(tmp_path):
    write(tmp_path / "vault", {"topics/A/A.md": topic()})
    [finding] = reme_vault.validate_paths([str(tmp_path / "vault")], since=str(tmp_path / "old"))
    assert finding.rule == "REME-E-READ" and finding.path == str(tmp_path / "old")


# -- the status state machine ---------------------------------------------------------

@pytest.mark.parametrize(
    ("before", "after", "rule"),
    [(None, "distilled", None), (None, "archived", "REME-E-STATUS-SKIP"), ("active", "active", None),
     ("distilled", "archived", None), ("archived", "active", "REME-E-STATUS-REVERSE"),
     ("distilled", None, "REME-E-STATUS-REVERSE"), ("active", "bogus", "REME-E-STATUS-VALUE")],
)
def test_transitions_between_snapshots(tmp_path, before, after, rule):
    write(tmp_path / "old", {"events/2026-07-01/e/e.md": event(before)})
    write(tmp_path / "new", {"events/2026-07-01/e/e.md": event(after)})
    expected = [("events/2026-07-01/e/e.md", rule)] if rule else []
    assert findings(tmp_path / "new", since=str(tmp_path / "old")) == expected


def test_an_archived_memory_is_matched_under_archive_by_file_name(tmp_path):
    write(tmp_path / "old", {"events/2026-07-01/e/e.md": event("active")})
    write(tmp_path / "new", {"Archive/e.md": event("archived")})
    assert findings(tmp_path / "new", since=str(tmp_path / "old")) == [("Archive/e.md", "REME-E-STATUS-SKIP")]


def test_topics_are_outside_the_state_machine(tmp_path):
    write(tmp_path / "old", {"topics/A/A.md": topic("status: archived\n")})
    write(tmp_path / "new", {"topics/A/A.md": topic("status: active\n")})
    assert findings(tmp_path / "new", since=str(tmp_path / "old")) == [("topics/A/A.md", "REME-W-STATUS-NOT-STREAMING")]


def test_a_name_shared_across_events_resolves_to_the_file_beside_the_link(tmp_path):
    index = "## Materials\n- [[transcript.txt]]\n"
    write(tmp_path, {"events/2026-07-01/a/a.md": event(body=index), "events/2026-07-01/a/transcript.txt": "x",
                     "events/2026-07-02/b/b.md": event(body=index), "events/2026-07-02/b/transcript.txt": "y",
                     "topics/T/T.md": topic(body="[[transcript.txt]]\n")})
    assert findings(tmp_path) == [("topics/T/T.md", "REME-E-WIKILINK-AMBIGUOUS")]


def test_memories_sharing_a_stem_make_a_link_ambiguous_even_beside_one_of_them(tmp_path):
    """The protocol resolves [[X]] only to a unique same-stem file; being beside one of two topics settles nothing."""
    write(tmp_path, {"topics/Y/Y.md": topic(body="[[X]]\n"), "topics/Y/X.md": topic(), "topics/Z/X.md": topic(),
                     "topics/Z/Z.md": topic()})
    assert sorted(findings(tmp_path)) == [("topics/Y/Y.md", "REME-E-WIKILINK-AMBIGUOUS"),
                                          ("topics/Z/X.md", "REME-W-STEM-AMBIGUOUS")]
