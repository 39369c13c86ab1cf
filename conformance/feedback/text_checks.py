"""What the spec text says about a cause, and whether the text or the implementation looks wrong.

A cause (`causes.CauseKey`) is classified by the strength of its check:

- `must`: the check holds under every reading of a MUST, MUST NOT or
  REQUIRED: the implementation looks wrong;
- `should`: it checks only SHOULDs: the implementation departs from a
  recommendation the text makes but does not demand;
- `open`: it rests on an interpretation (an AMB-... of
  docs/spec-ambiguities.md): the text leaves the rule open, and the
  implementation read it another way than the kit did;
- `nowhere`: it is charged to a requirement the index does not have, so
  there is no sentence of the spec to hold the implementation to.

Independently of that, the sentence of a requirement may cite a section the
spec does not have (a cross-reference that points nowhere). Which sections
exist is read from the spec's headings when its text is given; otherwise a
section exists when the requirement index has a requirement in it or under
it, which finds a dangling reference to a section that has no requirement
anywhere but cannot tell a section without requirements from a missing one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conformance import patterns
from conformance.corpus.requirements import Requirement, section_key
from conformance.feedback.causes import CauseKey
from conformance.runner.requirements import RequirementIndex

CLASSES = ("must", "nowhere", "should", "open")   # the order of a report's entries
_HEADING = patterns.compile(r"(?m)^#{1,6}[ \t]+(?:([0-9]+(?:\.[0-9]+)*)\.?[ \t]|Appendix[ \t]+([A-Z])(?:[^\pL\pN_]|$))")
# "section 8", "Appendix A", or a dotted number (3.3, 5.3.1) not part of a version (v0.1.2):
# after the start or a character that is neither a letter, a digit nor a dot, and (checked
# by `_reference_ends`, RE2 having no look-ahead) before neither a dot nor a digit.
_SPACE = patterns.PY_SPACE
_REFERENCE = patterns.compile(rf"(?:^|[^\pL\pN_.])(?:[Ss]ection[{_SPACE}]+([0-9]+(?:\.[0-9]+)*)"
                              rf"|Appendix[{_SPACE}]+([A-Z])|([0-9]+\.[0-9]+(?:\.[0-9]+)*))")


@dataclass(frozen=True)
class Sections:
    """The sections of the spec, and where that knowledge comes from."""

    known: frozenset[str]
    absence: str     # why a section not in `known` is taken to be missing

    def __contains__(self, section: str) -> bool:
        return section in self.known


def sections_from_spec(text: str) -> Sections:
    found = {numbered or appendix for numbered, appendix in _HEADING.findall(text)}
    return Sections(frozenset(found), "the spec has no heading for it")


def sections_from_index(index: RequirementIndex) -> Sections:
    """Every section that has a requirement, with its parents (5.3.1 gives 5.3 and 5)."""
    found = set()
    for requirement in index.by_id.values():
        parts = requirement.section.split(".")
        found.update(".".join(parts[:length]) for length in range(1, len(parts) + 1))
    return Sections(frozenset(found), "no requirement of the index is in it or under it")


def read_sections(spec_text: Path | None, index: RequirementIndex) -> Sections | str:
    """The spec's sections from its text when given, else from the index; or why the text cannot be read."""
    if spec_text is None:
        return sections_from_index(index)
    try:
        sections = sections_from_spec(Path(spec_text).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return f"{spec_text}: cannot read the spec text ({error})"
    if not sections.known:
        return f"{spec_text}: no numbered section headings (`## 5.3 ...`): is it the memoir spec?"
    return sections


def cited_sections(text: str) -> list[str]:
    """The sections a sentence cites ("(3.3)", "section 8", "Appendix A"), in the order of the spec."""
    found = {match.group(1) or match.group(2) or match.group(3)
             for match in _REFERENCE.finditer(text) if _reference_ends(text, match)}
    return sorted(found, key=section_key)


def _reference_ends(text: str, match) -> bool:
    following = text[match.end():match.end() + 1]
    if following == "." or following.isdecimal():
        return False
    return not (match.group(2) and (following.isalnum() or following == "_"))  # "Appendix Ab" is a word


def dangling(requirement: Requirement, sections: Sections) -> list[str]:
    """What in a requirement points nowhere: its own section, or a section its sentence cites."""
    problems = []
    if requirement.section not in sections:
        problems.append(f"{requirement.id} is filed under section {requirement.section}, "
                        f"which points nowhere ({sections.absence})")
    problems.extend(f"the sentence of {requirement.id} cites section {cited}, which points nowhere ({sections.absence})"
                    for cited in cited_sections(requirement.text) if cited not in sections)
    return problems


def classify(key: CauseKey, index: RequirementIndex) -> str:
    if index.get(key.requirement) is None:
        return "nowhere"
    if key.strength == "advisory":
        return "open"
    return "should" if key.strength == "should" else "must"


def verdict(key: CauseKey, index: RequirementIndex, ambiguity_titles: dict[str, str] | None) -> str:
    """One sentence: whether the text or the implementation looks wrong, and why."""
    kind = classify(key, index)
    if kind == "nowhere":
        return (f"the text, or the kit: the check is charged to {key.requirement}, which the requirement index does "
                "not have, so no sentence of the spec backs it (a cross-reference that points nowhere)")
    if kind == "open":
        title = (ambiguity_titles or {}).get(key.ambiguity or "")
        about = f"{key.ambiguity} ({title})" if title else (key.ambiguity or "an interpretation")
        return (f"the text: it leaves this open ({about}, docs/spec-ambiguities.md); the implementation reads it "
                "another way than the kit, which the verdict does not count against it")
    keyword = index.get(key.requirement).keyword
    if kind == "should":
        return f"neither: the implementation departs from a {keyword}, which the text recommends but does not demand"
    return f"the implementation: it breaks a {keyword} requirement, under every reading of the text"
