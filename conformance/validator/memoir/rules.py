"""The memoir rule catalogue: every check of stores, entry files and session files.

Ids read ``MEMOIR-<E|W|L|I>-<NAME>``: the letter is the rule's severity
(error, warning, legacy, info; docs/validator.md has the policy). An id is
never reused or repurposed; a rule may be reworded. A rule whose severity
changed got a new id and keeps the old one in `former_ids`, which
``--select`` and ``--ignore`` still accept; a rule whose severity went back
takes the id it had then again (MEMOIR-W-YAML-REJECTED).
"""

from __future__ import annotations

from conformance.validator.core.findings import Rule

APPENDIX_A = "App. A"


def _rule(id: str, severity: str, section: str, summary: str, former: str | None = None) -> Rule:
    return Rule(id=id, severity=severity, section=section, summary=summary, format="memoir",
                former_ids=(former,) if former else ())


# -- entry files: the frontmatter subset (3.1) ----------------------------------

NO_FRONTMATTER = _rule(
    "MEMOIR-L-NO-FRONTMATTER", "legacy", "3.1",
    "An entry file begins with YAML frontmatter; a bare file reads as an opaque legacy entry named by its first # heading (App. A).",
    former="MEMOIR-W-NO-FRONTMATTER")
PREAMBLE = _rule(
    "MEMOIR-W-PREAMBLE", "warning", "3.1",
    "The opening --- is the first line; blank lines or HTML comments before it hide the frontmatter from strict readers.")
UNTERMINATED = _rule(
    "MEMOIR-E-UNTERMINATED", "error", "3.1",
    "A frontmatter opened by --- is closed by a --- line.")
# 3.1's MUST NOT names anchors, multi-line block scalars and deeper nesting (and
# an alias needs an anchor): those are errors. The rest of the subset's syntax
# follows from "SHOULD begin with a YAML frontmatter block" and the kit's
# line-by-line reading of it (AMB-FRONTMATTER-LINES): warnings, each saying
# what a reader of the subset makes of the line that YAML readers read otherwise.
YAML_ANCHOR = _rule("MEMOIR-E-YAML-ANCHOR", "error", "3.1", "Frontmatter has no YAML anchors (&name).")
YAML_ALIAS = _rule(
    "MEMOIR-E-YAML-ALIAS", "error", "3.1", "Frontmatter has no YAML aliases (*name); they are refused, never expanded.")
YAML_BLOCK_SCALAR = _rule(
    "MEMOIR-E-YAML-BLOCK-SCALAR", "error", "3.1", "Frontmatter has no multi-line block scalars (| or >); prose belongs in the body.")
YAML_DEEP_NESTING = _rule(
    "MEMOIR-E-YAML-DEEP-NESTING", "error", "3.1",
    "Frontmatter nests at most one level: a mapping of scalars or a list of strings under a top-level key.")
YAML_TAG = _rule(
    "MEMOIR-W-YAML-TAG", "warning", "3.1", "Frontmatter has no YAML tags (!tag, !!type); a reader of the subset keeps "
    "them in the text.", former="MEMOIR-E-YAML-TAG")
YAML_FLOW = _rule(
    "MEMOIR-W-YAML-FLOW", "warning", "3.1",
    "Lists are block '- item' lists, not flow collections ([a, b] or {k: v}), which a reader of the subset takes for "
    "text (the empty [] and {} are read as empty).", former="MEMOIR-E-YAML-FLOW")
YAML_DUPLICATE_KEY = _rule(
    "MEMOIR-W-YAML-DUPLICATE-KEY", "warning", "3.1", "No key appears twice in one mapping.",
    former="MEMOIR-E-YAML-DUPLICATE-KEY")
YAML_BAD_LINE = _rule(
    "MEMOIR-W-YAML-BAD-LINE", "warning", "3.1",
    "Every frontmatter line is a 'key: value' pair with a plain key, a nested pair, a '- item' or a comment.",
    former="MEMOIR-E-YAML-BAD-LINE")
YAML_FOLDED = _rule(
    "MEMOIR-W-YAML-FOLDED", "warning", "3.1",
    "A value is written on one line: one folded over indented lines (as PyYAML folds long values) is cut at its "
    "first line by a reader of the subset.")
