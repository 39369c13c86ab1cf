"""The spec-feedback report as Markdown: one section per run report, one entry per cause.

Everything shown comes from the run reports (untrusted: made printable and
kept inside code spans or escaped) or from the kit's own requirement index
and docs/spec-ambiguities.md. Nothing is timed or dated here: the same
reports give the same bytes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from conformance import patterns
from conformance.feedback.causes import Disagreement, Group, Grouping
from conformance.feedback.sizes import Sizer
from conformance.feedback.text_checks import CLASSES, Sections, classify, dangling, verdict
from conformance.report.failure_block import value_text
from conformance.runner.requirements import RequirementIndex
from conformance.safe_text import backtick_fence, printable

ABSENT = {"$absent": True}   # how a report writes a value that is not there
SHORT = {"must": "the implementation (MUST)", "should": "neither (SHOULD)", "nowhere": "the text: points nowhere"}
COUNTED = {"must": "MUST broken", "nowhere": "pointing nowhere", "should": "SHOULD not followed", "open": "left open"}
NA_KINDS = {
    "op": "the implementation does not do the op",
    "feature": "it refused a MAY feature",
    "choice": "it made another choice the spec offers",
    "caps": "its declared caps are too small for the case",
}
DETAIL_CHARS = 400
_MARKDOWN_ACTIVE = str.maketrans({char: "\\" + char for char in "\\`*_[]<>|#"})
_PLAIN_ID = patterns.compile(r"[a-z0-9][a-z0-9._~-]*")


@dataclass(frozen=True)
class Context:
    """What the kit knows beside the reports: the requirement index, the spec's sections, the interpretations."""

    index: RequirementIndex
    sections: Sections
    ambiguity_titles: dict[str, str] | None
    corpus_digest: str


@dataclass(frozen=True)
class Section:
    """One run report, ready to render."""

    label: str
    report: dict
    grouping: Grouping
    sizer: Sizer


def code(text: str) -> str:
    """`text` as an inline code span that nothing in it can close early."""
    text = printable(str(text))
    fence = backtick_fence(text)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def cell(text: str) -> str:
    """`text` as a code span inside a table cell, where a `|` would end the cell even in a code span."""
    return code(text).replace("|", "\\|")


def plain(text: str) -> str:
    """`text` as Markdown text: printable, with every character Markdown acts on escaped."""
    return printable(str(text)).translate(_MARKDOWN_ACTIVE)


