"""Why a surviving mutant is equivalent: the committed explanations.

`equivalents.json` maps a mutant's stable identity (`outcomes.ModelMutant.identity`)
to why no deciding vector can kill it, of one of two kinds:

- `equivalent`: no input makes it behave differently where anyone can see
  (a guard that is redundant, a codec name in other case);
- `beyond-must`: it behaves differently, but only in what no MUST of the
  spec fixes (the text of a message, the order of a list the spec leaves
  unordered, a choice of docs/spec-ambiguities.md): a vector that killed it
  would demand more than the spec, so at most an advisory one shows it;
- `unobservable`: it behaves differently only on inputs a vector cannot
  set: the implementation's own clock to the millisecond, or its machine
  id. A vector that tried would pass or fail by timing.

A reason is a sentence, or the name of a shared reason in `reasons` (many
mutants of one kind share one argument). Each entry repeats the change it
explains, so that a reviewer reads the two side by side.

Loading never raises on a bad file: it returns the problems, and the
command refuses to write a report on top of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

EQUIVALENTS_FILE = Path(__file__).resolve().parent / "equivalents.json"


KINDS = ("equivalent", "beyond-must", "unobservable")


@dataclass(frozen=True)
class Explanation:
    identity: str
    kind: str            # one of KINDS
    change: str
    reason: str          # the sentence, shared reasons resolved


@dataclass
class Explanations:
    by_identity: dict[str, Explanation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def reason(self, identity: str) -> str | None:
        explanation = self.by_identity.get(identity)
        return explanation.reason if explanation else None

    def kind(self, identity: str) -> str | None:
        explanation = self.by_identity.get(identity)
        return explanation.kind if explanation else None


def load_explanations(path: Path = EQUIVALENTS_FILE) -> Explanations:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return Explanations(problems=[f"{path.name}: cannot read: {error}"])
    if not isinstance(data, dict) or not isinstance(data.get("equivalent"), dict):
        return Explanations(problems=[f"{path.name}: expected an object with an `equivalent` mapping"])
    reasons = data.get("reasons", {})
    if not isinstance(reasons, dict) or not all(isinstance(text, str) and text.strip() for text in reasons.values()):
        return Explanations(problems=[f"{path.name}: `reasons` must map names to sentences"])
    loaded = Explanations()
    for identity, entry in data["equivalent"].items():
        where = f"{path.name}: {identity}"
        if not isinstance(entry, dict) or not all(isinstance(entry.get(key), str) and entry[key].strip()
                                                  for key in ("kind", "change", "reason")):
            loaded.problems.append(f"{where}: expected {{kind, change, reason}}, all non-empty strings")
            continue
        if entry["kind"] not in KINDS:
            loaded.problems.append(f"{where}: kind {entry['kind']!r} is not one of {', '.join(KINDS)}")
            continue
        reason = entry["reason"]
        if " " not in reason.strip():  # one word: the name of a shared reason
            if reason not in reasons:
                loaded.problems.append(f"{where}: no shared reason named {reason!r}")
                continue
            reason = reasons[reason]
        loaded.by_identity[identity] = Explanation(identity, entry["kind"], entry["change"], reason)
    return loaded
