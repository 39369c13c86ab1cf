"""JSON-schema validators whose `pattern` and `patternProperties` run on RE2, in time linear in the text.

python-jsonschema applies a schema's patterns with Python's `re.search`,
which backtracks, to whatever an adapter, a vector file or an entry file
holds (issue 24; the vector schema's JSON-pointer pattern took time doubling
with each `/` of a path). `validator(schema)` is Draft 2020-12 with those
keywords (and the `additionalProperties` that depends on `patternProperties`)
searching with `conformance.patterns`, and jsonschema's own messages.

A schema pattern is an ECMA-262 regular expression (JSON Schema 2020-12,
6.4); the kit's schemas keep to what ECMA-262 and RE2 read alike: no
look-around, `$` for the end of the text, classes spelled out where
ECMA-262's `\\s` and RE2's differ. A pattern RE2 refuses fails when the
validator is built, not when a text comes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator

from conformance import patterns


@lru_cache(maxsize=256)
def _compiled(source: str) -> patterns.Pattern:
    return patterns.compile(source)


@lru_cache(maxsize=4096)  # a store, a corpus and a run repeat their dates, links and paths
def finds(source: str, text: str) -> bool:
    """Whether the schema pattern `source` finds a match in `text` (as the `pattern` keyword asks)."""
    return _compiled(source).search(text) is not None


def _pattern(validator, source, instance, schema):
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not finds(source, instance):
        yield ValidationError(f"{instance!r} does not match {source!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for source, subschema in pattern_properties.items():
        for key, value in instance.items():
            if finds(source, key):
                yield from validator.descend(value, subschema, path=key, schema_path=source)


def _additional_properties(validator, additional, instance, schema):
    from jsonschema._keywords import additionalProperties

    if "patternProperties" not in schema or not validator.is_type(instance, "object"):
        yield from additionalProperties(validator, additional, instance, schema)
        return
    from jsonschema.exceptions import ValidationError

    properties = schema.get("properties", {})
    extras = {key for key in instance
              if key not in properties and not any(finds(source, key) for source in schema["patternProperties"])}
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        verb = "does" if len(extras) == 1 else "do"
        joined = ", ".join(repr(each) for each in sorted(extras))
        shown = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
        yield ValidationError(f"{joined} {verb} not match any of the regexes: {shown}")


def schema_patterns(node) -> Iterator[str]:
    """Every `pattern` and `patternProperties` key of a schema."""
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        if isinstance(node.get("patternProperties"), dict):
            if "unevaluatedProperties" in node:
                raise patterns.error("unevaluatedProperties beside patternProperties would search with re")
            yield from node["patternProperties"]
        for value in node.values():
            yield from schema_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from schema_patterns(value)


@lru_cache(maxsize=1)
def validator_class():
    """Draft 2020-12 with the pattern keywords on RE2."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {
        "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
    })


def validator(schema: dict, **options):
    """A validator of `schema` whose patterns all run on RE2 (each compiled now: `patterns.error` if RE2 refuses one)."""
    for source in schema_patterns(schema):
        _compiled(source)
    return validator_class()(schema, **options)
