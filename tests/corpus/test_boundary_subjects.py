"""Boundary subjects: members come from the protocol schema and the caps, so a new op or list shows as uncovered."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from conformance import resources
from conformance.corpus import boundary_subjects
from conformance.corpus.boundaries import TAG_PREFIX, load_boundaries
from conformance.corpus.boundary_subjects import Subject, compute, members
from conformance.model.session import DEFAULT_CAPS
from conformance.runner.vectors import Vector


@pytest.fixture(scope="module")
def schema():
    return resources.load_schema(boundary_subjects.PROTOCOL_SCHEMA)


def _vector(vid, op, tags, input, expect, ambiguity=None):
    return Vector(id=vid, title="t", sections=("5.1",), requirements=("S5.1-same-identity-same-item",), level="writer",
                  tags=tuple(tags), ambiguity=ambiguity, op=op, input=input, expect=tuple(expect), digest="d",
                  file="vectors/x.json", root=Path("."))


def test_members_are_read_from_the_protocol_schema_and_the_caps(schema):
    assert members("ops-with-text-args", schema) == [
        "add_decision", "add_goal", "add_next_action", "add_question", "complete_goal", "complete_next_action",
        "hide_decision", "record_session"]
    assert members("entry-edit-ops", schema) == ["update_entry"]
    assert members("keyed-lists") == sorted(DEFAULT_CAPS)


def test_an_op_added_with_a_text_argument_is_a_member_without_vectors(schema):
    grown = copy.deepcopy(schema)
    grown["$defs"]["add_note.args"] = {"$ref": "#/$defs/store_text.args"}
    subject = Subject("ops", "d", "ops-with-text-args", ("text-neighbour",))
    cases = {case.member: case for case in compute([subject], [], lambda kind: TAG_PREFIX + kind, grown)}
    assert "add_note" in cases and not cases["add_note"].covered
    assert "store_text" not in cases


def test_a_member_is_reached_by_a_deciding_vector_of_its_kind_only(schema):
    subject = Subject("ops", "d", "ops-with-text-args", ("text-neighbour",))
    write = {"steps": [{"op": "complete_goal", "args": {"text": "x"}}]}
    check = [{"path": "/live/goals", "identities": []}]
    deciding = _vector("a", "write", ["boundary-text-neighbour"], write, check)
    untagged = _vector("b", "write", [], write, check)
    advisory = _vector("c", "write", ["boundary-text-neighbour", "ambiguous"], write, check, ambiguity="AMB-X")
    cases = {case.member: case for case in compute([subject], [deciding, untagged, advisory],
                                                   lambda kind: TAG_PREFIX + kind, schema)}
    assert cases["complete_goal"].vectors == ("a",)
    assert not cases["add_goal"].covered


def test_a_list_is_reached_by_a_check_path_or_by_its_input():
    subject = Subject("lists", "d", "keyed-lists", ("long-text",))
    by_path = _vector("a", "merge_sessions", ["boundary-long-text"], {"local": {}, "remote": {}},
                      [{"path": "/session/history", "count": 1}])
    by_input = _vector("b", "read_store", ["boundary-long-text"],
                       {"store": {"files": {"session.json": {"current": {"parked_actions": []}}}}},
                       [{"path": "/session/live/next_actions", "identities": []}])
    cases = {case.member: case for case in compute([subject], [by_path, by_input], lambda kind: TAG_PREFIX + kind)}
    assert cases["history"].vectors == ("a",)
    assert cases["parked_actions"].vectors == ("b",)
    assert cases["next_actions"].vectors == ("b",)
    assert not cases["goals"].covered


def test_the_index_names_known_member_sources_and_kinds():
    index, problems = load_boundaries()
    assert problems == []
    names = {kind.name for kind in index.kinds}
    assert index.subjects and all(set(subject.kinds) <= names for subject in index.subjects)
    with pytest.raises(ValueError):
        members("every-thing")


def test_a_subject_with_unknown_members_or_kinds_is_a_problem(tmp_path):
    path = tmp_path / "boundaries.json"
    path.write_text('{"kinds": [{"name": "k", "description": "d"}], "applies": {}, "subjects": ['
                    '{"name": "s", "description": "d", "members": "nothing", "kinds": ["k"]},'
                    '{"name": "t", "description": "d", "members": "keyed-lists", "kinds": ["k", "q"]},'
                    '{"name": "u"}]}', encoding="utf-8")
    index, problems = load_boundaries(path)
    messages = " | ".join(problem.message for problem in problems)
    assert "members must be one of" in messages and "unknown kind(s): q" in messages and "a subject is" in messages
    assert [subject.name for subject in index.subjects] == ["t"] and index.subjects[0].kinds == ("k",)
