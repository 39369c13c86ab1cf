"""The validator on memory files from the wild (shared/corpus/real-world).

Each file is put back at its path in its source repository, so the validator
has to find the stores as a user's checkout has them (``.claude/memory/``,
``claude/memory/``, ``.claude/agent-memory/<agent>/``), index files are called
MEMORY.md again and links resolve as they did where the files came from.
Every file must get a reading, no check may fail, the real problems must
come out on top and the legacy dialects must be summarised, and every
message must be plain and consistent with the others on its file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.validator import memoir
from conformance.validator.memoir import rules

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "real-world"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus/real-world is not beside the repository")

LEGACY_RULES = {rule.id for rule in rules.RULES if rule.severity == "legacy"}
# What each file's real problem is (issue 15): a frontmatter a YAML engine rejects, a value a YAML engine cuts at
# ' #', a quoted value run on, and the subset's flow lists and deeper nesting. Only the deeper nesting breaks a
# MUST NOT of 3.1 (017's list inside metadata): it is the corpus's one error; the others are warnings.
ERRORS = {"017": {rules.YAML_DEEP_NESTING.id}}
REAL_PROBLEMS = {
    "003": {rules.YAML_QUOTING.id}, "008": {rules.YAML_REJECTED.id}, "015": {rules.YAML_REJECTED.id},
    "027": {rules.YAML_REJECTED.id}, "031": {rules.YAML_REJECTED.id}, "016": {rules.YAML_FLOW.id},
    "018": {rules.YAML_FLOW.id}, "017": {rules.YAML_DEEP_NESTING.id},
}
ACTIONS = ("add", "remove", "write", "quote", "move", "rename", "correct", "use ", "keep", "indent", "close",
           "flatten", "delete", "read it with", "check", "split", "save", "copy")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    """The repositories as checked out; corpus file -> {"path", "repo", "features"}."""
    root = tmp_path_factory.mktemp("real-world")
    placed = {}
    for item in json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8")):
        target = root / item["repo"].replace("/", "__") / item["path"]
        if target.exists():  # the same file at two commits (001, 002): keep both
            target = target.with_name(f"{target.stem}.{item['file'][:3]}.md")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS / item["file"], target)
        placed[item["file"][:3]] = {"path": str(target), "repo": str(root / item["repo"].replace("/", "__")),
                                    "features": " ".join(item["features"]), "file": item["path"]}
    return root, placed


def _hidden_outside_claude(relpath: str) -> bool:
    return any(part.startswith(".") and part != ".claude" for part in Path(relpath).parts[:-1])


@pytest.fixture(scope="module")
def report(checkout):
    """Every repository, and the folders not searched in them named as well."""
    _root, placed = checkout
    named = {os.path.dirname(entry["path"]) for entry in placed.values() if _hidden_outside_claude(entry["file"])}
    return memoir.validate(sorted({entry["repo"] for entry in placed.values()} | named))


def test_every_file_of_every_repository_is_found_and_read(checkout, report):
    """Pointed at each repository's root, the validator finds its memory where users keep it."""
    _root, placed = checkout
    assert rules.CHECK_FAILED.id not in {d.rule for d in report.diagnostics}
    repositories = memoir.validate(sorted({entry["repo"] for entry in placed.values()}))
    for number, entry in placed.items():
        assert entry["path"] in report.files, number
        # .specify/memory (a spec-kit constitution) and a misspelled .claire/ are read only when named.
        assert (entry["path"] in repositories.files) is not _hidden_outside_claude(entry["file"]), number


def test_the_real_problems_come_out_on_top(checkout, report):
    _root, placed = checkout
    errors: dict[str, set[str]] = {}
    problems: dict[str, set[str]] = {}
    for found in report.diagnostics:
        if found.severity == "error":
            errors.setdefault(found.path, set()).add(found.rule)
        if found.rule in {rule for wanted in REAL_PROBLEMS.values() for rule in wanted}:
            problems.setdefault(found.path, set()).add(found.rule)
    assert errors == {placed[number]["path"]: rules_ for number, rules_ in ERRORS.items()}
    assert problems == {placed[number]["path"]: rules_ for number, rules_ in REAL_PROBLEMS.items()}
    # 005 cuts its description at ' #'; 015 does too, on the line a YAML engine rejects outright, where
    # quoting the value (what the rejection says) settles both: one finding, not two that contradict.
    comments = {d.path for d in report.diagnostics if d.rule == rules.YAML_COMMENT.id}
    assert comments == {placed["005"]["path"]}


def test_legacy_files_are_recognised_as_legacy(checkout, report):
    _root, placed = checkout
    for number, entry in placed.items():
        features = entry["features"]
        found = {d.rule for d in report.diagnostics if d.path == entry["path"]}
        if "legacy type" in features or "no frontmatter" in features or "dialect: nested" in features:
            # (a bare README.md in a memory folder is an index, not a legacy entry)
            assert found & (LEGACY_RULES | {rules.INDEX_FILE.id}), f"{number} not recognised as legacy: {found}"
        if "MEMORY.md index" in features:
            assert rules.INDEX_FILE.id in found, number
        if "frontmatter AFTER preamble" in features:
            assert rules.PREAMBLE.id in found and rules.LEGACY_TYPE.id in found, number
        if "non-standard type" in features:
            assert rules.UNKNOWN_TYPE.id in found, number
    # An ISO timestamp written by tools in a field of no text type loses nothing (007's metadata.modified).
    assert not [d for d in report.diagnostics if d.path == placed["007"]["path"] and d.rule == rules.YAML_RETYPED.id]


def test_default_output_summarises_legacy_dialects_per_store(checkout, capsys):
    root, placed = checkout
    repositories = sorted({entry["repo"] for entry in placed.values()})
    assert main(["validate", *repositories]) == 1
    out = capsys.readouterr().out
    assert not [rule for rule in LEGACY_RULES if rule in out]
    summaries = re.findall(r"^  legacy (.+): (\d+) files? uses? legacy dialects?; all readable \(Appendix A\); "
                           r"`--legacy=show` to list them$", out, re.MULTILINE)
    assert summaries and all(int(count) > 0 for _store, count in summaries)
    assert main(["validate", "--legacy", "show", *repositories]) == 1
    shown = capsys.readouterr().out
    assert any(rule in shown for rule in LEGACY_RULES)


def test_every_message_is_plain_and_consistent_on_its_file(report):
    by_path: dict[str, list] = {}
    for found in report.diagnostics:
        by_path.setdefault(found.path, []).append(found)
        message = found.message
        assert "\n" not in message and message == message.strip()
        for internal in ("status opaque", "(status", "quarantined", "ok)", "opaque, type"):
            assert internal not in message, message
        if found.severity in ("error", "warning"):
            assert any(action in message for action in ACTIONS), message
    for path, found in by_path.items():
        messages = " | ".join(d.message for d in found)
        if "section is the how_to_apply" in messages:
            assert "no **How to apply:** section" not in messages, path
        assert not re.search(r"metadata\.type '(\w+)' reads as type '\1'", messages), path


def test_the_command_line_on_the_corpus_never_ends_in_a_traceback(checkout, capsys):
    _root, placed = checkout
    paths = sorted({entry["repo"] for entry in placed.values()})
    for fmt in ("human", "json", "sarif", "junit"):
        code = main(["validate", "--format", fmt, *paths])
        captured = capsys.readouterr()
        assert code == 1 and captured.out and "Traceback" not in captured.err
