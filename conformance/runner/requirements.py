"""The requirement index (`vectors/requirements.json`) as the runner needs it.

Each requirement is one MUST or SHOULD of the spec, with the spec version
that introduced it. The runner uses the index to tell MUST-level vectors
(which decide conformance levels) from SHOULD-level ones (reported only),
to keep a `--spec 0.1` run to the requirements that existed in v0.1, and
to quote a requirement's text next to a failure. A missing index, or a
vector naming a requirement the index lacks, counts as MUST since v0.1:
the strict reading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# Keywords that do not make a behaviour mandatory (RFC 2119).
NOT_MANDATORY = frozenset({"SHOULD", "SHOULD NOT", "RECOMMENDED", "NOT RECOMMENDED", "MAY", "OPTIONAL"})


@dataclass(frozen=True)
class Requirement:
    id: str
    section: str
    keyword: str
    since: str
    text: str

    @property
    def mandatory(self) -> bool:
        return self.keyword.upper() not in NOT_MANDATORY


def version_key(version: str) -> tuple[int, ...]:
    """'0.1.2' -> (0, 1, 2); '0.1' == '0.1.0'."""
    parts = [int(part) for part in version.split(".")]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


@dataclass(frozen=True)
class RequirementIndex:
    by_id: dict[str, Requirement]
    problem: str | None = None   # why the index could not be read, if it could not

    def get(self, requirement_id: str) -> Requirement | None:
        return self.by_id.get(requirement_id)

    def is_should_level(self, requirement_ids) -> bool:
        """True when every requirement is a known non-mandatory one (SHOULD, MAY)."""
        found = [self.by_id.get(rid) for rid in requirement_ids]
        return bool(found) and all(req is not None and not req.mandatory for req in found)

    def existed_in(self, requirement_ids, spec: str) -> bool:
        """True when every requirement existed in spec version `spec`."""
        wanted = version_key(spec)
        for rid in requirement_ids:
            req = self.by_id.get(rid)
            if req is not None and version_key(req.since) > wanted:
                return False
        return True


def load_requirements(path: Path) -> RequirementIndex:
    """The index at `path`; an empty index (everything MUST since 0.1) when absent or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return RequirementIndex({})
    except (OSError, ValueError) as error:
        return RequirementIndex({}, f"{path.name} unreadable ({error}); every requirement counts as MUST")
    if not isinstance(data, list):
        return RequirementIndex({}, f"{path.name} is not a list; every requirement counts as MUST")
    by_id = {}
    for row in data:
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            continue
        since = row.get("since") if isinstance(row.get("since"), str) else "0.1"
        try:
            version_key(since)
        except ValueError:
            since = "0.1"
        by_id[row["id"]] = Requirement(
            id=row["id"],
            section=str(row.get("section", "")),
            keyword=str(row.get("keyword", "MUST")),
            since=since,
            text=str(row.get("text", "")),
        )
    return RequirementIndex(by_id)
