"""The formats the validator knows, and every format's rule catalogue.

Each input kind is a package (``memoir``, ``memory_diff``, ``reme_vault``)
with a ``rules`` module (its catalogue, importable without its checkers, so
that listing rules or checking ``--select`` ids loads no YAML or schema code).
"""

from __future__ import annotations

import importlib

from conformance.validator.core.findings import Rule

# Input kinds and the packages that validate them.
KIND_MODULES = {
    "memoir": "conformance.validator.memoir",
    "memory-diff": "conformance.validator.memory_diff",
    "reme-vault": "conformance.validator.reme_vault",
}


def _import(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            return None
        raise


def kind_module(kind: str):
    """The package that validates `kind`, or None when it is not installed."""
    name = KIND_MODULES.get(kind)
    return _import(name) if name else None


def all_rules() -> list[Rule]:
    """Every rule of every installed format, memoir first, each id once."""
    rules: dict[str, Rule] = {}
    for name in KIND_MODULES.values():
        module = _import(name + ".rules")
        for rule in module.RULES if module else ():
            rules.setdefault(rule.id, rule)
    return list(rules.values())