def counted(number: int, noun: str) -> str:
    """"1 vector", "2 vectors"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _value(value: object) -> str:
    return "(absent)" if value == ABSENT else value_text(value)


def _cut(text: str, limit: int = DETAIL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _ids(ids: list[str]) -> str:
    return ", ".join(code(vector_id) for vector_id in ids)


def _class_label(disagreement: Disagreement, context: Context) -> str:
    kind = classify(disagreement.key, context.index)
    if kind == "open":
        return f"the text: left open ({disagreement.ambiguity or 'no interpretation named'})"
    return SHORT[kind]


def ordered(disagreements: list[Disagreement], context: Context) -> list[Disagreement]:
    """Classes in the order of `CLASSES`, then the most vectors first, then by requirement."""
    return sorted(disagreements, key=lambda found: (CLASSES.index(classify(found.key, context.index)),
                                                    -len(found.vectors), found.key))


def render(sections: list[Section], context: Context) -> str:
    lines = [
        "# Spec feedback: where an implementation and the spec text disagree",
        "",
        "Made by `memoir-conform spec-feedback` from "
        + (f"{len(sections)} run reports" if len(sections) > 1 else "a run report")
        + ". Each entry is one disagreement, however many vectors show it: the requirement its failures "
        "are charged to and its sentence, the causes that show it (check and failing path), the smallest "
        "vector that shows it, what the implementation did, and whether the text or the implementation "
        "looks wrong (docs/spec-feedback.md says how failures are grouped and classified). Requirement "
        "sentences are quoted from this kit's requirement index.",
        "",
    ]
    if len(sections) > 1:
        lines += _overview(sections, context)
    for number, section in enumerate(sections, 1):
        lines += _section(number if len(sections) > 1 else None, section, context)
    return "\n".join(lines).rstrip("\n") + "\n"


def _results(report: dict) -> Counter:
    """How many vectors did what, before expected failures are applied (as the grouping counts them)."""
    return Counter(vector["result"] for vector in report["vectors"])


def _overview(sections: list[Section], context: Context) -> list[str]:
    lines = ["| report | graded at spec | verdict | disagreements | adapter faults | not applicable |",
             "|---|---|---|---|---|---|"]
    for number, section in enumerate(sections, 1):
        kinds = [classify(found.key, context.index) for found in section.grouping.disagreements]
        counted = ", ".join(f"{kinds.count(kind)} {COUNTED[kind]}" for kind in CLASSES if kinds.count(kind)) or "none"
        results = _results(section.report)
        lines.append(f"| {number}. {plain(section.label)} | {plain(section.report['spec'])} "
                     f"| {plain(section.report['grade']['verdict'])} | {counted} "
                     f"| {results['error']} | {results['not_applicable']} |")
    return lines + [""]


def _section(number: int | None, section: Section, context: Context) -> list[str]:
    report, grouping = section.report, section.grouping
    described = report["implementation"]["describe"]
    results = _results(report)
    title = f"{number}. {plain(section.label)}" if number else plain(section.label)
    lines = [
        f"## {title}, graded at spec {plain(report['spec'])}",
        "",
        f"- Implementation: {code(described['name'])} {code(described['version'])}, which says it implements spec "
        f"{code(described['spec'])} and claims {', '.join(map(code, described['claims'])) or 'no level'}.",
        f"- Graded by memoir-conform {code(report['kit']['version'])} against spec {code(report['spec'])}: "
        f"{plain(report['grade']['verdict'])}",
        f"- Vectors: {len(report['vectors'])} selected; {results['pass']} passed, {results['fail']} failed, "
        f"{results['error']} adapter faults, {results['not_applicable']} not applicable (before any expect-fail "
        "file is applied).",
    ]
    if report["corpus_digest"] != context.corpus_digest:
        lines.append("- The report was made with another corpus than this kit's: a vector the kit does not hold "
                     "unchanged is measured from what was sent.")
    lines += [f"- Note from the run: {plain(note)}" for note in report["summary"]["notes"]]
    lines += ["", "### Disagreements", ""]
    if not grouping.disagreements:
        lines += ["No disagreements: no vector failed.", ""]
    else:
        lines += _disagreements(grouping, section, context)
    lines += _faults(grouping.errors, section)
    lines += _not_applicable(grouping.not_applicable)
    return lines


def _disagreements(grouping: Grouping, section: Section, context: Context) -> list[str]:
    found = ordered(grouping.disagreements, context)
    causes = sum(len(disagreement.causes) for disagreement in found)
    lines = [f"{counted(grouping.failing_vectors, 'failing vector')} show {counted(len(found), 'disagreement')} "
             f"({counted(causes, 'distinct cause')}: check and failing path).", "",
             "| # | looks wrong | requirement | causes | vectors |", "|---|---|---|---|---|"]
    for number, disagreement in enumerate(found, 1):
        lines.append(f"| {number} | {plain(_class_label(disagreement, context))} | {cell(disagreement.requirement)} "
                     f"| {len(disagreement.causes)} | {len(disagreement.vectors)} |")
    lines.append("")
    quoted: dict[str, int] = {}
    broken = {}   # requirement -> the first entry where it fails under every reading (MUST or SHOULD)
    for number, disagreement in enumerate(found, 1):
        if classify(disagreement.key, context.index) in ("must", "should"):
            broken.setdefault(disagreement.requirement, number)
        lines += _entry(number, disagreement, section, context, quoted, broken)
    return lines


def _entry(number: int, disagreement: Disagreement, section: Section, context: Context,
           quoted: dict[str, int], broken: dict[str, int]) -> list[str]:
    """One disagreement; a requirement's sentence is quoted at its first entry only (`quoted`), and an
    open question points to the entry where the same requirement fails under every reading (`broken`)."""
    rid = disagreement.requirement
    requirement = context.index.get(rid)
    lines = [f"#### {number}. {plain(rid)}: {plain(_class_label(disagreement, context))}", "",
             f"**Looks wrong:** {plain(verdict(disagreement.key, context.index, context.ambiguity_titles))}.", ""]
    if classify(disagreement.key, context.index) == "open" and rid in broken:
        lines += [f"{code(rid)} also fails under every reading of the text (entry {broken[rid]}): these "
                  "failures may have that root rather than the open question.", ""]
    if requirement is not None and rid in quoted:
        lines += [f"**Requirement** {code(rid)}: quoted in entry {quoted[rid]}.", ""]
    elif requirement is not None:
        quoted[rid] = number
        lines += [f"**Requirement** {code(rid)} ({requirement.keyword}, spec {requirement.section}, "
                  f"level {requirement.level}, since {requirement.since}):", "", f"> {plain(requirement.text)}", ""]
    also = disagreement.also_cites
    if also:
        lines += ["**Its checks also check:** " + ", ".join(
            f"{code(other)} ({context.index.get(other).keyword})" if context.index.get(other)
            else f"{code(other)} (not in the index)" for other in also), ""]
    pointing_nowhere = [problem for cited in [rid, *also] if context.index.get(cited)
                        for problem in dangling(context.index.get(cited), context.sections)]
    if pointing_nowhere:
        lines += ["**In the text:** " + "; ".join(plain(problem) for problem in pointing_nowhere) + ".", ""]
    lines += [f"**Vectors ({len(disagreement.vectors)}):** {_ids(disagreement.vectors)}", ""]
    if disagreement.folded:
        lines += [f"**Derived vectors folded in with their base ({len(disagreement.folded)}):** "
                  f"{_ids(disagreement.folded)}", ""]
    by_id = {vector["id"]: vector for vector in section.report["vectors"]}
    smallest_of = {id(cause): section.sizer.smallest([by_id[vector_id] for vector_id in cause.vectors])
                   for cause in disagreement.causes}
    lines += ["**Causes** (how the failures show):", "", "| check at | vectors | smallest vector |", "|---|---|---|"]
    lines += [f"| {cell(cause.key.check)} at {cell(cause.key.path_shape or '/')} | {len(cause.evidence)} "
              f"| {cell(smallest_of[id(cause)]['id'])} |" for cause in disagreement.causes]
    lines.append("")
    smallest = section.sizer.smallest(list(smallest_of.values()))
    return lines + _evidence(smallest, disagreement.evidence(smallest["id"]), section.sizer)


def _evidence(vector: dict, failure: dict, sizer: Sizer) -> list[str]:
    size = sizer.size(vector)
    measured = (f"{counted(size.steps, 'step')}, {counted(size.files, 'file')}, {counted(size.bytes, 'byte')}"
                + (" sent; the kit's corpus does not hold it" if size.from_sent else ""))
    sent = ", ".join(code(request["op"]) for request in vector["sent"]) or "nothing"
    lines = [f"**Smallest vector:** {code(vector['id'])}, {plain(vector['title'])} ({measured}; "
             f"`memoir-conform vectors show {vector['id']}` prints it whole)" if _is_plain_id(vector["id"]) else
             f"**Smallest vector:** {code(vector['id'])}, {plain(vector['title'])} ({measured})", "",
             f"- sent: {sent}",
             f"- failed: {code(failure['check'])} at {code(failure['path'] or '/')}",
             f"- expected: {code(_value(failure['expected']))}",
             f"- the implementation gave: {code(_value(failure['actual']))}",
             f"- message: {code(_cut(failure['message']))}"]
    if failure.get("note"):
        lines.append(f"- note: {code(_cut(failure['note']))}")
    return lines + [""]


def _is_plain_id(vector_id: str) -> bool:
    """An id the kit's corpus could have (`[a-z0-9][a-z0-9._~-]*`), safe to show in a command line."""
    return _PLAIN_ID.fullmatch(vector_id) is not None


