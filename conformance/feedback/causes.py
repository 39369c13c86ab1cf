"""Failures of a run report grouped by cause, not by vector.

A cause is what one failed check shows, with the vector's own data taken
out: the requirement it is charged to, the check keyword, the shape of the
JSON path that failed (list positions, entry links, field names, machine
ids and the corpus's unknown `x_` keys replaced by placeholders), the
strength of the check and, for an advisory one, the interpretation it
rests on. Forty vectors that fail for one root then make one cause with
forty vectors.

- A check names all the requirements it checks; a cause is charged to one
  of them: the one that the most failing vectors of the report name (ties:
  the first the check lists), so that one broken rule is not split by the
  other requirements its vectors happen to cite. The others are kept as
  `also_cites`.
- A derived vector (`~swapped`, `~idempotent`, spec 5.4) whose base failed
  at least as strongly shows the base's failure again: it is folded into
  the base's first cause instead of making causes of its own. A derived
  vector whose base passed is a cause in its own right (merge is not
  commutative or idempotent there).
- The causes charged to one requirement at one strength (and, for an
  advisory one, one interpretation) make one `Disagreement`: the unit a
  spec author acts on, and one entry of the report.
- Adapter faults (outcome `error`) are grouped by fault kind and op, and
  vectors not applicable by why (the op not supported, a refused MAY
  feature, another choice the spec offers, caps too small); neither says
  anything about the spec text.

Outcomes are taken before expected failures are applied (`result`): a
waived failure is still a disagreement with the text. Everything is sorted,
so the same report always gives the same groups.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from conformance import patterns

# The runner's strengths, strongest first (conformance.runner.strength).
STRENGTH_ORDER = ("must", "should", "advisory")
# A path segment after one of these keys names data of the vector, not a place in the result.
NAMED_SEGMENTS = {"entries": "<link>", "fields": "<field>", "machines": "<machine>"}
# /files/memory/<file>: the files of a store's memory folder.
FILES_FOLDER = ("files", "memory")
# The corpus names the keys and fields a reader does not know `x_...` (spec 3.2, 5.4): data too.
UNKNOWN_KEY_PREFIX = "x_"
# The checks of derived vectors, whose first path segment names which merge of the
# derived run differed (`ba`, `self`, `with_local`, `with_remote`).
DERIVED_CHECKS = frozenset({"commutative", "idempotent"})
NO_REQUIREMENT = "(none)"
_FAULT_KIND = patterns.compile(r"adapter fault \(([a-z_]+)\)")
_GIVEN_UP_OP = patterns.compile(r"crashed on ([a-z_]+) [0-9]+ times")
_UNDECLARED_OPS = "does not declare op"
_OP_LIST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_, ")
_UNSUPPORTED_OP = patterns.compile(r"answered ([a-z_]+) with unsupported")


@dataclass(frozen=True, order=True)
class CauseKey:
    requirement: str
    check: str
    path_shape: str
    strength: str
    ambiguity: str          # "" when the check rests on no interpretation


@dataclass
class Cause:
    """One distinct disagreement: every vector that shows it, with the failure that does."""

    key: CauseKey
    evidence: dict[str, dict] = field(default_factory=dict)   # vector id -> its first failure of this cause
    folded: list[str] = field(default_factory=list)           # derived vectors folded in with their base
    also_cites: set[str] = field(default_factory=set)         # other requirements the same checks check

    @property
    def vectors(self) -> list[str]:
        return sorted(self.evidence)


@dataclass
class Disagreement:
    """The causes charged to one requirement at one strength (and interpretation): one entry of the report.

    A spec author acts on a requirement, not on the check that showed it:
    one broken rule seen through several checks and paths (a count here, a
    missing field there) is one disagreement with several causes.
    """

    requirement: str
    strength: str
    ambiguity: str | None
    causes: list[Cause]          # most vectors first

    @property
    def key(self) -> CauseKey:
        """The key its causes share: requirement, strength and interpretation (check and path left empty)."""
        return CauseKey(self.requirement, "", "", self.strength, self.ambiguity or "")

    @property
    def vectors(self) -> list[str]:
        return sorted({vector_id for cause in self.causes for vector_id in cause.evidence})

    @property
    def folded(self) -> list[str]:
        return sorted({vector_id for cause in self.causes for vector_id in cause.folded})

    @property
    def also_cites(self) -> list[str]:
        return sorted({rid for cause in self.causes for rid in cause.also_cites})

    def evidence(self, vector_id: str) -> dict:
        """The vector's failure in the first (largest) cause it shows."""
        return next(cause.evidence[vector_id] for cause in self.causes if vector_id in cause.evidence)


