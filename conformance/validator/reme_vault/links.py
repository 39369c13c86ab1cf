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
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import unquote

from conformance import patterns
from conformance.validator.reme_vault import rules
from conformance.validator.reme_vault.layout import MATERIAL, MEMORY_KINDS, Vault, VaultFile
from conformance.validator.core.findings import Diagnostic, diagnostic

WIKILINK = patterns.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
# The other shapes are read by plain parsers, each with the pattern it
# replaces (Python's `\s` is `str.isspace`, `\d` `str.isdecimal`, `\w`
# `str.isalnum` or `_`); lines come from `splitlines`, so hold no line break.


def _fence(line: str) -> str | None:
    """The fence that opens a code block on `line` (what ``^\\s{0,3}(`{3,}|~{3,})`` takes as group 1), or None."""
    start = 0
    while start < 3 and line[start:start + 1].isspace():
        start += 1
    mark = line[start:start + 1]
    if mark not in ("`", "~"):
        return None
    run = len(line) - start - len(line[start:].lstrip(mark))
    return line[start:start + run] if run >= 3 else None


def _list_item(line: str) -> int:
    """Where the text of a list item starts on `line` (what ``^\\s*(?:[-*+]|\\d+[.)])\\s+(.*)$`` takes as
    group 1, on a line without a line break), or -1."""
    start = len(line) - len(line.lstrip())  # str.lstrip() strips what str.isspace() accepts
    if line[start:start + 1] in ("-", "*", "+") and start < len(line):
        marker = start + 1
    else:
        marker = start
        while marker < len(line) and line[marker].isdecimal():
            marker += 1
        if marker == start or line[marker:marker + 1] not in (".", ")") or marker == len(line):
            return -1
        marker += 1
    text = marker + len(line[marker:]) - len(line[marker:].lstrip())
    return text if text > marker else -1


def _skip_spaces(text: str, start: int) -> int:
    while start < len(text) and text[start].isspace():
        start += 1
    return start


def _target_end(text: str, start: int) -> int:
    """The end of ``[^)>\\s]*`` at `start`."""
    while start < len(text) and text[start] not in ")>" and not text[start].isspace():
        start += 1
    return start


def _link_tail(text: str, start: int) -> tuple[str | None, int]:
    """What follows the `]` of a markdown link at `start`: `(target)`, `(<target>)`, `(target "title")`.

    (target, -1) when ``\\(\\s*<?([^)>\\s]+)>?(?:\\s+"[^"]*")?\\s*\\)`` matches there; else (None, the end
    of ``\\(\\s*<?[^)>\\s]*`` there, or -1 when no `(` is)."""
    if text[start:start + 1] != "(":
        return None, -1
    spaced = _skip_spaces(text, start + 1)
    after_angle = spaced + 1 if text[spaced:spaced + 1] == "<" else spaced
    reached = _target_end(text, after_angle)
    # A '<' is also a target character: without a target after it, it is the target.
    for begin in ((after_angle, spaced) if after_angle != spaced else (spaced,)):
        end = _target_end(text, begin)
        if end == begin:
            continue
        at = end + 1 if text[end:end + 1] == ">" else end
        close = _skip_spaces(text, at)
        if text[close:close + 1] == ")":
            return text[begin:end], -1
        if close > at and text[close:close + 1] == '"':
            quote = text.find('"', close + 1)
            after = _skip_spaces(text, quote + 1) if quote >= 0 else -1
            if after >= 0 and text[after:after + 1] == ")":
                return text[begin:end], -1
    return None, reached


def _code_span(text: str) -> str | None:
    """The text of the first non-empty `code` span (what ``\\`([^`]+)\\``` takes as group 1), or None."""
    start = text.find("`")
    while start >= 0:
        end = text.find("`", start + 1)
        if end < 0:
            return None
        if end > start + 1:
            return text[start + 1:end]
        start = end
    return None


_FILE_NAME_PUNCTUATION = str.maketrans("", "", "._-/ ")


def _is_word(text: str) -> bool:
    return text.replace("_", "a").isalnum()


def _is_file_name(text: str) -> bool:
    """What ``^[\\w.\\-/ ]*\\w\\.\\w+$`` matches: word characters, '.', '-', '/' and ' ', ending in
    a word character, a '.' and a word."""
    if text.endswith("\n"):
        text = text[:-1]  # `$` is also before a final newline
    point = text.rfind(".")
    if point < 1 or not _is_word(text[point + 1:]) or not _is_word(text[point - 1]):
        return False
    rest = text[:point - 1].translate(_FILE_NAME_PUNCTUATION)
    return not rest or _is_word(rest)


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
        opening = _fence(line)
        if fence is not None:
            if opening and opening[0] == fence[0] and len(opening) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening
            continue
        visible = _without_code_spans(line)
        for match in WIKILINK.finditer(visible):
            target = link_target(match.group(1))
            if target:
                links.append(Link(target, number, match.start() + 1))
    return links


