"""The mutant table: `runners/mutants/mutants.json`.

One row per mutant: its id, its file, the rule it breaks (spec sections and
requirement ids of `vectors/requirements.json`), the conformance level
that rule belongs to, the level the mutant must lose, and how strongly the
spec states the rule (`strength`: `must`, the default; `should`; or
`advisory` for a rule that is only the kit's reading of an ambiguity). A
mutant of a SHOULD or advisory rule must earn Full and be caught at its
strength; it is never counted as killed. Loading never raises on a bad
table: it returns the problems, each naming the row.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance import patterns, resources
from conformance.runner.strength import STRENGTHS
from conformance.runner.vectors import LEVELS

REGISTRY_FILE = "mutants.json"
_ID = patterns.compile(r"[0-9]{2,}")


def mutants_dir() -> Path:
    return resources.runners_dir() / "mutants"


@dataclass(frozen=True)
class Mutant:
    id: str                          # "03"
    file: str                        # "03_hidden_not_sticky.py"
    rule: str                        # the bug, in one line
    sections: tuple[str, ...]        # spec sections of the broken rule
    requirements: tuple[str, ...]    # requirement ids of the broken rule
    level: str                       # reader, writer or full: the level the bug belongs to
    directory: Path
    strength: str = "must"           # must, should or advisory: how strongly the spec states the rule

    @property
    def name(self) -> str:
        """`03_hidden_not_sticky`: the file without `.py`."""
        return Path(self.file).stem

    @property
    def path(self) -> Path:
        return self.directory / self.file

    def command(self) -> list[str]:
        """The adapter command that serves this mutant."""
        return [sys.executable, str(self.path)]


@dataclass(frozen=True)
class Registry:
    mutants: list[Mutant]
    problems: list[str]


def load_registry(directory: Path | None = None) -> Registry:
    """The mutants listed in `directory/mutants.json` (default: the bundled ones)."""
    directory = mutants_dir() if directory is None else Path(directory)
    path = directory / REGISTRY_FILE
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        return Registry([], [f"{path}: cannot read ({error.strerror or error})"])
    except ValueError as error:
        return Registry([], [f"{path}: not JSON ({error})"])
    rows = document.get("mutants") if isinstance(document, dict) else None
    if not isinstance(rows, list):
        return Registry([], [f"{path}: expected an object with a `mutants` list"])
    mutants, problems, seen = [], [], set()
    for index, row in enumerate(rows):
        where = f"{path.name}: mutants[{index}]"
        problem = _row_problem(row, directory)
        if problem:
            problems.append(f"{where}: {problem}")
            continue
        if row["id"] in seen:
            problems.append(f"{where}: id {row['id']!r} is listed twice")
            continue
        seen.add(row["id"])
        mutants.append(Mutant(
            id=row["id"], file=row["file"], rule=row["rule"], sections=tuple(row["sections"]),
            requirements=tuple(row["requirements"]), level=row["level"], directory=directory,
            strength=row.get("strength", "must"),
        ))
    return Registry(mutants, problems)


def _row_problem(row: object, directory: Path) -> str | None:
    if not isinstance(row, dict):
        return "expected an object"
    for key in ("id", "file", "rule", "level"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            return f"`{key}` must be a non-empty string"
    for key in ("sections", "requirements"):
        value = row.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(item, str) and item for item in value):
            return f"`{key}` must be a non-empty list of strings"
    if not _ID.fullmatch(row["id"]):
        return f"id {row['id']!r} must be two or more digits"
    if not row["file"].startswith(row["id"] + "_") or not row["file"].endswith(".py") or "/" in row["file"]:
        return f"file {row['file']!r} must be `{row['id']}_<slug>.py` in {directory.name}/"
    if row["level"] not in LEVELS:
        return f"level {row['level']!r} must be one of {', '.join(LEVELS)}"
    if row.get("strength", "must") not in STRENGTHS:
        return f"strength {row['strength']!r} must be one of {', '.join(STRENGTHS)}"
    if not (directory / row["file"]).is_file():
        return f"file {row['file']!r} does not exist"
    return None


def select_mutants(mutants: list[Mutant], wanted: list[str]) -> tuple[list[Mutant], list[str]]:
    """The mutants named by id (`03`), name (`03_hidden_not_sticky`) or a
    substring of the name; and the names that matched nothing."""
    if not wanted:
        return list(mutants), []
    chosen, unmatched = [], []
    for name in wanted:
        hits = [m for m in mutants if name in (m.id, m.name) or name in m.name]
        if not hits:
            unmatched.append(name)
        chosen.extend(m for m in hits if m not in chosen)
    return sorted(chosen, key=lambda m: m.id), unmatched
