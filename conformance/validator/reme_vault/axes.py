"""Checks of one REME memory's frontmatter: the four axes and the conditional fields.

reme: "Frontmatter — 4 schema axes" and "Conditional fields". A memory
(topic or event index) must declare lifecycle, scope, source and role; the
legacy `category` field is read through `LEGACY_CATEGORIES` when the axes
are absent. Materials are frozen raw files: their frontmatter is optional and
only checked when it declares an axis.
"""

from __future__ import annotations

from conformance.validator.reme_vault import rules
from conformance.validator.reme_vault.layout import EVENT, EXPECTED_LIFECYCLE, MATERIAL, TOPIC, Vault, VaultFile
from conformance.validator.core.findings import Diagnostic, diagnostic

AXES: dict[str, tuple[str, ...]] = {
    "lifecycle": ("streaming", "evolving", "frozen"),
    "scope": ("instance", "class"),
    "source": ("auto", "curated", "derived"),
    "role": ("observation", "claim", "question", "profile", "concept", "method", "reference", "fundamentals"),
}
CONFIDENCE_VALUES = ("⏳", "✅", "❌")
ROLES_NEEDING_CONFIDENCE = ("claim", "question")
STATUS_VALUES = ("active", "distilled", "archived")

# Legacy `category` -> (role, scope, source). The protocol names only the role of
# thesis, model (claim) and questions (question); every other entry, and every
# scope and source here, is this validator's inference (docs/sibling-formats.md).
# lifecycle is not a category matter: it comes from where the file is.
LEGACY_CATEGORIES: dict[str, tuple[str, str, str]] = {
    "thesis": ("claim", "class", "curated"),
    "model": ("claim", "class", "curated"),
    "questions": ("question", "class", "curated"),
    "question": ("question", "class", "curated"),
    "concept": ("concept", "class", "curated"),
    "concepts": ("concept", "class", "curated"),
    "method": ("method", "class", "curated"),
    "methods": ("method", "class", "curated"),
    "profile": ("profile", "instance", "curated"),
    "person": ("profile", "instance", "curated"),
    "people": ("profile", "instance", "curated"),
    "reference": ("reference", "instance", "curated"),
    "references": ("reference", "instance", "curated"),
    "fundamentals": ("fundamentals", "class", "curated"),
    "observation": ("observation", "instance", "auto"),
    "observations": ("observation", "instance", "auto"),
    "event": ("observation", "instance", "auto"),
    "events": ("observation", "instance", "auto"),
}
SPEC_NAMED_CATEGORIES = frozenset({"thesis", "model", "questions"})


def check_memory(vault: Vault, file: VaultFile) -> list[Diagnostic]:
    """Frontmatter findings for a memory (topic, event index or archived memory)."""
    front = file.front
    where = vault.display(file.relpath)
    if front is None:
        return []  # unreadable: reported by the scan
    if not front.present:
        return [diagnostic(rules.NO_FRONTMATTER, where,
                           "memory has no frontmatter: declare lifecycle, scope, source and role in a '---' block", 1, 1)]
    if front.problem is not None:
        problem = front.problem
        return [diagnostic(rules.FRONTMATTER, where, problem.message, problem.line, problem.column)]
    fields = front.fields
    findings: list[Diagnostic] = []
    axes = {axis: fields[axis] for axis in AXES if axis in fields}
    if "category" in fields:
        findings.extend(_legacy_category(vault, file, axes))
    findings.extend(_axis_values(vault, file, axes))
    for axis, allowed in AXES.items():
        if axis not in axes:
            line, column = front.position("category") if "category" in fields else (1, 1)
            findings.append(diagnostic(rules.AXIS_MISSING, where,
                                       f"memory does not declare its {axis} axis ({' / '.join(allowed)})", line, column))
    findings.extend(_conditional_fields(vault, file, axes))
    return findings


def check_material(vault: Vault, file: VaultFile) -> list[Diagnostic]:
    """A material may have no frontmatter; axes it does declare must be valid."""
    front = file.front
    if front is None or front.problem is not None or not front.fields:
        return []
    axes = {axis: front.fields[axis] for axis in AXES if axis in front.fields}
    if not axes:
        return []
    return _axis_values(vault, file, axes)


def _valid(axes: dict, axis: str) -> str | None:
    value = axes.get(axis)
    return value if isinstance(value, str) and value in AXES[axis] else None


