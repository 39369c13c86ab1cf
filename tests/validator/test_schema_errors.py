"""The schema error finder finds what jsonschema finds, in its order, or says it is not sure.

`conformance.schema_errors` lets the validator do without jsonschema for
entries, and for sessions without departures, and the runner for vector
files and replicas that are valid: an error missed would hide a finding or
let a broken vector run, one too many would invent one. Its errors are
compared with jsonschema's on the vectors, on the protocol messages of a
run of the reference adapter, on the vectors' sessions and entries, and on
documents derived from them by hypothesis, one change at a time.
"""

from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import linear_schema
from conformance.model.entry import read_entry
from conformance.model.session import sanitize
from conformance.mutants.evaluate import reference_command
from conformance.protocol import messages
from conformance.resources import load_schema, vectors_dir
from conformance.runner.execute import run_vector
from conformance.runner.implementations import AdapterImplementation
from conformance.runner.vectors import load_corpus
from conformance.schema_errors import error_finder

SCHEMAS = ("entry.schema.json", "session.schema.json", "vector.schema.json")
PROTOCOL = "adapter-protocol.schema.json"


@lru_cache(maxsize=None)
def _judges(name: str):
    """The finder and jsonschema for a schema file, or for one definition of it (`file#definition`)."""
    file, _, definition = name.partition("#")
    schema = load_schema(file)
    if definition:
        schema = {**schema, "$ref": f"#/$defs/{definition}"}
    return error_finder(schema), linear_schema.validator(schema)


def _jsonschema_errors(validator, document) -> list[tuple]:
    return [(tuple(error.absolute_path), error.validator, error.validator_value,
             error.message.split("'")[1] if error.validator == "required" else None)
            for error in validator.iter_errors(document)]


def _agrees(name: str, document: object) -> bool | None:
    """Whether `document` is valid by the error finder (None: not sure), after checking
    that its errors are jsonschema's, in jsonschema's order, where it gives them."""
    find, validator = _judges(name)
    found = find(document)
    if found is None:
        return None
    assert [tuple(error) for error in found] == _jsonschema_errors(validator, document), document
    return not found


