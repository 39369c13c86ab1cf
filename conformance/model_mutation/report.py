"""`reports/model-mutation.md`: every automated mutant of the model, its outcome, a score per module.

The report is committed, so it holds nothing that changes from one run of
the same model and corpus to the next (no timings, no paths); it names the
digests of both, and a fast test checks they are current.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from conformance import SPEC_VERSION, __version__
from conformance.model_mutation.explanations import Explanations
from conformance.model_mutation.outcomes import MODEL_MODULES, NOT_RUN, ModelMutant

# The modules where every survivor must be killed by a vector or explained (issue 12).
REGENERATE = "nice -n 10 memoir-conform model-mutation --report reports/model-mutation.md"
CHANGE_SHOWN = 120


def model_digest(model_dir: Path) -> str:
    """sha256 over the model's source files (name and bytes), the code the mutants are made of."""
    digest = hashlib.sha256()
    for path in sorted(model_dir.glob("*.py")):
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class ModuleScore:
    module: str
    total: int
    killed: int           # killed, timeouts included
    equivalent: int       # survivors explained as equivalent
    beyond_must: int      # survivors explained as changing only what no MUST fixes
    unobservable: int     # survivors explained as showing only on inputs a vector cannot set
    unexplained: int      # survivors (unreached ones included) without an explanation
    not_run: int

    @property
    def score(self) -> float:
        """Killed among the mutants a deciding vector could kill."""
        killable = self.killed + self.unexplained
        return 100.0 * self.killed / killable if killable else 100.0


@dataclass
class ModelMutationRun:
    mutants: list[ModelMutant]
    explanations: Explanations
    corpus_digest: str
    vectors: int
    model_digest: str
    tool: str              # "mutmut 3.8.1"

    def survivors(self) -> list[ModelMutant]:
        return [mutant for mutant in self.mutants if not mutant.dead and mutant.status != NOT_RUN]

    def unexplained(self) -> list[ModelMutant]:
        return [m for m in self.survivors() if self.explanations.reason(m.identity) is None]

    def stale_explanations(self) -> list[str]:
        """Explained identities that are no longer surviving mutants: the file needs pruning."""
        surviving = {mutant.identity for mutant in self.survivors()}
        return sorted(set(self.explanations.by_identity) - surviving)

    def score(self, module: str) -> ModuleScore:
        mine = [mutant for mutant in self.mutants if mutant.module == module]
        kinds = [self.explanations.kind(m.identity) for m in self.survivors() if m.module == module]
        return ModuleScore(module, len(mine), sum(m.dead for m in mine), kinds.count("equivalent"),
                           kinds.count("beyond-must"), kinds.count("unobservable"), kinds.count(None),
                           sum(m.status == NOT_RUN for m in mine))

    @property
    def ok(self) -> bool:
        return not self.unexplained() and not any(m.status == NOT_RUN for m in self.mutants)


def _cell(text: str) -> str:
    text = text if len(text) <= CHANGE_SHOWN else text[: CHANGE_SHOWN - 3] + "..."
    return text.replace("|", "\\|").replace("`", "'")


SCORE_HEADERS = ["module", "mutants", "killed", "equivalent", "not a MUST", "unobservable", "unexplained", "score"]


def score_rows(run: ModelMutationRun) -> list[list]:
    rows = []
    for module in MODEL_MODULES:
        score = run.score(module)
        if score.total:
            rows.append([f"`{module}`", score.total, score.killed, score.equivalent, score.beyond_must,
                         score.unobservable, score.unexplained, f"{score.score:.1f}%"])
    return rows


KIND_WORDS = {"equivalent": "equivalent", "beyond-must": "not a MUST", "unobservable": "unobservable"}


def outcome(run: ModelMutationRun, mutant: ModelMutant) -> str:
    if mutant.dead or mutant.status == NOT_RUN:
        return mutant.status
    kind = run.explanations.kind(mutant.identity)
    return f"{mutant.status}: {KIND_WORDS[kind]}" if kind else f"**{mutant.status}, unexplained**"


def _not_run_note(run: ModelMutationRun) -> str:
    """Said in the headline when the run ended before every mutant was tested: the score then covers fewer."""
    not_run = sum(mutant.status == NOT_RUN for mutant in run.mutants)
    return f"; {not_run} not run (the run was stopped before it tested them)" if not_run else ""


