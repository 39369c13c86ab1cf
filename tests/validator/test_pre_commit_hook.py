"""The pre-commit hook (.pre-commit-hooks.yaml), run by pre-commit itself on a temporary repository.

The kit is copied into a repository of its own and committed, and a
temporary repository that commits its assistant's memory names it with a
`repo:` and `rev:`, as a user's would. pre-commit builds the hook's
environment (installing the kit and its dependencies from the package index)
once for the module; where it cannot (offline), the tests are skipped and
say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pre_commit", reason="pre-commit is not installed: pip install '.[test]'")

REPO = Path(__file__).resolve().parents[2]
GOOD = "---\ntype: fact\nname: Staging endpoints\ndescription: URLs\ncreated: 2026-05-14\n---\nbody\n"
BAD = "---\ntype: fact\nname: &a Staging endpoints\ndescription: URLs\ncreated: 2026-05-14\n---\nbody\n"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *argv: str) -> str:
    environment = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                   "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True, text=True, env=environment).stdout


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory) -> tuple[Path, str]:
    """The kit as it is in this working tree, committed in a repository of its own: (path, commit)."""
    copy = tmp_path_factory.mktemp("kit")
    tracked = git(REPO, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    for relpath in tracked:
        source = REPO / relpath
        if source.is_file():
            (copy / relpath).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / relpath)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "kit")
    return copy, git(copy, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(cwd: Path, home: Path, *argv: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([sys.executable, "-m", "pre_commit", *argv], cwd=cwd, capture_output=True, text=True,
                          env=environment, timeout=900)


@pytest.fixture(scope="module")
def project(tmp_path_factory, hook_repository, pre_commit_home) -> Path:
    """A repository that commits its memory and runs the hook; its environment built once."""
    kit, commit = hook_repository
    root = tmp_path_factory.mktemp("project")
    git(root, "init", "-q")
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {kit}\n    rev: {commit}\n    hooks:\n      - id: memoir-validate\n", encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "notes.md").write_text("# Not memory\n\nname: &a x\n", encoding="utf-8")
    built = pre_commit(root, pre_commit_home, "install-hooks")
    if built.returncode != 0:
        pytest.skip("pre-commit could not build the hook's environment (is the package index reachable?): "
                    + (built.stdout + built.stderr).strip().splitlines()[-1])
    return root


def write(root: Path, relpath: str, text: str) -> None:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    git(root, "add", relpath)


def test_the_hook_fails_a_commit_that_breaks_a_memory_file(project, pre_commit_home):
    write(project, ".claude/memory/fact_staging.md", BAD)
    write(project, ".claude/agent-memory/reviewer/fact_style.md", GOOD)
    result = pre_commit(project, pre_commit_home, "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "MEMOIR-E-YAML-ANCHOR" in result.stdout and "fact_staging.md" in result.stdout
    assert "fact_style.md" not in result.stdout.replace("2 files checked", "")  # a clean file has nothing to say


def test_the_hook_passes_memory_files_that_are_fine_and_ignores_other_markdown(project, pre_commit_home):
    write(project, ".claude/memory/fact_staging.md", GOOD)
    git(project, "add", "src/notes.md")
    result = pre_commit(project, pre_commit_home, "run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "memoir-conform validate" in result.stdout and "Passed" in result.stdout


def test_the_hook_checks_a_session_file(project, pre_commit_home):
    write(project, "store/session.json", '{"version": 1, "current": {"goals": "not a list"}}')
    result = pre_commit(project, pre_commit_home, "run", "--files", "store/session.json")
    assert result.returncode == 1 and "MEMOIR-E-SESSION-SCHEMA" in result.stdout