@dataclass
class Group:
    """Vectors set apart for one reason: an adapter fault of one kind on one op, or one reason not to apply."""

    kind: str
    subject: str                                              # the op, or "" where none is named
    details: dict[str, str] = field(default_factory=dict)     # vector id -> what the report says of it
    folded: list[str] = field(default_factory=list)

    @property
    def vectors(self) -> list[str]:
        return sorted(self.details)


@dataclass
class Grouping:
    disagreements: list[Disagreement]
    errors: list[Group]
    not_applicable: list[Group]
    failing_vectors: int      # vectors whose result is fail, derived ones included


def path_shape(path: str, check: str) -> str:
    """The failing JSON Pointer without the vector's own data: `/entries/fact_a/fields/x_b/0`
    is `/entries/<link>/fields/<field>/*`, `/session/current/x_focus` is `/session/current/<x_key>`."""
    if not path:
        return ""
    shaped: list[str] = []
    for part in path.split("/")[1:]:
        previous = shaped[-1] if shaped else None
        if part.isdigit():
            shaped.append("*")
        elif previous in NAMED_SEGMENTS:
            shaped.append(NAMED_SEGMENTS[previous])
        elif tuple(shaped[-2:]) == FILES_FOLDER:
            shaped.append("<file>")
        elif part.startswith(UNKNOWN_KEY_PREFIX):
            shaped.append("<x_key>")
        else:
            shaped.append(part)
    if check in DERIVED_CHECKS:
        shaped[0] = "<merge>"
    return "/" + "/".join(shaped)


def _rank(strength: str) -> int:
    return STRENGTH_ORDER.index(strength) if strength in STRENGTH_ORDER else len(STRENGTH_ORDER)


def _strongest(vector: dict) -> int:
    return min((_rank(strength) for strength in vector["failed_strengths"]), default=len(STRENGTH_ORDER))


def _folded_into(vector: dict, by_id: dict[str, dict], outcome: str) -> str | None:
    """The base a derived vector with this outcome is folded into, or None."""
    derived = vector.get("derived")
    if not derived:
        return None
    base = by_id.get(derived["from"])
    if base is None or base.get("derived") or base["result"] != outcome:
        return None
    if outcome == "fail" and _strongest(base) > _strongest(vector):
        return None   # it shows something stronger than its base does: its own cause
    return base["id"]


def _failures(vector: dict) -> list[dict]:
    """The vector's failures; a failing vector without one counts as one failure of its own."""
    if vector["failures"]:
        return vector["failures"]
    strength = vector["failed_strengths"][0] if vector["failed_strengths"] else "must"
    return [{"path": "", "check": "(none)", "requirements": vector["requirements"], "strength": strength,
             "expected": None, "actual": None, "message": vector.get("detail") or "failed"}]


def _requirements(failure: dict, vector: dict) -> list[str]:
    return list(failure["requirements"] or vector["requirements"]) or [NO_REQUIREMENT]


def group(report: dict) -> Grouping:
    """The causes, fault groups and not-applicable groups of a run report (schema-valid)."""
    vectors = sorted(report["vectors"], key=lambda vector: vector["id"])
    by_id = {vector["id"]: vector for vector in vectors}
    failing = [vector for vector in vectors if vector["result"] == "fail"]
    folds = {vector["id"]: _folded_into(vector, by_id, "fail") for vector in failing}
    units = [vector for vector in failing if folds[vector["id"]] is None]

    # How many failing vectors name each requirement: the charge goes to the most named one.
    named = Counter(rid for vector in units
                    for rid in {rid for failure in _failures(vector) for rid in _requirements(failure, vector)})

    causes: dict[CauseKey, Cause] = {}
    first_cause: dict[str, CauseKey] = {}   # vector id -> the cause of its first strongest failure
    for vector in units:
        for failure in sorted(_failures(vector), key=lambda failure: _rank(failure["strength"])):
            requirements = _requirements(failure, vector)
            charged = max(requirements, key=lambda rid: (named[rid], -requirements.index(rid)))
            key = CauseKey(charged, failure["check"], path_shape(failure["path"], failure["check"]),
                           failure["strength"], failure.get("ambiguity") or "")
            cause = causes.setdefault(key, Cause(key))
            cause.evidence.setdefault(vector["id"], failure)
            cause.also_cites.update(rid for rid in requirements if rid != charged)
            first_cause.setdefault(vector["id"], key)
    for vector in failing:
        base = folds[vector["id"]]
        if base is not None:
            causes[first_cause[base]].folded.append(vector["id"])

    return Grouping(
        disagreements=_disagreements(causes.values()),
        errors=_set_apart(vectors, by_id, "error", fault_reason),
        not_applicable=_set_apart(vectors, by_id, "not_applicable", not_applicable_reason),
        failing_vectors=len(failing),
    )


