"""Cross-file references in a REME vault: wikilinks, stem uniqueness, event materials.

reme: "Cross-file references", "Wikilink uniqueness" and the `## Materials`
list of "Vault layout". Resolution follows the protocol:

- stem form ``[[X]]``: the folder topic ``topics/X/X.md`` if it exists, else
  the one file whose stem is X (``[[X.md]]`` is the same; a name with another
  extension, like ``[[chart.png]]``, matches by file name); when several
  materials match and exactly one sits beside the linking file, that one
  (our interpretation: the materials of different events share names, and an
  event index names its own). Memories sharing a stem are never settled so:
  the protocol resolves a stem only to a unique file, so such a link is
  ambiguous wherever it is;
- path form ``[[topics/X/X]]`` or ``[[topics/X/X.md]]``: anchored at the vault
  root, never outside it.

Two or more targets is an ambiguity (an error: a reader cannot know which is
meant); none is a dangling link (a warning: it may be written later).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import unquote

from conformance.validator.reme_vault import rules
from conformance.validator.reme_vault.layout import MATERIAL, MEMORY_KINDS, Vault, VaultFile
from conformance.validator.core.findings import Diagnostic, diagnostic

WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)>\s]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FILE_NAME = re.compile(r"^[\w.\-/ ]*\w\.\w+$")


@dataclass(frozen=True)
class Link:
    target: str
    line: int
    column: int


class Resolver:
    """Resolves wikilink targets against the files of one vault."""

    def __init__(self, vault: Vault):
        self.files = set(vault.files)
        self.materials = {relpath for relpath, file in vault.files.items() if file.kind == MATERIAL}
        self.by_stem: dict[str, list[str]] = defaultdict(list)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for relpath, file in sorted(vault.files.items()):
            self.by_name[posixpath.basename(relpath)].append(relpath)
            if file.is_markdown:
                self.by_stem[file.stem].append(relpath)

    def resolve(self, target: str, linking_from: str | None = None) -> list[str]:
        """Every file `target` could mean: one is resolved, none dangling, more ambiguous.

        `linking_from` is the vault path of the file holding the link: a name
        shared by materials only means the one beside it (so an event index
        can link its own `[[transcript.txt]]` although every event has one).
        """
        if "/" in target:
            anchored = posixpath.normpath(target.lstrip("/"))
            if anchored == ".." or anchored.startswith("../"):
                return []  # never outside the vault
            for candidate in (anchored, anchored + ".md"):
                if candidate in self.files:
                    return [candidate]
            return []
        stem = target[:-3] if target.endswith(".md") else target
        folder_topic = f"topics/{stem}/{stem}.md"
        if folder_topic in self.files:
            return [folder_topic]
        candidates = list(self.by_stem.get(stem) or self.by_name.get(target) or [])
        if linking_from is not None and len(candidates) > 1 and self.materials.issuperset(candidates):
            beside = [path for path in candidates if posixpath.dirname(path) == posixpath.dirname(linking_from)]
            if len(beside) == 1:
                return beside
        return candidates


def wikilinks(text: str) -> list[Link]:
    """The wikilinks of a markdown text, outside code, with 1-based positions."""
    links = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        visible = _CODE_SPAN.sub(lambda match: " " * len(match.group(0)), line)
        for match in WIKILINK.finditer(visible):
            target = link_target(match.group(1))
            if target:
                links.append(Link(target, number, match.start() + 1))
    return links


def link_target(inner: str) -> str:
    """The file part of a wikilink's inside: no alias, heading or block reference."""
    target = inner.split("|", 1)[0].rstrip("\\")
    target = target.split("#", 1)[0].split("^", 1)[0]
    return target.strip()


def check_wikilinks(vault: Vault, resolver: Resolver) -> list[Diagnostic]:
    findings = []
    for file in _memories(vault):
        if file.text is None:
            continue
        where = vault.display(file.relpath)
        for link in wikilinks(file.text):
            targets = resolver.resolve(link.target, file.relpath)
            if len(targets) > 1:
                findings.append(diagnostic(rules.WIKILINK_AMBIGUOUS, where,
                                           f"[[{link.target}]] is ambiguous: it resolves to {', '.join(targets)}; "
                                           "use the path form or a qualified name", link.line, link.column))
            elif not targets:
                findings.append(diagnostic(rules.WIKILINK_DANGLING, where,
                                           f"[[{link.target}]] resolves to no file of the vault", link.line, link.column))
    return findings