YAML_TAB = _rule(
    "MEMOIR-W-YAML-TAB", "warning", "3.1", "Frontmatter is indented with spaces, never tabs.",
    former="MEMOIR-E-YAML-TAB")
YAML_QUOTING = _rule(
    "MEMOIR-W-YAML-QUOTING", "warning", "3.1",
    "A quoted value closes on its own line, uses valid escapes, and has nothing after its closing quote.",
    former="MEMOIR-E-YAML-QUOTING")
YAML_REJECTED = _rule(
    "MEMOIR-W-YAML-REJECTED", "warning", "3.1",
    "The frontmatter is YAML (3.1, SHOULD): a YAML engine can parse it (quote values that contain ': ' or start "
    "with ` or @).",
    former="MEMOIR-E-YAML-REJECTED")
YAML_COMMENT = _rule(
    "MEMOIR-W-YAML-COMMENT", "warning", "3.1",
    "No unquoted ' #' inside a value: a YAML engine reads it as a comment and drops the rest.")
YAML_RETYPED = _rule(
    "MEMOIR-W-YAML-RETYPED", "warning", "3.1",
    "A value a YAML engine would read as another type loses nothing: text fields are not unquoted dates, numbers or "
    "yes/no, and no value changes when read as a number (quote it).")

# -- entry files: fields (3.2, 3.3, 6) -------------------------------------------

MISSING_TYPE = _rule("MEMOIR-E-MISSING-TYPE", "error", "3.2", "The frontmatter has a type.")
MISSING_NAME = _rule("MEMOIR-E-MISSING-NAME", "error", "3.2", "The frontmatter has a non-empty name.")
MISSING_DESCRIPTION = _rule(
    "MEMOIR-W-MISSING-DESCRIPTION", "warning", "3.2",
    "The frontmatter has a one-line description; without it the entry is invisible in indexes and pickers.")
UNKNOWN_TYPE = _rule(
    "MEMOIR-W-UNKNOWN-TYPE", "warning", "3.3",
    "type is one of fact, preference, decision, lesson, goal, next_action; any other reads as an opaque entry (8).")
FIELD_TYPE = _rule(
    "MEMOIR-E-FIELD-TYPE", "error", "3.2",
    "Known fields have the shape schema/entry.schema.json gives them (strings, lists of strings, booleans, integers).")
DATE = _rule("MEMOIR-E-DATE", "error", "3.2", "Every date field is an ISO 8601 date or date-time of a real day and time.")
NO_CREATED = _rule(
    "MEMOIR-I-NO-CREATED", "info", "3.2",
    "An entry says when it was written (created, or updated); without either, two copies of the file cannot be "
    "merged by date (5.2).")
SCHEMA_VERSION = _rule("MEMOIR-E-SCHEMA-VERSION", "error", "6", "schema_version, when present, is an integer of at least 1.")
SCHEMA_VERSION_NEWER = _rule(
    "MEMOIR-W-SCHEMA-VERSION-NEWER", "warning", "6",
    "schema_version is not newer than 1; a newer entry is quarantined, not interpreted.")
LESSON_FIELDS = _rule(
    "MEMOIR-E-LESSON-FIELDS", "error", "3.3.4", "A lesson has a trigger and a how_to_apply.")
NEXT_ACTION_ADDED = _rule(
    "MEMOIR-E-NEXT-ACTION-ADDED", "error", "3.3.6",
    "A next_action has added; without it completion (done_at vs added) is undefined.")
HIDDEN_AT = _rule("MEMOIR-E-HIDDEN-AT", "error", "3.3.3", "A decision with hidden: true has hidden_at.")
DECISION_WHY = _rule(
    "MEMOIR-W-DECISION-WHY", "warning", "3.3.3", "A decision has a why: a decision without a why is half a decision.")
DECISION_REJECTED = _rule(
    "MEMOIR-W-DECISION-REJECTED", "warning", "3.3.3", "A decision names the rejected alternative.")