def markdown(run: ModelMutationRun) -> str:
    totals = [run.score(module) for module in MODEL_MODULES]
    killed, total = sum(s.killed for s in totals), sum(s.total for s in totals)
    explained = sum(s.equivalent + s.beyond_must + s.unobservable for s in totals)
    lines = [
        "# Model mutation report",
        "",
        f"Generated by `{REGENERATE}` (memoir-conform {__version__}, spec v{SPEC_VERSION}, {run.tool}); "
        "do not edit by hand. What this is and how to read it: `docs/mutants.md`.",
        "",
        f"Corpus: {run.vectors} vectors, digest `{run.corpus_digest}`.",
        f"Model: `conformance/model/`, digest `{run.model_digest}`.",
        "",
        f"**{killed} of {total} automated mutants killed; {explained} survivors explained; "
        f"{len(run.unexplained())} unexplained{_not_run_note(run)}.**",
        "",
        "mutmut makes every small change to the model's functions (an operator, a constant, an argument "
        "dropped, a condition forced). A mutant is *killed* when the corpus, run in-process against the "
        "mutated model, fails a check that decides a level, as `memoir-conform run` grades it (a mutant "
        "that hangs is killed too: a real run times the adapter out). *Unreached*: no vector makes the "
        "model run that function. A survivor is a hole in the corpus unless it is explained in "
        "`conformance/model_mutation/equivalents.json`: *equivalent* (no input makes it behave "
        "differently where anyone can see), *not a MUST* (it changes only what no MUST of the spec "
        "fixes, so a vector that killed it would demand more than the spec) or *unobservable* (it shows "
        "only on inputs a vector cannot set: the implementation's clock, its machine id). The score is killed / "
        "(killed + unexplained): the share of the mutants a deciding vector could kill that one does.",
        "",
        tabulate(score_rows(run), headers=SCORE_HEADERS, tablefmt="github"),
        "",
    ]
    unexplained = run.unexplained()
    if unexplained:
        lines += ["## Unexplained survivors", "",
                  "Each needs a vector that kills it or an explanation.", ""]
        lines += [f"- `{m.identity}` ({m.status}): `{_cell(m.short_change)}`" for m in unexplained]
        lines.append("")
    lines += ["## Explained survivors", ""]
    for module in MODEL_MODULES:
        explained = [m for m in run.survivors() if m.module == module and run.explanations.reason(m.identity)]
        if explained:
            lines += [f"### `{module}`", ""]
            lines += [f"- `{m.identity}` ({KIND_WORDS[run.explanations.kind(m.identity)]}): `{_cell(m.short_change)}`. "
                      f"{run.explanations.reason(m.identity)}" for m in explained]
            lines.append("")
    lines += ["## Every mutant", "",
              "By function, each mutant by the digest of its identity and grouped by outcome; the changes "
              "of the survivors are above.", ""]
    for module in MODEL_MODULES:
        functions: dict[str, list[ModelMutant]] = {}
        for mutant in run.mutants:
            if mutant.module == module:
                functions.setdefault(mutant.function, []).append(mutant)
        if functions:
            lines += [f"### `{module}`", ""]
            lines += [function_line(run, module, function, mutants) for function, mutants in functions.items()]
            lines.append("")
    return "\n".join(lines)


def function_line(run: ModelMutationRun, module: str, function: str, mutants: list[ModelMutant]) -> str:
    by_outcome: dict[str, list[str]] = {}
    for mutant in mutants:
        digest = mutant.identity.split(":", 1)[1]
        by_outcome.setdefault(outcome(run, mutant).strip("*"), []).append(f"`{digest}`")
    groups = "; ".join(f"{name} ({len(digests)}): {' '.join(digests)}" for name, digests in by_outcome.items())
    return f"- `{module}.{function}`, {len(mutants)}: {groups}"


def console(run: ModelMutationRun) -> str:
    table = tabulate(score_rows(run), headers=SCORE_HEADERS)
    lines = [table.replace("`", ""), ""]
    for mutant in run.unexplained():
        lines.append(f"unexplained {mutant.status}: {mutant.identity} ({mutant.name}): {mutant.change}")
    stale = run.stale_explanations()
    if stale:
        lines.append(f"{len(stale)} explanation(s) name no surviving mutant (killed now, or changed): "
                     + ", ".join(stale[:5]) + (" ..." if len(stale) > 5 else ""))
    return "\n".join(lines)
