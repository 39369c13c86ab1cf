"""The rule catalogue of the REME vault validator (the REME memory protocol).

Every rule names the section of the protocol it comes from. Ids are
permanent: a rule may be reworded, never repurposed.
"""

from __future__ import annotations

from conformance.validator.core.findings import Rule

FORMAT = "reme-vault"

_LAYOUT = "reme: Vault layout"
_AXES = "reme: Frontmatter — 4 schema axes"
_CONDITIONAL = "reme: Conditional fields"
_LINKS = "reme: Cross-file references"
_UNIQUENESS = "reme: Wikilink uniqueness"
_STATUS = "reme: Status state machine"


def _rule(id: str, severity: str, section: str, summary: str) -> Rule:
    return Rule(id=id, severity=severity, section=section, summary=summary, format=FORMAT)


READ = _rule("REME-E-READ", "error", _LAYOUT,
             "The vault is a readable directory and its memory files are UTF-8 text within the size limit.")
SYMLINK = _rule("REME-W-SYMLINK", "warning", _LAYOUT,
                "The vault holds no symbolic links; the validator never follows them (least of all out of the vault).")
PATH_TEMPLATE = _rule("REME-E-PATH-TEMPLATE", "error", _LAYOUT,
                      "Memories sit at topics/{folder}/{name}.md or events/{YYYY-MM-DD}/{name}/{name}.md, and every event folder has its index.")
NOT_A_MEMORY = _rule("REME-I-NOT-A-MEMORY", "info", _LAYOUT,
                     "A markdown file outside topics/, events/ and Archive/ is not a memory and is not checked.")
FRONTMATTER = _rule("REME-E-FRONTMATTER", "error", _AXES,
                    "A memory's frontmatter is a closed, well-formed YAML mapping without anchors or aliases.")
NO_FRONTMATTER = _rule("REME-E-NO-FRONTMATTER", "error", _AXES,
                       "Every memory (topic or event index) has frontmatter declaring its axes.")
AXIS_MISSING = _rule("REME-E-AXIS-MISSING", "error", _AXES,
                     "Every memory declares lifecycle, scope, source and role (directly, or through a legacy category).")
AXIS_VALUE = _rule("REME-E-AXIS-VALUE", "error", _AXES,
                   "Axis values are from the protocol's table (lifecycle streaming/evolving/frozen, scope instance/class, source auto/curated/derived, role observation/claim/question/profile/concept/method/reference/fundamentals).")
LIFECYCLE_PATH = _rule("REME-W-LIFECYCLE-PATH", "warning", _AXES,
                       "lifecycle agrees with where the file is: events are streaming, topics evolving, materials frozen.")
LEGACY_CATEGORY = _rule("REME-W-LEGACY-CATEGORY", "warning", _AXES,
                        "A memory does not rely on the legacy category field for its axes; new writes set the axes directly.")
LEGACY_CATEGORY_REDUNDANT = _rule("REME-I-LEGACY-CATEGORY", "info", _AXES,
                                  "A legacy category beside explicit axes is ignored (the axes win).")
CONFIDENCE = _rule("REME-E-CONFIDENCE", "error", _CONDITIONAL,
                   "confidence is one of ⏳ ✅ ❌, and is set on every role claim or question memory.")
STATUS_VALUE = _rule("REME-E-STATUS-VALUE", "error", _CONDITIONAL,
                     "status is one of active, distilled, archived.")
STATUS_NOT_STREAMING = _rule("REME-W-STATUS-NOT-STREAMING", "warning", _CONDITIONAL,
                             "status is set only on lifecycle: streaming memories (others ignore it).")
ORIGIN_SESSION = _rule("REME-W-ORIGIN-SESSION", "warning", _CONDITIONAL,
                       "A source: auto memory names the session that captured it in originSessionId.")
MATERIAL_UNLISTED = _rule("REME-W-MATERIAL-UNLISTED", "warning", _LAYOUT,
                          "Every material in an event folder is listed under ## Materials in the event index.")
MATERIAL_MISSING = _rule("REME-E-MATERIAL-MISSING", "error", _LAYOUT,
                         "Every material listed under ## Materials exists in the vault.")
WIKILINK_AMBIGUOUS = _rule("REME-E-WIKILINK-AMBIGUOUS", "error", _LINKS,
                           "A [[wikilink]] resolves to exactly one file (the folder topic wins over same-stem files).")
WIKILINK_DANGLING = _rule("REME-W-WIKILINK-DANGLING", "warning", _LINKS,
                          "A [[wikilink]] resolves to a file of the vault.")
STEM_AMBIGUOUS = _rule("REME-W-STEM-AMBIGUOUS", "warning", _UNIQUENESS,
                       "No two memories share a file stem unless a folder topic of that name decides [[stem]].")
STATUS_REVERSE = _rule("REME-E-STATUS-REVERSE", "error", _STATUS,
                       "Between two snapshots (--since), status only moves forward: active -> distilled -> archived.")
STATUS_SKIP = _rule("REME-E-STATUS-SKIP", "error", _STATUS,
                    "Between two snapshots (--since), status does not skip a step (active -> archived directly).")

RULES: list[Rule] = [
    READ, SYMLINK, PATH_TEMPLATE, NOT_A_MEMORY,
    FRONTMATTER, NO_FRONTMATTER, AXIS_MISSING, AXIS_VALUE, LIFECYCLE_PATH,
    LEGACY_CATEGORY, LEGACY_CATEGORY_REDUNDANT,
    CONFIDENCE, STATUS_VALUE, STATUS_NOT_STREAMING, ORIGIN_SESSION,
    MATERIAL_UNLISTED, MATERIAL_MISSING,
    WIKILINK_AMBIGUOUS, WIKILINK_DANGLING, STEM_AMBIGUOUS,
    STATUS_REVERSE, STATUS_SKIP,
]
