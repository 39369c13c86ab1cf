"""The mutmut project a model-mutation run builds, and running mutmut in it.

mutmut works inside a project directory: it copies the sources into
`mutants/`, rewrites the modules it mutates there, and keeps its results
beside them. The run builds that project in a work directory from the kit
as it is installed (the package, the corpus, the schemas, the bundled
adapters), so the kit's own files are never touched, and it works the same
from a checkout and from an installed wheel.

mutmut keeps the results of functions it has seen before and re-runs only
what changed in the model. Anything else changing (a vector, the runner,
the harness) can change any result, so a kept work directory whose
non-model files differ from the last run's is started afresh.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import conformance
from conformance import resources
from conformance.model_mutation.outcomes import METHOD_SEPARATOR

MUTMUT_CONFIG = """\
# Written by `memoir-conform model-mutation` (conformance/model_mutation/workspace.py).
[tool.mutmut]
source_paths = ["conformance"]
only_mutate = {only_mutate}
also_copy = ["vectors", "schema", "runners"]
pytest_add_cli_args_test_selection = ["conformance/model_mutation/harness.py"]
pytest_add_cli_args = ["-p", "no:cacheprovider"]
use_git_change_detection = false
"""
FINGERPRINT = ".memoir-fingerprint"
CORPUS = ".memoir-corpus-digest"   # the corpus the results are of, for --no-run
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "_data")


def sources() -> dict[str, Path]:
    """What the project is made of: name in the project -> where it is now."""
    return {
        "conformance": Path(conformance.__file__).resolve().parent,
        "vectors": resources.vectors_dir(),
        "schema": resources.schema_dir(),
        "runners": resources.runners_dir(),
    }


def _counts(relative: str) -> bool:
    """Whether a file can change a mutant's outcome without mutmut seeing it: not a model
    module (mutmut tracks those) and not the explanations (they only annotate the report)."""
    if relative.startswith("conformance/model/") and relative.endswith(".py"):
        return False
    return relative != "conformance/model_mutation/equivalents.json"


def fingerprint(project: Path) -> str:
    """sha256 over every file of the project that can change an outcome behind mutmut's back."""
    digest = hashlib.sha256()
    for name in sorted(sources()):
        for path in sorted((project / name).rglob("*")):
            relative = path.relative_to(project).as_posix()
            if path.is_file() and _counts(relative):
                digest.update(relative.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def mutated_files(only: list[str] = ()) -> list[str]:
    """The model files mutmut mutates: those of the modules `--only` names, or all of them
    (generating the mutants of every module is most of a one-function run's fixed cost)."""
    modules = sorted({pattern.partition(".")[0] for pattern in only})
    if not modules or any(any(c in module for c in "*?[") for module in modules):
        return ["conformance/model/*"]
    return [f"conformance/model/{module}.py" for module in modules]


def build(project: Path, corpus_digest: str, only: list[str] = ()) -> None:
    """Copy the kit into `project` and configure mutmut there; drop stale results."""
    project.mkdir(parents=True, exist_ok=True)
    for name, source in sources().items():
        target = project / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=_IGNORED)
    config = MUTMUT_CONFIG.format(only_mutate=json.dumps(mutated_files(only)))
    (project / "pyproject.toml").write_text(config, encoding="utf-8")
    # Results of another scope are not these: a wider run after a narrow one starts afresh.
    current = hashlib.sha256((fingerprint(project) + config).encode("utf-8")).hexdigest()
    marker = project / FINGERPRINT
    if not marker.is_file() or marker.read_text(encoding="utf-8") != current:
        shutil.rmtree(project / "mutants", ignore_errors=True)
        marker.write_text(current, encoding="utf-8")
    (project / CORPUS).write_text(corpus_digest, encoding="utf-8")


def results_corpus(project: Path) -> str | None:
    """The digest of the corpus the results in `project` are of."""
    try:
        return (project / CORPUS).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def mutmut_pattern(only: str) -> str:
    """mutmut's name glob for `module`, `module.function` or `module.Class.method` (globs)."""
    module, _, function = only.partition(".")
    if not function:
        return f"conformance.model.{module}.*"
    if "." in function:
        cls, _, method = function.partition(".")
        return f"conformance.model.{module}.x{METHOD_SEPARATOR}{cls}{METHOD_SEPARATOR}{method}__mutmut_*"
    return f"conformance.model.{module}.x_{function}__mutmut_*"


def run_mutmut(project: Path, jobs: int, only: list[str] = ()) -> int:
    """`mutmut run` in `project`, with this interpreter; its progress goes to the terminal."""
    command = [sys.executable, "-c", "import sys; from mutmut.__main__ import cli; sys.exit(cli())",
               "run", "--max-children", str(jobs), *map(mutmut_pattern, only)]
    return subprocess.run(command, cwd=project, check=False).returncode


def has_results(project: Path) -> bool:
    return any((project / "mutants" / "conformance" / "model").glob("*.py.meta"))