DONE_BEFORE_ADDED = _rule(
    "MEMOIR-W-DONE-BEFORE-ADDED", "warning", "5.3.2",
    "done_at is not earlier than added (next_action) or set_on (goal).")

# -- entry files: legacy dialects (Appendix A) ------------------------------------

LEGACY_METADATA = _rule(
    "MEMOIR-L-METADATA", "legacy", APPENDIX_A,
    "type is a top-level key; the legacy nested metadata.type reads as type.", former="MEMOIR-W-LEGACY-METADATA")
LEGACY_ORIGIN = _rule(
    "MEMOIR-L-ORIGIN", "legacy", APPENDIX_A,
    "The origin session is origin.session_id; the legacy originSessionId reads as it.",
    former="MEMOIR-W-LEGACY-ORIGIN")
LEGACY_TYPE = _rule(
    "MEMOIR-L-TYPE", "legacy", APPENDIX_A,
    "type uses the spec's vocabulary; legacy user, feedback and reference read as preference, lesson and fact.",
    former="MEMOIR-W-LEGACY-TYPE")
LEGACY_DOSSIER = _rule(
    "MEMOIR-L-DOSSIER", "legacy", APPENDIX_A,
    "A legacy type: project dossier has no atomic mapping and reads as an opaque legacy entry.",
    former="MEMOIR-W-LEGACY-DOSSIER")
LEGACY_HOW_TO_APPLY = _rule(
    "MEMOIR-L-HOW-TO-APPLY", "legacy", APPENDIX_A,
    "A lesson carries how_to_apply as a field; the legacy **How to apply:** body section reads as it.")
LEGACY_LESSON = _rule(
    "MEMOIR-W-LEGACY-LESSON", "warning", APPENDIX_A,
    "A legacy feedback entry has what its lesson reading needs: a description (its trigger) and a "
    "**How to apply:** body section (its how_to_apply).")

# -- session.json (4, 5, 6) --------------------------------------------------------

SESSION_JSON = _rule("MEMOIR-E-SESSION-JSON", "error", "4.1", "session.json is one well-formed JSON document.")
SESSION_SCHEMA = _rule(
    "MEMOIR-E-SESSION-SCHEMA", "error", "4.1",
    "session.json is an object that carries an integer version (6, MUST), and every key it has is of the JSON type "
    "schema/session.schema.json gives it; the schema's other keys may be absent.")
SESSION_NO_TEXT = _rule(
    "MEMOIR-W-SESSION-NO-TEXT", "warning", "5.1",
    "Every session-list item has a text, its identity; without one no merge can match it, and readers leave it out "
    "(AMB-MALFORMED-ITEMS).")
SESSION_VERSION_NEWER = _rule(
    "MEMOIR-W-SESSION-VERSION-NEWER", "warning", "6",
    "version is not newer than 1; a newer session is quarantined and contributes nothing to a merge.")
SESSION_DUPLICATE = _rule(
    "MEMOIR-W-SESSION-DUPLICATE", "warning", "5.1",
    "No identity (trimmed, case-folded text) appears twice in one list; readers and merges keep one of them.",
    former="MEMOIR-E-SESSION-DUPLICATE")
SESSION_LIVE_AND_PARKED = _rule(
    "MEMOIR-E-SESSION-LIVE-AND-PARKED", "error", "4.1", "An action is live or parked, never both.")
SESSION_SUPPRESSED = _rule(
    "MEMOIR-W-SESSION-SUPPRESSED", "warning", "5.3.2",
    "No live action or goal is suppressed by its own tombstone (added or set_on not later than done_at).")
SESSION_TEXT_HASH = _rule(
    "MEMOIR-E-SESSION-TEXT-HASH", "error", "5.3.1", "text_hash is the lowercase hex SHA-256 of the normalized text (64 hex digits).")
SESSION_HASH_NOT_HIDDEN = _rule(
    "MEMOIR-E-SESSION-HASH-NOT-HIDDEN", "error", "5.3.1", "A decision with text_hash is hidden: never purge without hiding.")
SESSION_HIDDEN_AT = _rule(
    "MEMOIR-E-SESSION-HIDDEN-AT", "error", "5.3.1", "A hidden decision has hidden_at.")
