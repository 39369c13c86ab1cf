"""The requirement index (`vectors/requirements.json`) as the runner grades with it.

The index itself (typed `Requirement` records, loading, sanity checks) is
`conformance.corpus.requirements`; this module is the runner's view of it.
The runner uses the index to tell MUST-level vectors (which decide
conformance levels) from SHOULD-level ones (reported only), to keep a
`--spec 0.1` run to the requirements that existed in v0.1, and to quote a
requirement's text next to a failure. A missing index, or a vector naming a
requirement the index lacks or cannot read, counts as MUST since v0.1: the
strict reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conformance import resources
from conformance.corpus.requirements import Requirement, by_id, load_index, version_key

__all__ = ["Requirement", "RequirementIndex", "index_for", "load_requirements", "version_key"]


@dataclass(frozen=True)
class RequirementIndex:
    by_id: dict[str, Requirement]
    problem: str | None = None   # why (part of) the index could not be read

    def get(self, requirement_id: str) -> Requirement | None:
        return self.by_id.get(requirement_id)

    def is_should_level(self, requirement_ids) -> bool:
        """True when every requirement is a known non-mandatory one (SHOULD, SHOULD NOT)."""
        found = [self.by_id.get(rid) for rid in requirement_ids]
        return bool(found) and all(req is not None and not req.mandatory for req in found)

    def existed_in(self, requirement_ids, spec: str) -> bool:
        """True when every requirement existed in spec version `spec`."""
        wanted = version_key(spec)
        return all(
            req is None or version_key(req.since) <= wanted
            for req in map(self.by_id.get, requirement_ids)
        )


def load_requirements(path: Path) -> RequirementIndex:
    """The index at `path`; empty (everything MUST since 0.1) when absent, and
    without its unusable entries when some are broken."""
    if not path.exists():
        return RequirementIndex({})
    requirements, problems = load_index(path)
    problem = None
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        problem = f"{problems[0]}{more}; requirements that cannot be read count as MUST"
    return RequirementIndex(by_id(requirements), problem)


def index_for(extra_roots) -> RequirementIndex:
    """The bundled index, with the requirements.json of each extra vectors directory added."""
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    for root in extra_roots:
        extra = load_requirements(Path(root) / "requirements.json")
        if extra.by_id:
            index = RequirementIndex({**index.by_id, **extra.by_id}, index.problem or extra.problem)
    return index
