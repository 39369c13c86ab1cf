"""Checking REME vaults: one vault at a time, all its files, then its findings per file.

A REME vault is a directory of markdown memories: topics at
``topics/{folder}/{name}.md`` and events at
``events/{YYYY-MM-DD}/{name}/{name}.md`` with their materials beside the
index. A vault is read whole (`layout`: it never writes, never follows a
symbolic link), then checked: frontmatter axes (`axes`), wikilinks, stems and
materials (`links`), and with an older snapshot the status state machine
(`status`). Nothing here raises on bad input.
"""

from __future__ import annotations

import os

from conformance.validator.core.findings import (
    Diagnostic,
    FileChecked,
    NothingToCheck,
    StoreFinished,
    StoreStarted,
    in_order,
)
from conformance.validator.reme_vault.axes import check_material, check_memory
from conformance.validator.reme_vault.layout import DEFAULT_MAX_BYTES, MATERIAL, MEMORY_KINDS, Vault, scan_vault
from conformance.validator.reme_vault.links import Resolver, check_materials, check_stem_uniqueness, check_wikilinks
from conformance.validator.reme_vault.status import check_transitions

def plan(paths: list[str], *, since: str | None = None, **_options) -> tuple[list[str], str | None]:
    """The vaults to check, and the older snapshot (raises NothingToCheck for one that is not a directory)."""
    for path in [*paths, *([since] if since is not None else [])]:
        if not os.path.isdir(path):
            raise NothingToCheck(f"{path} is not a directory: a REME vault is a folder with topics/ and events/")
    return list(paths), since


def events(plan: tuple[list[str], str | None], jobs: int = 1, max_bytes: int = DEFAULT_MAX_BYTES, **_options):
    """Per vault: `StoreStarted`, one `FileChecked` per memory file (and per other path with a finding),
    `StoreFinished`."""
    paths, since = plan
    old = scan_vault(str(since), max_bytes=max_bytes) if since is not None else None
    for given in paths:
        vault = scan_vault(str(given), max_bytes=max_bytes)
        findings = check_vault(vault)
        if old is not None:
            findings.extend(old.findings if not old.readable else check_transitions(old, vault) if vault.readable
                            else ())
        checked = {vault.display(file.relpath) for file in vault.files.values() if file.is_markdown
                   and file.kind in (*MEMORY_KINDS, MATERIAL)}
        yield StoreStarted(str(given), f"a REME vault: {len(checked)} markdown file{'s' if len(checked) != 1 else ''}")
        by_path: dict[str, list[Diagnostic]] = {path: [] for path in checked}
        for found in findings:
            by_path.setdefault(found.path, []).append(found)
        for path in sorted(by_path):
            yield FileChecked(path, in_order(by_path[path]), checked=path in checked)
        yield StoreFinished(str(given))


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
