"""The boundary vectors hold for any caps an implementation may declare.

Caps are the implementation's choice (spec 4.1), so every boundary vector
(tagged `boundary-...`) and every regression vector states its sizes with
COUNT expressions over the declared caps. Each runs here against the
reference model, in-process, declaring other legal cap sets: small ones,
the smallest the spec allows (every cap 1, parked one larger than live),
and larger ones. (The reference values are run by test_corpus_against_model.)
A vector whose case needs more room says so in `min_caps`, and is not
applicable (never failed) with caps below it.
"""

from __future__ import annotations

import pytest

from conformance import reference
from conformance.corpus.boundaries import TAG_PREFIX, load_boundaries
from conformance.model.session import DEFAULT_CAPS
from conformance.protocol.messages import Describe
from conformance.runner.execute import NA_CAPS, NOT_APPLICABLE, PASS, run_vector
from conformance.runner.implementations import ModelImplementation

CAP_SETS = {
    "small": {"goals": 2, "next_actions": 3, "parked_actions": 10, "open_questions": 2, "decisions": 4,
              "completed_actions": 12, "completed_goals": 12, "history": 6},
    "smallest": {"goals": 1, "next_actions": 1, "parked_actions": 2, "open_questions": 1, "decisions": 1,
                 "completed_actions": 1, "completed_goals": 1, "history": 1},
    "large": {"goals": 5, "next_actions": 12, "parked_actions": 30, "open_questions": 7, "decisions": 15,
              "completed_actions": 60, "completed_goals": 40, "history": 35},
}


class CappedModel(ModelImplementation):
    """The reference model declaring (and using) other caps."""

    def __init__(self, caps: dict):
        super().__init__()
        self.context.caps = {**DEFAULT_CAPS, **caps}

    def describe(self) -> Describe:
        return Describe.from_json({**reference.describe(), "caps": dict(self.context.caps)})


def test_boundary_tags_name_known_kinds_and_checks_are_of_one_strength(corpus, requirements):
    kinds = {kind.tag for kind in load_boundaries()[0].kinds}
    strength = {requirement.id: requirement.strength for requirement in requirements}
    for vector in corpus.vectors:
        tags = {tag for tag in vector.tags if tag.startswith(TAG_PREFIX)}
        assert tags <= kinds, (vector.id, tags - kinds)
        if tags and not vector.ambiguous:
            # A deciding boundary vector checks MUSTs only: no SHOULD rides along.
            assert {strength[rid] for rid in vector.requirements} == {"MUST"}, vector.id


def cap_independent(vector) -> bool:
    return vector.file.split("/")[1] in ("boundary", "regressions")


@pytest.mark.parametrize("name", CAP_SETS)
def test_boundary_vectors_pass_with_other_legal_caps(name, corpus, tmp_path):
    model = CappedModel(CAP_SETS[name])
    described = model.describe()
    failing = {}
    for vector in filter(cap_independent, corpus.vectors):
        result = run_vector(vector, model, described, tmp_path)
        # A case that needs more room than these caps says so in `min_caps`: not applicable, never failed.
        too_small = any(CAP_SETS[name].get(cap, DEFAULT_CAPS[cap]) < least for cap, least in vector.min_caps.items())
        if too_small and result.outcome == NOT_APPLICABLE and result.na_kind == NA_CAPS:
            continue
        if result.outcome != PASS:
            failing[vector.id] = result.detail or [failure.to_json() for failure in result.failures]
    assert failing == {}
