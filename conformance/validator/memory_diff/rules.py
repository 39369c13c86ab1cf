"""The rule catalogue of the memory diff validator (memory-diff-format v0.1).

Every rule names the section of the memory diff spec it comes from. Ids are
permanent: a rule may be reworded, never repurposed.
"""

from __future__ import annotations

from conformance.validator.core.findings import Rule

FORMAT = "memory-diff"

_FORMAT_SECTION = "memory-diff: Format"
_OPERATIONS = "memory-diff: Operations"
_SOURCE_EVENTS = "memory-diff: Source events"
_REVIEW = "memory-diff: Review and application"
_VALIDATION = "memory-diff: Validation rules"


def _rule(id: str, severity: str, section: str, summary: str) -> Rule:
    return Rule(id=id, severity=severity, section=section, summary=summary, format=FORMAT)


READ = _rule("MDIFF-E-READ", "error", _FORMAT_SECTION,
             "The file can be read as UTF-8 text within the size limit.")
YAML = _rule("MDIFF-E-YAML", "error", _FORMAT_SECTION,
             "The file is one well-formed YAML document of plain data (string keys, no unknown tags, no duplicate keys).")
YAML_ALIAS = _rule("MDIFF-E-YAML-ALIAS", "error", _FORMAT_SECTION,
                   "The document uses no YAML anchors or aliases (refused before expansion).")
SCHEMA = _rule("MDIFF-E-SCHEMA", "error", _FORMAT_SECTION,
               "The document matches schema/memory-diff.schema.json (fields, types, version \"0.1\").")
NO_TRIGGER = _rule("MDIFF-E-NO-TRIGGER", "error", _VALIDATION,
                   "The diff names its trigger: the source event, with a kind and a uri.")
NO_PRIMARY_SOURCE = _rule("MDIFF-E-NO-PRIMARY-SOURCE", "error", _VALIDATION,
                          "The diff has a primary source: a basis entry with role primary (without a basis, the trigger is the primary source).")
WEAK_TRIGGER = _rule("MDIFF-E-WEAK-TRIGGER", "error", _SOURCE_EVENTS,
                     "A diff that proposes claims has a trigger in a state strong enough to prove them (PR merged, ticket accepted, incident resolved, decision approved; chat is never proof).")
TRIGGER_KIND_UNKNOWN = _rule("MDIFF-W-TRIGGER-KIND-UNKNOWN", "warning", _SOURCE_EVENTS,
                             "The trigger kind is one whose required state is known (pull request, ticket, incident, decision, chat); for others the state is not judged.")
INCOMPLETE_ITEM = _rule("MDIFF-E-INCOMPLETE-ITEM", "error", _VALIDATION,
                        "add and supersede carry a complete memory item (id, claim, type, scope, source, visibility, freshness, review).")
NO_TARGET = _rule("MDIFF-E-NO-TARGET", "error", _VALIDATION,
                  "supersede, deprecate and revalidate name the item they change in target_id.")
CHANGE_FIELDS = _rule("MDIFF-E-CHANGE-FIELDS", "error", _OPERATIONS,
                      "Every change has id, operation and reason, plus the fields its operation requires (deprecate: source; revalidate: source, freshness; flag_conflict: target_ids, source, conflict_notes).")
UPDATE_DELETE = _rule("MDIFF-E-UPDATE-DELETE", "error", _OPERATIONS,
                      "There is no update and no delete operation: use supersede, deprecate or flag_conflict (deletion is a separate audited workflow).")
UNKNOWN_OPERATION = _rule("MDIFF-E-UNKNOWN-OPERATION", "error", _OPERATIONS,
                          "operation is one of add, supersede, deprecate, revalidate, flag_conflict.")
DUPLICATE_CHANGE_ID = _rule("MDIFF-E-DUPLICATE-CHANGE-ID", "error", _OPERATIONS,
                            "Change ids are unique within the diff (review decisions and the application record refer to them).")
REVIEW_DECISION = _rule("MDIFF-E-REVIEW-DECISION", "error", _REVIEW,
                        "Review decisions are per change: each names an existing change id and is pending, accepted or rejected.")
VISIBILITY_BROADER = _rule("MDIFF-E-VISIBILITY-BROADER", "error", _VALIDATION,
                           "An item's visibility is not broader than its source's (private < internal < public).")
VISIBILITY_LEVEL = _rule("MDIFF-W-VISIBILITY-LEVEL", "warning", _VALIDATION,
                         "Visibility levels are private, internal or public, so that they can be compared.")
CONFLICT_RESOLUTION = _rule("MDIFF-E-CONFLICT-RESOLUTION", "error", _VALIDATION,
                            "A change that resolves a conflict cites evidence or records a review.")
APPLICATION_RECORD = _rule("MDIFF-E-APPLICATION-RECORD", "error", _VALIDATION,
                           "An applied diff records the reviewer, the time, the accepted change ids and the resulting memory item ids.")
APPLICATION_FIELD_NAME = _rule("MDIFF-W-APPLICATION-FIELD-NAME", "warning", _REVIEW,
                               "The application record names its lists accepted_change_ids and resulting_item_ids and "
                               "its reviewer reviewed_by: the spec fixes no names, so other spellings are read, with "
                               "a warning naming these.")
GENERATED_SUMMARY = _rule("MDIFF-E-GENERATED-SUMMARY", "error", _VALIDATION,
                          "A generated summary is never the primary source or trigger, and is cited only together with the underlying source.")

RULES: list[Rule] = [
    READ, YAML, YAML_ALIAS, SCHEMA,
    NO_TRIGGER, NO_PRIMARY_SOURCE, WEAK_TRIGGER, TRIGGER_KIND_UNKNOWN,
    INCOMPLETE_ITEM, NO_TARGET, CHANGE_FIELDS, UPDATE_DELETE, UNKNOWN_OPERATION, DUPLICATE_CHANGE_ID,
    REVIEW_DECISION, VISIBILITY_BROADER, VISIBILITY_LEVEL, CONFLICT_RESOLUTION,
    APPLICATION_RECORD, APPLICATION_FIELD_NAME, GENERATED_SUMMARY,
]
