"""Pipes, devices and loops of links where files are expected (issue 24, item 6 and a part of 9).

Opening a named pipe for reading waits for a writer that never comes, so
each case runs the real command line in a child process with a timeout: a
regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")

REPO = Path(__file__).resolve().parents[2]
ENTRY = "---\ntype: fact\nname: A fact\ndescription: one\ncreated: 2026-01-01\n---\nBody.\n"


def validate(*argv: str) -> tuple[int, list[dict]]:
    """Exit code and findings of `memoir-conform validate --format json ARGV`, in a child with a timeout."""
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", "validate", "--format", "json", *argv],
        capture_output=True, text=True, timeout=60, cwd=REPO)
    findings = json.loads(completed.stdout)["diagnostics"] if completed.stdout.strip() else []
    return completed.returncode, findings


def test_a_folder_holding_only_a_pipe_named_md_is_searched_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "a.md")
    (tmp_path / "b.md").symlink_to(tmp_path / "a.md")
    code, findings = validate(str(tmp_path))
    assert code == 2 and findings == []  # nothing to check, said at once


def test_a_pipe_beside_entry_files_does_not_stop_the_search_for_them(tmp_path):
    os.mkfifo(tmp_path / "a.md")
    (tmp_path / "fact_b.md").write_text(ENTRY)
    code, findings = validate(str(tmp_path))
    assert code == 1
    [pipe] = [found for found in findings if found["path"].endswith("a.md") and "fact_b" not in found["path"]]
    assert pipe["rule"] == "MEMOIR-E-UNREADABLE" and "named pipe" in pipe["message"]


@pytest.mark.parametrize("name", ["fact_pipe.md", "session.json"])
def test_pipes_and_links_to_pipes_in_a_store_are_findings(tmp_path, name):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact_a.md").write_text(ENTRY)
    place = memory / name if name.endswith(".md") else tmp_path / name
    os.mkfifo(tmp_path / "pipe")
    place.symlink_to(tmp_path / "pipe")  # the link stays inside the store, so it is followed
    os.mkfifo(memory / "fact_other_pipe.md")
    code, findings = validate(str(tmp_path))
    assert code == 1
    unreadable = sorted(Path(found["path"]).name for found in findings if found["rule"] == "MEMOIR-E-UNREADABLE")
    assert unreadable == sorted([name, "fact_other_pipe.md"])
    assert all("named pipe" in found["message"] for found in findings if found["rule"] == "MEMOIR-E-UNREADABLE")


def test_a_pipe_named_on_the_command_line_is_a_finding(tmp_path):
    os.mkfifo(tmp_path / "fact_pipe.md")
    code, [found] = validate(str(tmp_path / "fact_pipe.md"))
    assert code == 1 and found["rule"] == "MEMOIR-E-UNREADABLE" and "never opened" in found["message"]


def test_a_memory_diff_that_is_a_pipe_is_a_finding(tmp_path):
    os.mkfifo(tmp_path / "diff.yaml")
    code, [found] = validate("--kind", "memory-diff", str(tmp_path / "diff.yaml"))
    assert code == 1 and found["rule"] == "MDIFF-E-READ" and "named pipe" in found["message"]
    os.mkfifo(tmp_path / "folder.yaml")
    code, findings = validate("--kind", "memory-diff", str(tmp_path))
    assert code == 1 and [found["rule"] for found in findings] == ["MDIFF-E-READ"] * 2


def test_a_loop_of_links_in_memory_is_a_finding_not_a_traceback(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact_a.md").write_text(ENTRY)
    (memory / "fact_self.md").symlink_to("fact_self.md")
    (memory / "fact_x.md").symlink_to("fact_y.md")
    (memory / "fact_y.md").symlink_to("fact_x.md")
    code, findings = validate(str(tmp_path))
    assert code == 1
    looped = {Path(found["path"]).name: found for found in findings if found["rule"] == "MEMOIR-E-UNREADABLE"}
    assert set(looped) == {"fact_self.md", "fact_x.md", "fact_y.md"}
    assert all("loop of symbolic links" in found["message"] for found in looped.values())
