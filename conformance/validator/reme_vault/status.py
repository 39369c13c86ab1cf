"""The status state machine between two snapshots of a vault (reme: Status state machine).

``active -> distilled -> archived``, one direction, no skip. Given the vault
as it was (``--since OLD_VAULT_DIR``) and as it is, every streaming memory
found in both is compared: moving back (to active, or archived -> distilled)
and skipping a step (active -> archived) are flagged.

A memory is matched across snapshots by its path; one that
``memory_archive`` moved under ``Archive/`` is matched by its path there
(``Archive/<old path>``) or, failing that, by a unique file name. A
streaming memory without a status counts as active (``sync`` creates events
active).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict

from conformance.validator.reme_vault import rules
from conformance.validator.reme_vault.layout import ARCHIVE, EVENT, Vault, VaultFile
from conformance.validator.core.findings import Diagnostic, diagnostic

ORDER = {"active": 0, "distilled": 1, "archived": 2}


def check_transitions(old: Vault, new: Vault) -> list[Diagnostic]:
    findings = []
    old_memories = {file.relpath: file for file in old.memories()}
    old_by_name: dict[str, list[str]] = defaultdict(list)
    for relpath in old_memories:
        old_by_name[posixpath.basename(relpath)].append(relpath)
    for file in sorted(new.memories(), key=lambda file: file.relpath):
        before = _counterpart(file.relpath, old_memories, old_by_name, new)
        if before is None or not (_streaming(before) or _streaming(file)):
            continue
        was, now = _status(before), _status(file)
        if was is None or now is None or was == now:
            continue
        line, column = file.front.position("status") if file.front else (0, 0)
        where = new.display(file.relpath)
        moved = f" (was {before.relpath})" if before.relpath != file.relpath else ""
        if ORDER[now] < ORDER[was]:
            findings.append(diagnostic(rules.STATUS_REVERSE, where,
                                       f"status went back from {was} to {now}{moved}; status only moves "
                                       "active -> distilled -> archived", line, column))
        elif ORDER[now] - ORDER[was] > 1:
            findings.append(diagnostic(rules.STATUS_SKIP, where,
                                       f"status skipped from {was} to {now}{moved}; a memory is distilled "
                                       "before it is archived", line, column))
    return findings


def _counterpart(relpath: str, old: dict[str, VaultFile], old_by_name: dict[str, list[str]], new: Vault) -> VaultFile | None:
    if relpath in old:
        return old[relpath]
    prefix = ARCHIVE + "/"
    if relpath.startswith(prefix):
        unarchived = relpath[len(prefix):]
        if unarchived in old:
            return old[unarchived]
        candidates = [path for path in old_by_name.get(posixpath.basename(relpath), []) if path not in new.files]
        if len(candidates) == 1:
            return old[candidates[0]]
    return None


def _fields(file: VaultFile) -> dict:
    return file.front.fields if file.front is not None and file.front.problem is None else {}


def _streaming(file: VaultFile) -> bool:
    lifecycle = _fields(file).get("lifecycle")
    if lifecycle in ("streaming", "evolving", "frozen"):
        return lifecycle == "streaming"
    return file.kind == EVENT


def _status(file: VaultFile) -> str | None:
    fields = _fields(file)
    if file.front is None or file.front.problem is not None:
        return None
    status = fields.get("status", "active")
    return status if status in ORDER else None