@lru_cache(maxsize=1)
def _vector_documents() -> dict[str, list]:
    """The sessions (anything with `version` and `current`) and the entry fields the vectors hold."""
    sessions, entries, vector_files = [], [], []

    def walk(value):
        if isinstance(value, dict):
            if "version" in value and "current" in value:
                sessions.append(value)
            for key, item in value.items():
                if isinstance(item, str) and str(key).endswith(".md"):
                    entries.append(read_entry(key[:-3], item)["fields"])
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(vectors_dir().rglob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        walk(document)
        if isinstance(document, dict) and "vectors" in document:
            vector_files.append(document)
    # A vector's session is often partial (the runner fills in the rest): completed, most are valid.
    completed = [{"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-02T00:00:00Z", **sanitize(session)}
                 for session in sessions]
    # Each vector alone in its file: every vector is judged, and a change to one is seen without hundreds around it.
    single = [{**document, "vectors": [vector]} for document in vector_files for vector in document["vectors"]]
    return {"session.schema.json": sessions + completed, "entry.schema.json": entries, "vector.schema.json": single}


@lru_cache(maxsize=1)
def _protocol_messages() -> dict[str, list]:
    """What the runner checked of its requests and the reference adapter's answers (every message is
    checked) while one vector of each op ran, by the definition of the protocol schema it was checked with."""
    corpus = load_corpus([vectors_dir()])
    one_of_each = list({vector.op: vector for vector in reversed(corpus.vectors)}.values())
    seen: dict[str, list] = {}
    finder = messages._error_finder

    def recording(definition):
        def find(instance):
            seen.setdefault(definition, []).append(json.loads(json.dumps(instance)))
            return finder(definition)(instance)
        return find

    with tempfile.TemporaryDirectory() as workdir:
        implementation = AdapterImplementation(reference_command(), workdir=Path(workdir))
        try:
            messages._error_finder = recording
            described = implementation.describe()
            for vector in one_of_each:
                run_vector(vector, implementation, described, Path(workdir))
        finally:
            messages._error_finder = finder
            implementation.close()
    return {f"{PROTOCOL}#{definition}": found for definition, found in seen.items()}


def test_the_protocol_messages_of_a_run_are_judged_as_jsonschema_judges_them():
    found = _protocol_messages()
    assert {f"{PROTOCOL}#request", f"{PROTOCOL}#response", f"{PROTOCOL}#describe.result"} <= set(found)
    for name, documents in found.items():
        # The runner asks jsonschema of no message an adapter that keeps the protocol sends.
        assert all(_agrees(name, document) is True for document in documents), name


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_protocol_message_one_change_from_a_run_s_is_judged_as_jsonschema_judges_it(data):
    found = _protocol_messages()
    name = data.draw(st.sampled_from(sorted(found)), label="definition")
    document = data.draw(st.sampled_from(found[name]), label="document")
    path = data.draw(st.sampled_from(list(_paths(document))), label="path")
    delete = bool(path) and data.draw(st.booleans(), label="delete")
    value = None if delete else data.draw(_values(PROTOCOL), label="value")
    _agrees(name, _changed(document, path, value, delete))


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_vectors_documents_are_judged_as_jsonschema_judges_them(name):
    documents = _vector_documents()[name]
    verdicts = [_agrees(name, document) for document in documents]
    assert len(documents) > 100
    # Many are valid, and the finder must be sure of it for it to save anything.
    assert verdicts.count(True) > len(documents) / 3
    if name != "session.schema.json":  # the validator asks jsonschema of no entry, the runner of no valid vector
        assert None not in verdicts


def test_a_schema_with_a_keyword_it_does_not_know_is_never_judged():
    find = error_finder({"type": "object", "patternProperties": {"^x": {"type": "string"}}})
    assert find({}) is None and find({"x": 1}) is None


@pytest.mark.parametrize("schema, document, valid", [
    ({"type": "integer"}, 2.0, None),          # jsonschema takes 2.0 for an integer
    ({"type": "integer"}, True, False),        # and a boolean for none
    ({"const": True}, 1, False),               # True is not 1 to jsonschema
    ({"const": 1}, 1.0, None),                 # but 1.0 is 1
    ({"enum": ["a", ["b"]]}, ["b"], None),     # lists compare item by item
    ({"minimum": 1}, True, True),              # a boolean is no number
    ({"if": {"const": 1.5}, "then": False}, 1.5, None),
    ({"properties": {"a": {"$ref": "#/$defs/d"}}, "$defs": {"d": {"type": "string"}}}, {"a": 1}, False),
    # Extra keys are visited in a set's order: two with errors could come either way.
    ({"additionalProperties": {"type": "string"}}, {"a": 1, "b": 2}, None),
    ({"additionalProperties": {"type": "string"}, "properties": {"b": {}}}, {"a": 1, "b": 2}, False),
    ({"additionalProperties": False, "properties": {"b": {}}}, {"a": 1, "c": 2}, False),  # one error for both
    ({"anyOf": [{"const": 1.5}, {"type": "number"}]}, 1.5, True),   # one sure branch is enough
    ({"anyOf": [{"const": 1.5}, {"type": "string"}]}, 1.5, None),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3, False),    # valid under both
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, "a", True),
    ({"not": {"type": "string"}}, "a", False),
    ({"not": {"const": 1}}, 1.0, None),
    ({"uniqueItems": True}, ["a", "a"], False),
    ({"uniqueItems": True}, [1, True], None),                        # distinct to jsonschema, equal to Python
    ({"uniqueItems": True}, [1, "1", 2], True),
    ({"uniqueItems": True}, [2, 2], False),
    ({"contains": {"const": "x"}}, ["a", "x"], True),
    ({"contains": {"const": "x"}}, [], False),
    ({"propertyNames": {"pattern": "^[a-z]+\\z"}}, {"ok": 1, "Not": 2, "no!": 3}, False),  # errors at the mapping
    ({"minLength": 2, "minItems": 1, "minProperties": 1}, 5, True),  # each applies to its own type only
    ({"maximum": 2}, 2.5, False),
    ({"properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "string"}}}, {"a": 1}, False),
    ({"$ref": "https://example.com/s.json"}, 1, None),              # outside the schema: not read here
])
def test_where_jsonschema_s_meaning_is_subtle_it_answers_as_jsonschema_or_not_at_all(schema, document, valid):
    found = error_finder(schema)(document)
    assert (None if found is None else not found) is valid
    if found is not None:
        assert [tuple(error) for error in found] == _jsonschema_errors(linear_schema.validator(schema), document)


# -- documents one change away from the vectors' ------------------------------------------

_WORDS = ["", " ", "x", "fact", "decision", "lesson", "goal", "next_action", "preference", "global", "project",
          "2026-07-01", "2026-07-01T10:00:00Z", "2026-7-1", "not a date", "label", "last_seen", "text"]
_SCALARS = st.one_of(st.sampled_from(_WORDS), st.integers(-2, 3), st.sampled_from([0.0, 1.0, 1.5, -1.0]),
                     st.booleans(), st.none())


@lru_cache(maxsize=None)
def _values(name: str):
    """Values to put into a document of schema file `name`, its property names among the keys. Built
    once per file: strategies are immutable, and building this one cost more than drawing from it."""
    keys = sorted(_schema_keys(load_schema(name)))
    return st.recursive(_SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(keys + _WORDS[:4]), inner, max_size=4)), max_leaves=8)


def _paths(document, path=()):
    yield path
    if isinstance(document, dict):
        for key, item in document.items():
            yield from _paths(item, (*path, key))
    elif isinstance(document, list):
        for index, item in enumerate(document):
            yield from _paths(item, (*path, index))


def _changed(document, path, value, delete):
    if not path:
        return value
    copy = json.loads(json.dumps(document))
    parent = copy
    for part in path[:-1]:
        parent = parent[part]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return copy


def _schema_keys(node) -> set[str]:
    keys = set()
    if isinstance(node, dict):
        for key, item in node.items():
            if key in ("properties", "$defs"):
                keys.update(item)
            keys.update(_schema_keys(item))
    elif isinstance(node, list):
        for item in node:
            keys.update(_schema_keys(item))
    return keys


@pytest.mark.parametrize("name", SCHEMAS)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_document_one_change_from_a_vector_s_is_judged_as_jsonschema_judges_it(name, data):
    documents = _vector_documents()[name]
    document = documents[data.draw(st.integers(0, len(documents) - 1), label="document")]
    path = data.draw(st.sampled_from(list(_paths(document))), label="path")
    delete = bool(path) and data.draw(st.booleans(), label="delete")
    value = None if delete else data.draw(_values(name), label="value")
    _agrees(name, _changed(document, path, value, delete))
