"""The mutmut project a model-mutation run builds, and running mutmut in it.

mutmut works inside a project directory: it copies the sources into
`mutants/`, rewrites the modules it mutates there, and keeps its results
beside them. The run builds that project in a work directory from the kit
as it is installed (the package, the corpus, the schemas, the bundled
adapters), so the kit's own files are never touched, and it works the same
from a checkout and from an installed wheel.

mutmut keeps the results of functions it has seen before and re-runs only
what changed in the model. Anything else changing (the runner, the
harness, a vector changed or removed) can change any result, so a kept work
directory whose non-model files differ from the last run's is started
afresh, with one exception: when the corpus only gained vectors, every kill
still holds (each vector is a test of its own, and no test that failed
passes for another test's being added), so the kills are kept and only the
other mutants are tested again, against the old vectors and the new.
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
from conformance.model_mutation.outcomes import DEAD, METHOD_SEPARATOR, status_of

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
CONTENTS = ".memoir-contents.json"  # what the results are of: the configuration, each vector by id, every other file
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


def contents(project: Path) -> dict[str, dict[str, str]]:
    """What can change an outcome behind mutmut's back: the digest of each
    vector of the corpus by id (with its file's other keys), and of every other
    counted file by path."""
    files: dict[str, str] = {}
    vectors: dict[str, str] = {}
    for name in sorted(sources()):
        for path in sorted((project / name).rglob("*")):
            relative = path.relative_to(project).as_posix()
            if not path.is_file() or not _counts(relative):
                continue
            data = path.read_bytes()
            each = _vectors_of(relative, data)
            if each is None:
                files[relative] = hashlib.sha256(data).hexdigest()
            else:
                vectors.update(each)
    return {"files": files, "vectors": vectors}


def _vectors_of(relative: str, data: bytes) -> dict[str, str] | None:
    """Vector id -> digest for a vector file (a JSON object with a list of `vectors`), else None."""
    if not (relative.startswith("vectors/") and relative.endswith(".json")):
        return None
    try:
        document = json.loads(data)
    except ValueError:
        return None
    if not isinstance(document, dict) or not isinstance(document.get("vectors"), list):
        return None
    rest = {key: value for key, value in document.items() if key != "vectors"}
    found = {}
    for vector in document["vectors"]:
        if not isinstance(vector, dict) or not isinstance(vector.get("id"), str) or vector["id"] in found:
            return None  # not a corpus this can compare vector by vector: the file decides as a whole
        text = json.dumps({"file": rest, "vector": vector}, sort_keys=True, ensure_ascii=False)
        found[vector["id"]] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return found


def only_added(before: dict, after: dict) -> bool:
    """Whether `after` is `before` with vectors added (and the corpus's new files, a golden store's
    say), nothing else changed or removed."""
    old_files, old_vectors = before.get("files"), before.get("vectors")
    if not isinstance(old_files, dict) or not isinstance(old_vectors, dict):
        return False
    new_files = {path for path in after["files"] if path not in old_files}
    return (all(after["files"].get(path) == digest for path, digest in old_files.items())
            and all(path.startswith("vectors/") for path in new_files)
            and all(after["vectors"].get(vector_id) == digest for vector_id, digest in old_vectors.items()))


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
    now = {"config": config, **contents(project)}
    listed = project / CONTENTS
    before = _load_json(listed)
    if before != now:
        if before is not None and before.get("config") == config and only_added(before, now) and has_results(project):
            retested = retest_survivors(project)
            print(f"the corpus only gained vectors: its kills are kept, {retested} other mutants are tested again")
        else:
            shutil.rmtree(project / "mutants", ignore_errors=True)
        listed.write_text(json.dumps(now, sort_keys=True), encoding="utf-8")
    (project / CORPUS).write_text(corpus_digest, encoding="utf-8")


def _load_json(path: Path) -> dict | None:
    """The JSON object in `path`; None when it is missing or not one."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def retest_survivors(project: Path) -> int:
    """Forget mutmut's result for every mutant decided but not killed (survived, unreached), so that it
    is tested again; keep the kills. How many were forgotten."""
    forgotten = 0
    for meta in (project / "mutants").rglob("*.py.meta"):
        document = json.loads(meta.read_text(encoding="utf-8"))
        codes = document.get("exit_code_by_key", {})
        for name, code in codes.items():
            if code is not None and status_of(code) not in DEAD:
                codes[name] = None
                forgotten += 1
        meta.write_text(json.dumps(document), encoding="utf-8")
    return forgotten


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