def _axis_values(vault: Vault, file: VaultFile, axes: dict) -> list[Diagnostic]:
    findings = []
    where = vault.display(file.relpath)
    for axis, value in axes.items():
        line, column = file.front.position(axis)
        if _valid(axes, axis) is None:
            hint = ""
            if isinstance(value, str) and value.strip().lower() in AXES[axis]:
                hint = f" (write it as {value.strip().lower()!r})"
            findings.append(diagnostic(rules.AXIS_VALUE, where,
                                       f"{axis} {value!r} is not one of {', '.join(AXES[axis])}{hint}", line, column))
    expected = EXPECTED_LIFECYCLE.get(file.kind)
    lifecycle = _valid(axes, "lifecycle")
    if expected and lifecycle and lifecycle != expected:
        place, plural = {TOPIC: ("a topic", "topics"), EVENT: ("an event index", "events"),
                         MATERIAL: ("a material", "materials")}[file.kind]
        line, column = file.front.position("lifecycle")
        findings.append(diagnostic(rules.LIFECYCLE_PATH, where,
                                   f"lifecycle {lifecycle!r} on {place}; the protocol's axis table has {plural} {expected}",
                                   line, column))
    return findings


def _legacy_category(vault: Vault, file: VaultFile, axes: dict) -> list[Diagnostic]:
    """Report the legacy category, and fill in the axes it stands for."""
    front = file.front
    where = vault.display(file.relpath)
    raw = front.fields["category"]
    line, column = front.position("category")
    category = raw.strip().lower() if isinstance(raw, str) else None
    translation = LEGACY_CATEGORIES.get(category) if category else None
    if translation is None:
        return [diagnostic(rules.LEGACY_CATEGORY, where,
                           f"legacy category {raw!r} has no known translation to the axes; set lifecycle, scope, "
                           "source and role directly", line, column)]
    role, scope, source = translation
    reading = {"role": role, "scope": scope, "source": source}
    lifecycle = EXPECTED_LIFECYCLE.get(file.kind)
    if lifecycle:
        reading["lifecycle"] = lifecycle
    certainty = "role named by the protocol" if category in SPEC_NAMED_CATEGORIES else "inferred by this validator"
    described = ", ".join(f"{axis}: {value}" for axis, value in reading.items())
    missing = [axis for axis in AXES if axis not in axes]
    if not missing:
        differing = [axis for axis, value in reading.items() if axes.get(axis) != value]
        note = f"; the explicit {', '.join(differing)} differ{'s' if len(differing) == 1 else ''} from it" if differing else ""
        return [diagnostic(rules.LEGACY_CATEGORY_REDUNDANT, where,
                           f"legacy category {raw!r} is ignored because the axes are set (it would read as "
                           f"{described}; {certainty}){note}", line, column)]
    filled = [axis for axis in missing if axis in reading]
    for axis in filled:
        axes[axis] = reading[axis]
    return [diagnostic(rules.LEGACY_CATEGORY, where,
                       f"legacy category {raw!r} reads as {described} ({certainty}); {', '.join(filled)} taken from it. "
                       "New writes set the axes directly", line, column)]


def _conditional_fields(vault: Vault, file: VaultFile, axes: dict) -> list[Diagnostic]:
    front = file.front
    fields = front.fields
    where = vault.display(file.relpath)
    findings = []
    role = _valid(axes, "role")
    if "confidence" in fields:
        value = fields["confidence"]
        normalized = value.replace("\ufe0f", "").strip() if isinstance(value, str) else None
        if normalized not in CONFIDENCE_VALUES:
            findings.append(diagnostic(rules.CONFIDENCE, where,
                                       f"confidence {value!r} is not one of {' '.join(CONFIDENCE_VALUES)}",
                                       *front.position("confidence")))
    elif role in ROLES_NEEDING_CONFIDENCE:
        findings.append(diagnostic(rules.CONFIDENCE, where,
                                   f"role {role!r} requires confidence (⏳ open, ✅ confirmed, ❌ refuted)",
                                   *front.position("role" if "role" in fields else "category")))
    lifecycle = _valid(axes, "lifecycle")
    if "status" in fields:
        status = fields["status"]
        line, column = front.position("status")
        if status not in STATUS_VALUES:
            findings.append(diagnostic(rules.STATUS_VALUE, where,
                                       f"status {status!r} is not one of {', '.join(STATUS_VALUES)}", line, column))
        if lifecycle is not None and lifecycle != "streaming":
            findings.append(diagnostic(rules.STATUS_NOT_STREAMING, where,
                                       f"status is set on a lifecycle: {lifecycle} memory; status is meaningful only "
                                       "for streaming memories (events) and is ignored here", line, column))
    if _valid(axes, "source") == "auto":
        session = fields.get("originSessionId")
        if not (isinstance(session, str) and session.strip()) and not isinstance(session, int):
            findings.append(diagnostic(rules.ORIGIN_SESSION, where,
                                       "source: auto memory does not name the session that captured it (originSessionId)",
                                       *front.position("source" if "source" in fields else "category")))
    return findings
