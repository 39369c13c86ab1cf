"""Reading a mutmut run back: every mutant of the model, its change and its outcome.

mutmut names a mutant by its function and an ordinal
(`conformance.model.merge.x_merge_actions__mutmut_19`); the ordinal moves
whenever the function gains or loses a mutation point. The identity kept
here, and used to key the committed explanations, is the module, the
function and a digest of the change itself (the source lines before and
after), so it survives edits elsewhere in the function and changes when
the mutated line does, which is when an explanation must be looked at
again.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

MODEL_PACKAGE = "conformance.model"
METHOD_SEPARATOR = "\u01c1"  # mutmut names a method xǁClassǁmethod
MODEL_MODULES = ("merge", "session", "writer", "identity", "dates", "store", "entry", "frontmatter")

KILLED, TIMEOUT, CRASH = "killed", "killed (timeout)", "killed (crash)"
SURVIVED, UNREACHED, NOT_RUN = "survived", "unreached", "not run"
# mutmut's exit codes (mutmut.stats.status_by_exit_code), in the terms of this kit. A
# mutant that hangs or kills its process is killed: a real run reports the adapter's
# timeout or crash as an error on a deciding vector.
_STATUS_BY_EXIT_CODE = {1: KILLED, 3: KILLED, 0: SURVIVED, 5: UNREACHED, 33: UNREACHED,
                        24: TIMEOUT, -24: TIMEOUT, 36: TIMEOUT, 152: TIMEOUT, 255: TIMEOUT,
                        -9: CRASH, -11: CRASH, None: NOT_RUN}
DEAD = (KILLED, TIMEOUT, CRASH)
CONTEXT = 30  # characters shown on each side of a change


def status_of(exit_code: int | None) -> str:
    return _STATUS_BY_EXIT_CODE.get(exit_code, f"error (mutmut exit code {exit_code})")


@dataclass(frozen=True)
class ModelMutant:
    """One automated mutant of the model."""

    name: str                   # mutmut's name, for `mutmut show NAME` in the workspace
    module: str                 # "merge"
    function: str               # "merge_actions"
    removed: tuple[str, ...]    # the source lines the mutation changes, stripped
    added: tuple[str, ...]      # what they become
    status: str
    identity: str = ""          # "merge.merge_actions:5f0c2a91d3", stable (module docstring)

    @property
    def dead(self) -> bool:
        return self.status in DEAD

    @property
    def change(self) -> str:
        """The change in one line: `old -> new`."""
        return f"{' / '.join(self.removed) or '(nothing)'} -> {' / '.join(self.added) or '(nothing)'}"

    @property
    def short_change(self) -> str:
        """The part that changed with a little context: `...startswith(".") [or -> and] link...`."""
        old, new = " / ".join(self.removed), " / ".join(self.added)
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
            end += 1
        # Whole words: `[True -> None]`, not `[Tru -> Non]e`.
        while start and _word(old[start - 1]):
            start -= 1
        while end and _word(old[len(old) - end]):
            end -= 1
        before, after = old[max(0, start - CONTEXT):start], old[len(old) - end:][:CONTEXT]
        return (("..." if start > CONTEXT else "") + f"{before}[{old[start:len(old) - end]} -> "
                f"{new[start:len(new) - end]}]{after}" + ("..." if end > CONTEXT else ""))


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def selected(mutant: ModelMutant, only: list[str]) -> bool:
    """Whether `--only` patterns (`module` or `module.function`, globs) select the mutant."""
    where = f"{mutant.module}.{mutant.function}"
    return not only or any(fnmatch.fnmatchcase(where, p if "." in p else f"{p}.*") for p in only)


def change_digest(removed: tuple[str, ...], added: tuple[str, ...]) -> str:
    text = "\n".join(removed) + "\n=>\n" + "\n".join(added)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def with_identities(mutants: list[ModelMutant]) -> list[ModelMutant]:
    """Give each mutant its identity; the same change twice in one function gets `#2`, `#3`."""
    seen: dict[str, int] = {}
    named = []
    for mutant in mutants:
        base = f"{mutant.module}.{mutant.function}:{change_digest(mutant.removed, mutant.added)}"
        seen[base] = seen.get(base, 0) + 1
        identity = base if seen[base] == 1 else f"{base}#{seen[base]}"
        named.append(ModelMutant(**{**mutant.__dict__, "identity": identity}))
    return named


def changed_lines(original: str, mutated: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The lines a mutant changes: (removed, added), stripped."""
    removed, added = [], []
    for line in difflib.unified_diff(original.splitlines(), mutated.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (removed if line.startswith("-") else added).append(line[1:].strip())
    return tuple(removed), tuple(added)


def _ordinal(name: str) -> int:
    return int(name.rpartition("__mutmut_")[2])


def function_name(mangled: str) -> str:
    """`merge_actions` for mutmut's `x_merge_actions`; `Class.method` for `xǁClassǁmethod`."""
    if mangled.startswith("x_"):
        return mangled[2:]
    return ".".join(part for part in mangled.split(METHOD_SEPARATOR)[1:])


def _function_sources(mutated_file: Path) -> dict[str, str]:
    """Generated function name -> its source, from mutmut's line index of a mutated module."""
    spans = json.loads(mutated_file.with_name(mutated_file.name + ".spans").read_text(encoding="utf-8"))["spans"]
    lines = mutated_file.read_text(encoding="utf-8").splitlines()
    return {name: "\n".join(lines[start - 1:end]) for name, (start, end) in spans.items()}


def read_outcomes(workspace: Path) -> list[ModelMutant]:
    """Every mutant of the model modules in a finished mutmut run in `workspace`."""
    mutants = []
    for module in MODEL_MODULES:
        mutated_file = workspace / "mutants" / Path(*MODEL_PACKAGE.split(".")) / f"{module}.py"
        meta = mutated_file.with_name(f"{module}.py.meta")
        if not meta.is_file():  # mutmut was not asked to mutate this module
            continue
        exit_codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        sources = _function_sources(mutated_file)
        for name in sorted(exit_codes, key=lambda key: (key.partition("__mutmut_")[0], _ordinal(key))):
            generated = name.rpartition(".")[2]                     # x_merge_actions__mutmut_19
            mangled = generated.partition("__mutmut_")[0]           # x_merge_actions
            # The generated copies differ from the original only by their name and the mutation.
            original = sources[f"{mangled}__mutmut_orig"].replace(f"{mangled}__mutmut_orig", mangled)
            removed, added = changed_lines(original, sources[generated].replace(generated, mangled))
            mutants.append(ModelMutant(name, module, function_name(mangled), removed, added,
                                       status_of(exit_codes[name])))
    return with_identities(mutants)
