"""Validate REME vaults (the REME memory protocol).

A REME vault is a directory of markdown memories: topics at
``topics/{folder}/{name}.md`` and events at
``events/{YYYY-MM-DD}/{name}/{name}.md`` with their materials beside the
index. This module is the validator's plug-in for the format: `RULES` is its
rule catalogue and `validate_paths` checks vault directories and returns
diagnostics. It never writes to a vault, never follows a symbolic link, and
never raises on bad input.

The parts: `_reme_layout` (reading the vault, path templates),
`_reme_axes` (frontmatter axes and conditional fields), `_reme_links`
(wikilinks, stem uniqueness, materials), `_reme_status` (the status state
machine against an older snapshot). docs/sibling-formats.md documents every
rule and interpretation.
"""

from __future__ import annotations

import os

from conformance.validator.reme_vault import rules
from conformance.validator.reme_vault.axes import check_material, check_memory
from conformance.validator.reme_vault.layout import DEFAULT_MAX_BYTES, MATERIAL, MEMORY_KINDS, Vault, scan_vault
from conformance.validator.reme_vault.links import Resolver, check_materials, check_stem_uniqueness, check_wikilinks
from conformance.validator.reme_vault.status import check_transitions
from conformance.validator.core.findings import Diagnostic

FORMAT = rules.FORMAT
RULES = rules.RULES


def detect(path: str) -> bool:
    """Whether `path` looks like a REME vault (a directory with topics/ or events/), for ``--kind auto``."""
    return os.path.isdir(path) and any(os.path.isdir(os.path.join(path, part)) for part in ("topics", "events"))


def validate_paths(paths: list[str], *, since: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                   **_options) -> list[Diagnostic]:
    """Diagnostics for every vault directory in `paths`.

    `since` names an older snapshot of the vault (``--since OLD_VAULT_DIR``):
    status transitions from it to each vault are checked. Options meant for
    other formats are accepted and ignored.
    """
    findings: list[Diagnostic] = []
    old = scan_vault(str(since), max_bytes=max_bytes) if since is not None else None
    if old is not None and not old.readable:
        findings.extend(old.findings)
    for given in paths:
        vault = scan_vault(str(given), max_bytes=max_bytes)
        findings.extend(check_vault(vault))
        if old is not None and old.readable and vault.readable:
            findings.extend(check_transitions(old, vault))
    return sorted(findings, key=lambda finding: finding.sort_key)


def check_vault(vault: Vault) -> list[Diagnostic]:
    """Every finding about one scanned vault (without the state machine)."""
    findings = list(vault.findings)
    if not vault.readable:
        return findings
    for file in vault.files.values():
        if file.kind in MEMORY_KINDS and file.is_markdown:
            findings.extend(check_memory(vault, file))
        elif file.kind == MATERIAL and file.is_markdown:
            findings.extend(check_material(vault, file))
    resolver = Resolver(vault)
    findings.extend(check_wikilinks(vault, resolver))
    findings.extend(check_stem_uniqueness(vault))
    findings.extend(check_materials(vault, resolver))
    return findings