def _backtick_runs(line: str) -> list[tuple[int, int]]:
    """(start, end) of every run of backticks in `line`."""
    runs = []
    start = line.find("`")
    while start >= 0:
        end = start
        while end < len(line) and line[end] == "`":
            end += 1
        runs.append((start, end))
        start = line.find("`", end)
    return runs


def _without_code_spans(line: str) -> str:
    """`line` with each inline code span blanked out (spaces of its length).

    A span opens with a run of backticks and closes at the next run at least
    as long, with something between; an opening run with no such closer is
    tried again one backtick shorter (down to just over half its length,
    since the rest of the run must not itself close it), then from its next
    backtick. A plain parser, linear in the line: the regular expression it
    replaces, ``(`+)(?:(?!\\1).)+?\\1``, took time growing with the cube of a
    line of backticks."""
    runs = _backtick_runs(line)
    if len(runs) < 2:
        return line
    longest_after = [0] * (len(runs) + 1)  # the longest run after run i
    for index in range(len(runs) - 1, -1, -1):
        longest_after[index] = max(longest_after[index + 1], runs[index + 1][1] - runs[index + 1][0]) \
            if index + 1 < len(runs) else 0
    pieces, done, index = [], 0, 0
    start = runs[0][0]
    while index < len(runs):
        end, longest = runs[index][1], longest_after[index]
        width = _opening_width(end - start, longest)
        if width is None:
            start += 1
            if start == end:
                index += 1
                start = runs[index][0] if index < len(runs) else 0
            continue
        closing = next(later for later in range(index + 1, len(runs)) if runs[later][1] - runs[later][0] >= width)
        span_end = runs[closing][0] + width
        pieces += [line[done:start], " " * (span_end - start)]
        done, index, start = span_end, closing, span_end
        if start == runs[index][1]:
            index += 1
            start = runs[index][0] if index < len(runs) else 0
    return "".join(pieces) + line[done:]


def _opening_width(run: int, longest_after: int) -> int | None:
    """How many backticks of a run of `run` open a span, given the longest run after it; None: none."""
    if longest_after >= run:
        return run
    width = min(longest_after, run - 1)
    return width if width * 2 > run else None


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line (up to three spaces, one to six
    `#`, a space, the title, optional closing `#`s), or None. A plain parser:
    the regular expression it replaces took time growing with the square of
    a line like `# a` followed by spaces and tabs."""
    rest = line.lstrip()
    level = len(rest) - len(rest.lstrip("#"))
    if len(line) - len(rest) > 3 or not 1 <= level <= 6 or not rest[level:level + 1].isspace():
        return None
    return level, rest[level:].strip().rstrip("#").strip()


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
        heading = _heading(line)
        if heading:
            level, title = heading
            if level == 2 and title.lower() == "materials":
                inside, found = True, True
                continue
            if level <= 2:
                inside = False
            continue
        if not inside:
            continue
        item = _list_item(line)
        if item >= 0:
            reference = _item_reference(line[item:])
            if reference:
                entries.append((reference, number, item + 1))
    return found, entries


def _item_reference(text: str) -> str | None:
    """The file a `## Materials` list item names; None when it names no file."""
    wikilink = WIKILINK.search(text)
    if wikilink:
        return link_target(wikilink.group(1)) or None
    target = _first_link_target(text)
    if target:
        if "://" in target or target.startswith(("mailto:", "#")):
            return None
        return unquote(target.split("#", 1)[0]) or None
    code = _code_span(text)
    if code and _is_file_name(code.strip()):
        return code.strip()
    first = _before_separator(text.strip()).strip()
    return first if _is_file_name(first) else None


def _first_link_target(text: str) -> str | None:
    """The target of the first markdown link `[label](target)` in `text`.

    Every `[` before a given `]` leads to that same `]`, so each `]` is tried
    once; a `]` inside the target of one that failed would fail the same way
    (its target ends where that one's did), so it is skipped: linear in the
    text, where searching with one regular expression took time growing with
    the square of a line of `[`."""
    skip_until = -1
    opening = text.find("[")
    while opening >= 0:
        closing = text.find("]", opening + 1)
        if closing < 0:
            return None
        if closing >= skip_until:
            target, reached = _link_tail(text, closing + 1)
            if target is not None:
                return target
            skip_until = reached if reached >= 0 else skip_until
        opening = text.find("[", closing + 1)
    return None


def _before_separator(text: str) -> str:
    """`text` up to its first separator: a dash between spaces (`a — b`,
    `a - b`) or a colon and a space; all of it when there is none."""
    for index, char in enumerate(text):
        after = text[index + 1:index + 2]
        if char == ":" and after.isspace():
            return text[:index]
        if char in "—–-" and index and text[index - 1].isspace() and after.isspace():
            return text[:index]
    return text


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