def check_stem_uniqueness(vault: Vault) -> list[Diagnostic]:
    """Memories sharing a stem make [[stem]] ambiguous unless a folder topic decides it."""
    by_stem: dict[str, list[str]] = defaultdict(list)
    for file in _memories(vault):
        if file.is_markdown:
            by_stem[file.stem].append(file.relpath)
    findings = []
    for stem, paths in sorted(by_stem.items()):
        if len(paths) < 2 or f"topics/{stem}/{stem}.md" in vault.files:
            continue
        first, *others = sorted(paths)
        for other in others:
            findings.append(diagnostic(rules.STEM_AMBIGUOUS, vault.display(other),
                                       f"shares its stem with {first}: [[{stem}]] would resolve to {len(paths)} files; "
                                       "give one a qualified name"))
    return findings


def check_materials(vault: Vault, resolver: Resolver) -> list[Diagnostic]:
    """Each event index lists exactly the materials of its folder under `## Materials`."""
    materials: dict[str, list[str]] = defaultdict(list)
    for file in vault.files.values():
        if file.kind == MATERIAL and file.event_folder:
            materials[file.event_folder].append(file.relpath)
    findings = []
    for folder in sorted(vault.event_folders):
        index = vault.files.get(f"{folder}/{folder.rsplit('/', 1)[-1]}.md")
        if index is None:
            continue  # reported as a path-template problem
        present = set(materials.get(folder, []))
        listed: set[str] = set()
        section_found = False
        if index.text is not None:
            section_found, entries = materials_section(index.text)
            for reference, line, column in entries:
                resolved = _resolve_material(folder, reference, present, resolver)
                if resolved is None:
                    findings.append(diagnostic(rules.MATERIAL_MISSING, vault.display(index.relpath),
                                               f"listed material {reference!r} does not exist in {folder}/", line, column))
                else:
                    listed.add(resolved)
        for material in sorted(present - listed):
            why = "" if section_found else f" ({posixpath.basename(index.relpath)} has no ## Materials section)"
            findings.append(diagnostic(rules.MATERIAL_UNLISTED, vault.display(material),
                                       f"material is not listed under ## Materials in {index.relpath}{why}"))
    return findings


def materials_section(text: str) -> tuple[bool, list[tuple[str, int, int]]]:
    """Whether the text has a `## Materials` section, and the references it lists."""
    entries = []
    inside = False
    found = False
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            if level == 2 and heading.group(2).strip().lower() == "materials":
                inside, found = True, True
                continue
            if level <= 2:
                inside = False
            continue
        if not inside:
            continue
        item = _LIST_ITEM.match(line)
        if item:
            reference = _item_reference(item.group(1))
            if reference:
                entries.append((reference, number, item.start(1) + 1))
    return found, entries


def _item_reference(text: str) -> str | None:
    """The file a `## Materials` list item names; None when it names no file."""
    wikilink = WIKILINK.search(text)
    if wikilink:
        return link_target(wikilink.group(1)) or None
    link = _MARKDOWN_LINK.search(text)
    if link:
        target = link.group(1)
        if "://" in target or target.startswith(("mailto:", "#")):
            return None
        return unquote(target.split("#", 1)[0]) or None
    code = re.search(r"`([^`]+)`", text)
    if code and _FILE_NAME.match(code.group(1).strip()):
        return code.group(1).strip()
    first = re.split(r"\s+[—–-]\s+|:\s", text.strip(), maxsplit=1)[0].strip()
    return first if _FILE_NAME.match(first) else None


def _resolve_material(folder: str, reference: str, present: set[str], resolver: Resolver) -> str | None:
    """The vault path a listed material names, or None if no such file exists."""
    relative = posixpath.normpath(posixpath.join(folder, reference))
    if relative in present or relative in resolver.files:
        return relative
    in_folder = [path for path in present
                 if posixpath.basename(path) == reference
                 or posixpath.splitext(posixpath.basename(path))[0] == reference]
    if len(in_folder) == 1:
        return in_folder[0]
    if "/" in reference:  # a wikilink-style path, anchored at the vault root
        targets = resolver.resolve(reference)
        return targets[0] if len(targets) == 1 else None
    return None


def _memories(vault: Vault) -> list[VaultFile]:
    return [file for _, file in sorted(vault.files.items()) if file.kind in MEMORY_KINDS]
