"""Cross-field checks of a memory diff: the rules a schema cannot state.

These implement the memory diff spec's "Validation rules" (and the parts of
"Source events" and "Review and application" they rely on). Every
interpretation made here is written down in docs/sibling-formats.md. The
checks look only at well-typed parts of the document: a part of the wrong
type is the schema's finding, not theirs, so bad input never raises here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from conformance.validator.memory_diff import rules
from conformance.validator.memory_diff.schema import describe
from conformance.validator.core.safe_yaml import LoadedYaml
from conformance.validator.core.findings import Diagnostic, Rule, diagnostic

# Source events: the state each trigger kind must have reached before it proves a claim.
PROOF_STATES: dict[str, tuple[str, frozenset[str]]] = {
    "pull_request": ("a pull request proves a claim only once merged (an open PR is not proof that its implementation reached the default branch)",
                     frozenset({"merged"})),
    "ticket": ("a ticket proves a claim only as an accepted revision or transition",
               frozenset({"accepted", "transitioned"})),
    "incident": ("an incident proves a claim only once resolved or its postmortem reviewed (a hypothesis is not a confirmed failure mode)",
                 frozenset({"resolved", "postmortem_reviewed"})),
    "decision": ("a decision proves a claim only once approved (an approved ADR or attributable record)",
                 frozenset({"approved", "accepted"})),
}
TRIGGER_KIND_ALIASES = {
    "pr": "pull_request", "merge_request": "pull_request", "mr": "pull_request",
    "issue": "ticket",
    "adr": "decision",
}
CHAT_KINDS = frozenset({"chat", "message", "chat_message", "conversation"})
CLAIM_OPERATIONS = ("add", "supersede", "deprecate", "revalidate")

VISIBILITY_ORDER = {"private": 0, "internal": 1, "public": 2}
GENERATED_KINDS = frozenset({"generated_summary", "summary", "ai_summary", "llm_summary"})
DECISIONS = ("pending", "accepted", "rejected")


def check_semantics(loaded: LoadedYaml, path: str) -> list[Diagnostic]:
    """All cross-field findings for one loaded diff."""
    if not isinstance(loaded.data, dict):
        return []
    diff = _Diff(loaded, path)
    findings: list[Diagnostic] = []
    for check in (
        _primary_source, _trigger_strength, _change_ids, _review_decisions,
        _visibility, _conflict_resolutions, _application_record, _generated_summaries,
    ):
        findings.extend(check(diff))
    return findings


@dataclass
class _Diff:
    loaded: LoadedYaml
    path: str

    @property
    def doc(self) -> dict:
        return self.loaded.data

    def finding(self, rule: Rule, location: tuple, message: str) -> Diagnostic:
        line, column = self.loaded.position(location)
        return diagnostic(rule, self.path, message, line, column)

    def changes(self) -> Iterator[tuple[int, dict]]:
        changes = self.doc.get("changes")
        if isinstance(changes, list):
            for index, change in enumerate(changes):
                if isinstance(change, dict):
                    yield index, change

    def change_ids(self) -> set[str]:
        return {change["id"] for _, change in self.changes() if isinstance(change.get("id"), str)}

    def trigger(self) -> dict | None:
        trigger = self.doc.get("trigger")
        return trigger if isinstance(trigger, dict) else None

    def basis(self) -> list[tuple[int, dict]]:
        basis = self.doc.get("basis")
        if not isinstance(basis, list):
            return []
        return [(index, entry) for index, entry in enumerate(basis) if isinstance(entry, dict)]

    def review(self) -> dict:
        review = self.doc.get("review")
        return review if isinstance(review, dict) else {}

    def decisions(self) -> dict:
        decisions = self.review().get("decisions")
        return decisions if isinstance(decisions, dict) else {}


def _word(value: Any) -> str | None:
    """A kind, role or state in one spelling: lower case, `_` for `-` and spaces."""
    if not isinstance(value, str) or not value.strip():
        return None
    return "_".join(value.strip().lower().replace("-", " ").split())


def _filled(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (list, dict)):
        return bool(value)
    return value is not None and value is not False


def _label(change: dict, index: int) -> str:
    change_id = change.get("id")
    return f"change {change_id!r}" if isinstance(change_id, str) else f"changes[{index}]"


# -- trigger and primary source -------------------------------------------------

def _primary_source(diff: _Diff) -> list[Diagnostic]:
    basis = diff.doc.get("basis")
    if not isinstance(basis, list):
        # No basis: the trigger is the primary source, and a missing trigger is
        # MDIFF-E-NO-TRIGGER's finding. A basis of the wrong type is the schema's.
        return []
    if any(_word(entry.get("role")) == "primary" for _, entry in diff.basis()):
        return []
    return [diff.finding(rules.NO_PRIMARY_SOURCE, ("basis",),
                         "basis lists no source with role primary: cite the primary source "
                         "(merged PR, accepted ticket, resolved incident, approved decision)")]


def _trigger_kind(trigger: dict) -> str | None:
    kind = _word(trigger.get("kind"))
    return TRIGGER_KIND_ALIASES.get(kind, kind) if kind else None


def _trigger_strength(diff: _Diff) -> list[Diagnostic]:
    trigger = diff.trigger()
    kind = _trigger_kind(trigger) if trigger else None
    if kind is None:
        return []
    claims = [_label(change, index) for index, change in diff.changes()
              if _word(change.get("operation")) in CLAIM_OPERATIONS]
    if not claims:
        return []  # nothing is proposed, so nothing needs proving (empty diffs are valid)
    proposing = f"{', '.join(claims)} propose{'s' if len(claims) == 1 else ''} durable claims, but"
    if kind in CHAT_KINDS:
        return [diff.finding(rules.WEAK_TRIGGER, ("trigger", "kind"),
                             f"{proposing} the trigger is a {trigger['kind']!r}, which is never proof: a chat message "
                             "saying 'we should' is not an accepted decision; cite the decision, ticket or PR it led to")]
    if kind not in PROOF_STATES:
        return [diff.finding(rules.TRIGGER_KIND_UNKNOWN, ("trigger", "kind"),
                             f"trigger kind {trigger['kind']!r} is not in the Source events table "
                             "(pull_request, ticket, incident, decision); its state was not judged")]
    why, strong = PROOF_STATES[kind]
    state = _word(trigger.get("state"))
    if state in strong:
        return []
    accepted = " or ".join(sorted(strong))
    if state is None:
        return [diff.finding(rules.WEAK_TRIGGER, ("trigger",),
                             f"{proposing} the trigger has no state; {why}: set state to {accepted}")]
    return [diff.finding(rules.WEAK_TRIGGER, ("trigger", "state"),
                         f"{proposing} the trigger's state is {trigger['state']!r}; {why} (state {accepted})")]


# -- change ids and review ----------------------------------------------------

def _change_ids(diff: _Diff) -> list[Diagnostic]:
    seen: dict[str, int] = {}
    findings = []
    for index, change in diff.changes():
        change_id = change.get("id")
        if not isinstance(change_id, str):
            continue
        if change_id in seen:
            findings.append(diff.finding(rules.DUPLICATE_CHANGE_ID, ("changes", index, "id"),
                                         f"change id {change_id!r} is already used by changes[{seen[change_id]}]"))
        else:
            seen[change_id] = index
    return findings


def _review_decisions(diff: _Diff) -> list[Diagnostic]:
    known = diff.change_ids()
    return [
        diff.finding(rules.REVIEW_DECISION, ("review", "decisions", change_id),
                     f"review decision for {change_id!r}, which is not a change of this diff"
                     + (f" (changes: {', '.join(sorted(known))})" if known else " (the diff has no changes)"))
        for change_id in diff.decisions()
        if change_id not in known
    ]


# -- visibility -----------------------------------------------------------------

def _level(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("level")
    return _word(value)


def _visibility(diff: _Diff) -> list[Diagnostic]:
    findings: list[Diagnostic] = []
    trigger = diff.trigger() or {}
    basis = diff.basis()

    declared: list[tuple[tuple, str]] = []  # (location, level) of every visibility in the diff
    if _level(trigger.get("visibility")):
        declared.append((("trigger", "visibility"), _level(trigger["visibility"])))
    for index, entry in basis:
        if _level(entry.get("visibility")):
            declared.append((("basis", index, "visibility"), _level(entry["visibility"])))
    items = [(index, change, change["item"]) for index, change in diff.changes() if isinstance(change.get("item"), dict)]
    for index, _, item in items:
        for location, value in ((("changes", index, "item", "visibility"), item.get("visibility")),
                                (("changes", index, "item", "source", "visibility"),
                                 item["source"].get("visibility") if isinstance(item.get("source"), dict) else None)):
            if _level(value):
                declared.append((location, _level(value)))
    for location, level in declared:
        if level not in VISIBILITY_ORDER:
            findings.append(diff.finding(rules.VISIBILITY_LEVEL, location,
                                         f"{describe(location)}: unknown visibility level {level!r}; "
                                         "the levels are private < internal < public"))

    for index, change, item in items:
        level = _level(item.get("visibility"))
        if level not in VISIBILITY_ORDER:
            continue
        bounds = _source_visibilities(trigger, basis, item)
        known_bounds = [(VISIBILITY_ORDER[bound], bound, where) for bound, where in bounds if bound in VISIBILITY_ORDER]
        if not known_bounds:
            continue  # no source declares a visibility: nothing to compare against
        rank, narrowest, where = min(known_bounds)
        if VISIBILITY_ORDER[level] > rank:
            findings.append(diff.finding(
                rules.VISIBILITY_BROADER, ("changes", index, "item", "visibility"),
                f"{_label(change, index)}: item visibility {level!r} is broader than its source's ({where} is "
                f"{narrowest!r}); memory may preserve or narrow source visibility, never broaden it"))
    return findings


def _source_visibilities(trigger: dict, basis: list[tuple[int, dict]], item: dict) -> list[tuple[str, str]]:
    """The declared visibilities that bound an item: its own source, the basis
    entries for that source, the primary source and the trigger."""
    bounds = []
    source = item.get("source") if isinstance(item.get("source"), dict) else {}
    if _level(source.get("visibility")):
        bounds.append((_level(source["visibility"]), "the item's source"))
    uri = source.get("uri")
    for index, entry in basis:
        if _level(entry.get("visibility")) and (entry.get("uri") == uri or _word(entry.get("role")) == "primary"):
            bounds.append((_level(entry["visibility"]), f"basis[{index}]"))
    if _level(trigger.get("visibility")):
        bounds.append((_level(trigger["visibility"]), "the trigger"))
    return bounds


# -- conflicts ------------------------------------------------------------------

def _resolves_conflict(change: dict) -> tuple | None:
    """The field by which `change` claims to resolve a conflict, if it does."""
    if _filled(change.get("resolves")):
        return ("resolves",)
    if _word(change.get("operation")) == "flag_conflict":
        if _filled(change.get("resolution")):
            return ("resolution",)
        if _word(change.get("status")) == "resolved":
            return ("status",)
    return None


def _conflict_resolutions(diff: _Diff) -> list[Diagnostic]:
    findings = []
    review = diff.review()
    decisions = diff.decisions()
    for index, change in diff.changes():
        field = _resolves_conflict(change)
        if field is None:
            continue
        resolution = change.get("resolution") if isinstance(change.get("resolution"), dict) else {}
        has_evidence = _filled(change.get("evidence")) or _filled(resolution.get("evidence"))
        reviewed = (
            _filled(resolution.get("reviewed_by"))
            or (_filled(review.get("reviewed_by")) and decisions.get(change.get("id")) == "accepted")
        )
        if not (has_evidence or reviewed):
            findings.append(diff.finding(
                rules.CONFLICT_RESOLUTION, ("changes", index) + field,
                f"{_label(change, index)} resolves a conflict without evidence or review: cite the evidence "
                "(evidence: [...]) or record the reviewer (resolution.reviewed_by, or an accepted review decision "
                "with review.reviewed_by)"))
    return findings


# -- application ----------------------------------------------------------------

# "Applying a diff should record the reviewer, time, accepted change IDs, and
# resulting memory item IDs": the spec names no fields, so each is read under
# the suggested name first, then under other spellings seen in the wild.
APPLICATION_FIELDS = {
    "accepted_change_ids": ("accepted_changes", "accepted_change_id", "accepted_ids", "accepted"),
    "resulting_item_ids": ("resulting_items", "resulting_memory_item_ids", "resulting_memory_ids",
                           "resulting_item_id", "resulting_ids"),
    "reviewed_by": ("reviewer",),
}


def _application_field(application: dict, name: str) -> tuple[str, object]:
    """(the key the field was found under, its value); the suggested key when absent."""
    if name in application:
        return name, application[name]
    for spelling in APPLICATION_FIELDS[name]:
        if spelling in application:
            return spelling, application[spelling]
    return name, None


def _ids(value: object) -> list[tuple[int, str]]:
    """The ids of a list of ids, or of mappings with an `id`."""
    ids = []
    for position, item in enumerate(value if isinstance(value, list) else []):
        if isinstance(item, dict):
            item = item.get("id")
        if isinstance(item, str):
            ids.append((position, item))
    return ids


def _application_record(diff: _Diff) -> list[Diagnostic]:
    application = diff.doc.get("application")
    if not isinstance(application, dict):
        return []
    findings = []
    fields = {name: _application_field(application, name) for name in APPLICATION_FIELDS}
    for name, (key, _value) in fields.items():
        if key != name:
            findings.append(diff.finding(rules.APPLICATION_FIELD_NAME, ("application", key),
                                         f"application.{key} is read as {name}, the name this kit suggests (the spec "
                                         f"fixes none); rename it to {name} so that every reader finds it"))
    if _word(application.get("status")) != "applied":
        return findings
    missing = []
    reviewer = fields["reviewed_by"][1]
    if not _filled(reviewer) and not _filled(diff.review().get("reviewed_by")):
        missing.append("the reviewer (application.reviewed_by or review.reviewed_by)")
    if not _filled(application.get("applied_at")):
        missing.append("the time (applied_at)")
    for name, what in (("accepted_change_ids", "the accepted change ids"), ("resulting_item_ids", "the resulting memory item ids")):
        if not isinstance(fields[name][1], list):
            missing.append(f"{what} ({name})")
    if missing:
        findings.append(diff.finding(rules.APPLICATION_RECORD, ("application", "status"),
                                     "the diff is applied but its application record lacks " + "; ".join(missing)
                                     + ": add them"))
    key, accepted = fields["accepted_change_ids"]
    known = diff.change_ids()
    decisions = diff.decisions()
    for position, change_id in _ids(accepted):
        location = ("application", key, position)
        if change_id not in known:
            findings.append(diff.finding(rules.APPLICATION_RECORD, location,
                                         f"accepted change {change_id!r} is not a change of this diff; correct the id"))
        elif decisions and decisions.get(change_id) != "accepted":
            findings.append(diff.finding(rules.APPLICATION_RECORD, location,
                                         f"change {change_id!r} was applied but its review decision is "
                                         f"{decisions.get(change_id, 'missing')!r}, not 'accepted'; review it first"))
    return findings


# -- generated summaries ------------------------------------------------------

def _is_generated(reference: dict) -> bool:
    return _word(reference.get("kind")) in GENERATED_KINDS or reference.get("generated") is True


def _generated_summaries(diff: _Diff) -> list[Diagnostic]:
    trigger = diff.trigger()
    basis = diff.basis()
    cited = [entry for _, entry in basis if not _is_generated(entry)]
    if trigger and not _is_generated(trigger):
        cited.append(trigger)
    underlying = {entry["uri"] for entry in cited if isinstance(entry.get("uri"), str)}
    primaries = [entry for _, entry in basis if _word(entry.get("role")) == "primary"]
    if not isinstance(diff.doc.get("basis"), list) and trigger:
        primaries = [trigger]  # without a basis, the trigger is the primary source
    has_real_primary = any(not _is_generated(entry) for entry in primaries)

    citations: list[tuple[tuple, dict]] = []
    if trigger:
        citations.append((("trigger",), trigger))
    citations += [(("basis", index), entry) for index, entry in basis]
    for index, change in diff.changes():
        if isinstance(change.get("source"), dict):
            citations.append((("changes", index, "source"), change["source"]))
        item = change.get("item")
        if isinstance(item, dict) and isinstance(item.get("source"), dict):
            citations.append((("changes", index, "item", "source"), item["source"]))

    findings = []
    for location, reference in citations:
        if not _is_generated(reference):
            continue
        where = describe(location)
        if location == ("trigger",):
            message = f"{where} is a generated summary: the trigger must be the source event itself"
        elif location[0] == "basis" and _word(reference.get("role")) == "primary":
            message = (f"{where} is a generated summary cited as the primary source: cite the underlying "
                       "source as primary (a summary may be supporting)")
        else:
            derived = reference.get("derived_from")
            derived = [derived] if isinstance(derived, str) else derived if isinstance(derived, list) else []
            if derived:
                lacking = [uri for uri in derived if isinstance(uri, str) and uri not in underlying]
                if not lacking:
                    continue
                message = (f"{where} is a generated summary whose underlying source "
                           f"{', '.join(lacking)} is not cited: add it to basis")
            elif has_real_primary:
                continue
            else:
                message = (f"{where} is a generated summary cited without the underlying source: "
                           "name it in derived_from and cite it in basis")
        findings.append(diff.finding(rules.GENERATED_SUMMARY, location + (("kind",) if "kind" in reference else ()), message))
    return findings
