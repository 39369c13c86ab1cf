"""Finding the stores a user points at: real layouts on disk (memoir/discovery.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.validator import memoir
from conformance.validator.memoir import rules
from conformance.validator.memoir.discovery import NothingFound, targets

ENTRY = "---\ntype: fact\nname: {name}\ndescription: d\ncreated: 2026-05-01\n---\nbody\n"


def layout(root: Path, files: list[str]) -> Path:
    for relpath in files:
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "- [a](a.md)\n" if path.name == "MEMORY.md" else ENTRY.format(name=path.stem)
        path.write_text(text if relpath.endswith(".md") else "{}", encoding="utf-8")
    return root


def found(root: Path, *given: str) -> list[tuple[str, str]]:
    """(target, as relative to root, its layout) for each target found under `given` (default: root)."""
    paths = [str(root / name) for name in given] or [str(root)]
    return [(os.path.relpath(target.display, root), target.layout) for target in targets(paths)]


def checked(root: Path, *given: str) -> list[str]:
    paths = [str(root / name) for name in given] or [str(root)]
    return [os.path.relpath(path, root) for path in memoir.validate(paths).files]


def test_agent_memory_folders_are_found_and_read(tmp_path):
    """Issue 15: .claude/agent-memory reported every agent folder as "not read", counted it, and exited 0."""
    layout(tmp_path, [".claude/agent-memory/reviewer/MEMORY.md", ".claude/agent-memory/reviewer/fact_a.md",
                      ".claude/agent-memory/planner/fact_b.md"])
    assert found(tmp_path, ".claude/agent-memory") == [(".claude/agent-memory/planner", "folder"),
                                                      (".claude/agent-memory/reviewer", "folder")]
    assert checked(tmp_path, ".claude/agent-memory") == [
        ".claude/agent-memory/planner/fact_b.md", ".claude/agent-memory/reviewer/MEMORY.md",
        ".claude/agent-memory/reviewer/fact_a.md"]
    report = memoir.validate([str(tmp_path / ".claude/agent-memory")])
    assert rules.OTHER_FILE.id not in {d.rule for d in report.diagnostics}
    # One agent's folder named directly is a store of its own.
    assert found(tmp_path, ".claude/agent-memory/planner") == [(".claude/agent-memory/planner", "folder")]


def test_claude_projects_memory_folders_are_found(tmp_path):
    layout(tmp_path, [".claude/projects/-home-me-app/memory/fact_a.md", ".claude/projects/-home-me-app/x.jsonl",
                      ".claude/projects/-home-me-lib/memory/MEMORY.md", ".claude/settings.json"])
    assert found(tmp_path) == [(".claude/projects/-home-me-app", "store"), (".claude/projects/-home-me-lib", "store")]
    assert checked(tmp_path, ".claude") == [".claude/projects/-home-me-app/memory/fact_a.md",
                                            ".claude/projects/-home-me-lib/memory/MEMORY.md"]


def test_a_store_a_memory_folder_and_a_folder_with_an_index(tmp_path):
    layout(tmp_path, ["repo/memory/fact_a.md", "repo/session.json", "notes/MEMORY.md", "notes/fact_n.md",
                      "loose/memory/fact_m.md", "deep/a/b/c/memory/fact_d.md"])
    assert found(tmp_path) == [("deep/a/b/c", "store"), ("loose", "store"), ("notes", "folder"), ("repo", "store")]
    assert found(tmp_path, "repo/memory") == [("repo/memory", "folder")]
    assert checked(tmp_path, "repo") == ["repo/session.json", "repo/memory/fact_a.md"]


def test_what_is_not_searched(tmp_path):
    layout(tmp_path, [".specify/memory/constitution.md", "node_modules/pkg/memory/fact_a.md",
                      "repo/memory/fact_b.md", "repo/memory/nested/memory/fact_c.md", ".git/memory/fact_d.md"])
    os.symlink(tmp_path / "repo", tmp_path / "link-to-repo")
    # Hidden folders other than .claude, installed code, the inside of a store and symbolic links are skipped.
    assert found(tmp_path) == [("repo", "store")]
    # Named directly, any folder is searched.
    assert found(tmp_path, ".specify") == [(".specify", "store")]


def test_a_folder_of_entry_files_without_an_index(tmp_path):
    layout(tmp_path, ["notes/fact_a.md", "notes/fact_b.md"])
    assert found(tmp_path, "notes") == [("notes", "folder")]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# A guide\n\nNo frontmatter.\n", encoding="utf-8")
    with pytest.raises(NothingFound, match="looked for"):
        targets([str(tmp_path / "docs")])


def test_loose_files_are_grouped_by_folder_and_each_store_is_checked_once(tmp_path):
    layout(tmp_path, ["s/memory/fact_a.md", "s/memory/fact_b.md", "t/fact_c.md"])
    plan = targets([str(tmp_path / "s"), str(tmp_path / "s"), str(tmp_path / "s/memory/fact_a.md"),
                    str(tmp_path / "t/fact_c.md")])
    assert [(os.path.relpath(target.display, tmp_path), target.layout, target.files and len(target.files))
            for target in plan] == [("s", "store", None), ("s/memory", "files", 1), ("t", "files", 1)]


def test_a_store_whose_memory_folder_is_a_link_out_of_it(tmp_path):
    layout(tmp_path, ["elsewhere/fact_a.md", "store/session.json"])
    os.symlink(tmp_path / "elsewhere", tmp_path / "store" / "memory")
    report = memoir.validate([str(tmp_path / "store")])
    assert rules.SYMLINK_OUTSIDE.id in {d.rule for d in report.diagnostics}
    assert [os.path.relpath(path, tmp_path) for path in report.files] == ["store/session.json"]