SESSION_PURGED_TEXT = _rule(
    "MEMOIR-W-SESSION-PURGED-TEXT", "warning", "5.3.1",
    "A purged decision's text is the literal [purged], without why or rejected.")
SESSION_MISSING_DATE = _rule(
    "MEMOIR-W-SESSION-MISSING-DATE", "warning", "5.2",
    "Every item has its list's date field (a machine its last_seen, a history row its date); a missing date compares "
    "as the epoch and loses every merge.")
SESSION_DATE = _rule(
    "MEMOIR-E-SESSION-DATE", "error", "5.2", "Every date field is an ISO 8601 date or date-time of a real day and time.")
SESSION_OVER_CAP = _rule(
    "MEMOIR-I-SESSION-OVER-CAP", "info", "4.1", "A list is no longer than the reference implementation's cap.")
SESSION_HISTORY_DUPLICATE = _rule(
    "MEMOIR-W-SESSION-HISTORY-DUPLICATE", "warning", "4.1",
    "History has one row per session_id (v0.1.2: a session updates its own row).")

# -- the store as a whole (2, 3.4, 9) ---------------------------------------------

LINK_UNRESOLVED = _rule(
    "MEMOIR-I-LINK-UNRESOLVED", "info", "3.4", "A [[wikilink]] names an entry of the store (unresolved links are allowed).")
LINK_BY_NAME = _rule(
    "MEMOIR-I-LINK-BY-NAME", "info", "3.4",
    "A [[wikilink]] uses the link name (file name), not another entry's name: or a near spelling of it.")
LINK_NAME_SLUG = _rule(
    "MEMOIR-W-LINK-NAME-SLUG", "warning", "2", "Entry file names are lowercase slugs (a-z, 0-9, '-', '_', '.').")
LINK_NAME_PREFIX = _rule(
    "MEMOIR-W-LINK-NAME-PREFIX", "warning", "2", "Entry file names carry their type as a prefix (decision_, lesson_, ...).")
LINK_NAME_COLLISION = _rule(
    "MEMOIR-W-LINK-NAME-COLLISION", "warning", "2",
    "No two link names differ only in case (they collide on case-insensitive file systems).")
INDEX_FILE = _rule(
    "MEMOIR-I-NOT-AN-ENTRY", "info", "2",
    "A MEMORY.md index or README in the memory directory is not an entry; readers list it as an opaque one.")
OTHER_FILE = _rule(
    "MEMOIR-I-OTHER-FILE", "info", "2",
    "The memory directory holds entry files (*.md); other files and subdirectories are not read.")
NOT_UTF8 = _rule("MEMOIR-E-NOT-UTF8", "error", "3.1", "Files are UTF-8 text.")
BINARY = _rule("MEMOIR-E-BINARY", "error", "3.1", "Entry and session files are text, not binary data.")
TOO_LARGE = _rule(
    "MEMOIR-W-TOO-LARGE", "warning", "4.1",
    "An entry file is small enough to load into context; of a larger one only the first 4 MiB are checked.")
TOO_LARGE_TO_CHECK = _rule(
    "MEMOIR-E-TOO-LARGE-TO-CHECK", "error", "4.1",
    "What a file's validity rests on (a session file, an entry's frontmatter) lies within the first 4 MiB, "
    "which is all the validator reads.")
UNREADABLE = _rule("MEMOIR-E-UNREADABLE", "error", "2", "Every file of the store can be read.")
SYMLINK_OUTSIDE = _rule(
    "MEMOIR-W-SYMLINK-OUTSIDE", "warning", "2", "No symbolic link leads out of the store; such links are not followed.")
SECRET = _rule(
    "MEMOIR-W-SECRET", "warning", "9",
    "No private key, cloud credential or API token in the store (the secret itself is never printed).")
CHECK_FAILED = _rule(
    "MEMOIR-E-CHECK-FAILED", "error", "8",
    "The validator could check the file (a failure here is a bug in the validator: please report it).")


RULES: list[Rule] = [value for value in globals().values() if isinstance(value, Rule)]
RULES_BY_ID = {rule.id: rule for rule in RULES}
