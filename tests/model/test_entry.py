"""Reading one entry file, legacy dialects included (spec 3, 6, Appendix A)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model.entry import ENTRY_TYPES, read_entry

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "real-world"


@pytest.mark.parametrize("entry_type", ENTRY_TYPES)
def test_canonical_types_read_ok(entry_type):
    entry = read_entry(f"{entry_type}_x", f"---\ntype: {entry_type}\nname: X\n---\nSee [[fact_y]].\n")
    assert entry == {
        "link": f"{entry_type}_x", "status": "ok", "type": entry_type, "name": "X",
        "fields": {"type": entry_type, "name": "X"}, "body": "See [[fact_y]].\n",
        "links": ["fact_y"], "legacy": [],
    }


def test_unknown_type_is_opaque_and_kept():
    entry = read_entry("stable", "---\ntype: stable\nname: effect-system\n---\n")
    assert (entry["status"], entry["type"], entry["name"]) == ("opaque", "stable", "effect-system")


def test_missing_type_is_opaque():
    entry = read_entry("x", "---\nname: n\n---\n")
    assert (entry["status"], entry["type"]) == ("opaque", None)


def test_newer_schema_version_is_quarantined():
    entry = read_entry("fact_x", "---\ntype: fact\nname: X\nschema_version: 2\n---\n[[a]]\n")
    assert entry == {
        "link": "fact_x", "status": "quarantined", "type": None, "name": None,
        "fields": {}, "body": None, "links": [], "legacy": entry["legacy"],
    }


def test_schema_version_one_reads_normally():
    assert read_entry("f", "---\ntype: fact\nname: X\nschema_version: 1\n---\n")["status"] == "ok"


# -- Appendix A, row by row ------------------------------------------------------


def test_metadata_type_reads_as_type():
    entry = read_entry("f", "---\nname: n\nmetadata: \n  node_type: memory\n  type: fact\n---\n")
    assert entry["status"] == "ok" and entry["type"] == "fact"
    assert entry["fields"]["metadata"] == {"node_type": "memory", "type": "fact"}
    assert "metadata.type read as type" in entry["legacy"]


def test_top_level_type_wins_over_metadata_type():
    entry = read_entry("f", "---\ntype: goal\nname: n\nmetadata:\n  type: fact\n---\n")
    assert entry["type"] == "goal" and entry["legacy"] == []


def test_top_level_origin_session_id():
    entry = read_entry("f", "---\ntype: fact\nname: n\noriginSessionId: abc\n---\n")
    assert entry["fields"]["origin"] == {"session_id": "abc"}
    assert entry["fields"]["originSessionId"] == "abc"
    assert "originSessionId read as origin.session_id" in entry["legacy"]


def test_nested_origin_session_id_merges_into_existing_origin():
    entry = read_entry(
        "f", "---\ntype: fact\nname: n\norigin:\n  tool: t\nmetadata:\n  originSessionId: abc\n---\n"
    )
    assert entry["fields"]["origin"] == {"tool": "t", "session_id": "abc"}
    assert "metadata.originSessionId read as origin.session_id" in entry["legacy"]


def test_existing_origin_session_id_is_not_overwritten():
    entry = read_entry("f", "---\ntype: fact\nname: n\norigin:\n  session_id: keep\noriginSessionId: other\n---\n")
    assert entry["fields"]["origin"] == {"session_id": "keep"}


@pytest.mark.parametrize("legacy, canonical", [("user", "preference"), ("reference", "fact")])
def test_legacy_type_vocabulary(legacy, canonical):
    entry = read_entry("f", f"---\ntype: {legacy}\nname: n\n---\n")
    assert (entry["status"], entry["type"]) == ("ok", canonical)
    assert f"type {legacy} read as {canonical}" in entry["legacy"]


def test_feedback_reads_as_lesson_with_fields_from_description_and_body():
    text = (
        "---\nname: n\ndescription: Before deleting a directory\ntype: feedback\n---\n"
        "Story.\n\n**Why:** it hurt.\n\n**How to apply:** Check twice.\nThen delete.\n\n**Other:** x\n"
    )
    entry = read_entry("feedback_x", text)
    assert (entry["status"], entry["type"]) == ("ok", "lesson")
    assert entry["fields"]["trigger"] == "Before deleting a directory"
    assert entry["fields"]["how_to_apply"] == "Check twice.\nThen delete."
    assert entry["fields"]["description"] == "Before deleting a directory"
    assert entry["legacy"] == [
        "type feedback read as lesson", "description read as trigger",
        "**How to apply:** body section read as how_to_apply",
    ]


def test_how_to_apply_section_ends_at_a_heading_and_may_start_on_the_next_line():
    text = "---\ntype: feedback\nname: n\n---\n**How to apply:**\n- one\n- two\n## Next\nno\n"
    assert read_entry("x", text)["fields"]["how_to_apply"] == "- one\n- two"


def test_feedback_keeps_explicit_lesson_fields():
    text = "---\ntype: feedback\nname: n\ndescription: d\ntrigger: t\nhow_to_apply: h\n---\n**How to apply:** body\n"
    entry = read_entry("x", text)
    assert (entry["fields"]["trigger"], entry["fields"]["how_to_apply"]) == ("t", "h")


def test_project_is_an_opaque_legacy_dossier():
    entry = read_entry("project_x", "---\nname: n\nmetadata:\n  type: project\n---\n")
    assert (entry["status"], entry["type"]) == ("opaque", "project")
    assert any("dossier" in note for note in entry["legacy"])


def test_no_frontmatter_reads_name_from_first_h1_outside_code():
    text = "```sh\n# not a title\n```\n\nintro\n# Hooks Setup #\n\n# Second\n"
    entry = read_entry("hooks", text)
    assert (entry["status"], entry["type"], entry["name"]) == ("opaque", None, "Hooks Setup")
    assert entry["fields"] == {} and entry["body"] == text
    assert entry["legacy"]


def test_name_falls_back_to_link():
    assert read_entry("fact_x", "---\ntype: fact\n---\nno heading\n")["name"] == "fact_x"
    assert read_entry("bare", "just text")["name"] == "bare"


def test_wikilinks_in_order_deduplicated_without_alias_or_heading():
    body = "[[b]] then [[a|A]] and [[b#part]] and [[ c ]] [[]] [[a]]"
    assert read_entry("x", f"---\ntype: fact\nname: n\n---\n{body}")["links"] == ["b", "a", "c"]


def test_unknown_fields_are_kept():
    entry = read_entry("x", "---\ntype: fact\nname: n\ndomain: personal\nrelates_to: [a]\n---\n")
    assert entry["fields"]["domain"] == "personal"
    assert entry["fields"]["relates_to"] == "[a]"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_read_entry_never_raises(text):
    entry = read_entry("x", text)
    assert entry["status"] in ("ok", "opaque", "quarantined")
    json.dumps(entry)  # plain data


# -- the real-world corpus -------------------------------------------------------


def _corpus_files():
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.glob("[0-9][0-9][0-9]_*.md"))


def _manifest() -> dict:
    return {item["file"]: item for item in json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus/real-world is not beside the repository")
def test_every_real_world_file_reads_and_legacy_files_are_recognised():
    manifest = _manifest()
    files = _corpus_files()
    assert len(files) >= 30
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        entry = read_entry(path.stem, text)
        json.dumps(entry)
        features = " ".join(manifest[path.name]["features"])
        if "legacy type" in features or "no frontmatter" in features or "dialect: nested" in features:
            assert entry["legacy"], f"{path.name} is legacy but reads without legacy notes"
        if "legacy type: feedback" in features:
            assert entry["type"] == "lesson", path.name
        if "legacy type: project" in features:
            assert (entry["status"], entry["type"]) == ("opaque", "project"), path.name
        if "no frontmatter" in features:
            assert entry["status"] == "opaque" and entry["fields"] == {}, path.name
        if "frontmatter AFTER preamble" in features:
            assert entry["fields"], path.name
        if "non-standard type" in features:
            assert entry["status"] == "opaque" and entry["type"] in ("stable", "pattern"), path.name
        for value in entry["fields"].values():
            assert not (isinstance(value, str) and "\r" in value), path.name