def _faults(groups: list[Group], section: Section) -> list[str]:
    lines = ["### Adapter faults", ""]
    if not groups:
        return lines + ["None: the adapter answered every request it was sent.", ""]
    lines += ["The adapter crashed, hung or broke the protocol on these vectors: they say nothing about the text.",
              "", "| fault | op | vectors |", "|---|---|---|"]
    lines += [f"| {cell(group.kind)} | {cell(group.subject)} | {len(group.details)} |" for group in groups]
    lines.append("")
    by_id = {vector["id"]: vector for vector in section.report["vectors"]}
    for group in groups:
        smallest = section.sizer.smallest([by_id[vector_id] for vector_id in group.vectors])
        lines += [f"- {code(group.kind)} on {code(group.subject)}, {counted(len(group.details), 'vector')}: {_ids(group.vectors)}"
                  + (f"; folded in: {_ids(sorted(group.folded))}" if group.folded else ""),
                  f"  - e.g. {code(smallest['id'])}: {code(_cut(group.details[smallest['id']]))}"]
    return lines + [""]


def _not_applicable(groups: list[Group]) -> list[str]:
    lines = ["### Not applicable", ""]
    if not groups:
        return lines + ["None: every vector applied to the implementation.", ""]
    lines += ["| why | op | vectors |", "|---|---|---|"]
    lines += [f"| {plain(NA_KINDS.get(group.kind, group.kind))} | {cell(group.subject) if group.subject else ''} "
              f"| {len(group.details)} |" for group in groups]
    lines.append("")
    for group in groups:
        subject = f" ({code(group.subject)})" if group.subject else ""
        lines.append(f"- {plain(NA_KINDS.get(group.kind, group.kind))}{subject}: {_ids(group.vectors)}"
                     + (f"; folded in: {_ids(sorted(group.folded))}" if group.folded else ""))
    return lines + [""]