def _disagreements(causes) -> list[Disagreement]:
    """The causes gathered by requirement, strength and interpretation, sorted by those."""
    gathered: dict[tuple, list[Cause]] = {}
    for cause in causes:
        gathered.setdefault((cause.key.requirement, cause.key.strength, cause.key.ambiguity), []).append(cause)
    return [Disagreement(requirement, strength, ambiguity or None,
                         sorted(found, key=lambda cause: (-len(cause.evidence), cause.key)))
            for (requirement, strength, ambiguity), found in sorted(gathered.items())]


def fault_kind(detail: str | None) -> str:
    """`timeout` for "adapter fault (timeout): ...", `not_sent` for a vector given up on."""
    text = detail or ""
    if text.startswith("not sent:"):
        return "not_sent"
    found = _FAULT_KIND.search(text)
    return found.group(1) if found else "other"


def fault_reason(vector: dict) -> tuple[str, str]:
    """The fault kind of an errored vector, and the op that faulted: the last one sent, or for a
    vector given up on (it sent none), the op given up on."""
    kind = fault_kind(vector["detail"])
    given_up = _GIVEN_UP_OP.search(vector["detail"] or "") if kind == "not_sent" else None
    return kind, given_up.group(1) if given_up else vector["sent"][-1]["op"] if vector["sent"] else vector["op"]


def unsupported_ops(vector: dict) -> list[str]:
    """The ops a not-applicable vector of kind `op` needed and the implementation does not do."""
    detail = vector["detail"] or ""
    undeclared = _undeclared_ops(detail)
    if undeclared:
        return undeclared
    refused = _UNSUPPORTED_OP.search(detail)
    return [refused.group(1)] if refused else [vector["op"]]


def _undeclared_ops(detail: str) -> list[str]:
    """The ops of a "does not declare op(s) a, b" detail that ends the text (a plain scan: linear time)."""
    start = detail.rfind(_UNDECLARED_OPS)
    if start < 0:
        return []
    rest = detail[start + len(_UNDECLARED_OPS):]
    rest = rest[1:] if rest.startswith("s") else rest
    if not rest.startswith(" ") or not set(rest) <= _OP_LIST_CHARS:
        return []
    return [op.strip() for op in rest.split(",") if op.strip()]


def not_applicable_reason(vector: dict) -> tuple[str, str]:
    """Why a vector did not apply (its kind), and for kind `op` the ops not supported."""
    kind = (vector["not_applicable"] or {}).get("kind", "other")
    return kind, ", ".join(unsupported_ops(vector)) if kind == "op" else ""


def _set_apart(vectors: list[dict], by_id: dict[str, dict], outcome: str, reason) -> list[Group]:
    """The vectors with `outcome`, grouped by `reason(vector)` -> (kind, subject), derived ones folded."""
    groups: dict[tuple[str, str], Group] = {}
    folded: list[tuple[str, str]] = []
    for vector in vectors:
        if vector["result"] != outcome:
            continue
        base = _folded_into(vector, by_id, outcome)
        if base is not None:
            folded.append((base, vector["id"]))
            continue
        kind, subject = reason(vector)
        groups.setdefault((kind, subject), Group(kind, subject)).details[vector["id"]] = vector["detail"] or ""
    for base, derived in folded:
        next(group for group in groups.values() if base in group.details).folded.append(derived)
    return [groups[key] for key in sorted(groups)]
