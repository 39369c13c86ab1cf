"""Reading a REME memory's frontmatter: the `---` block at the top of the file.

The block is YAML read by the sibling formats' safe reader (`_diff_yaml`):
anchors and aliases are refused, only plain data comes out, and positions
are those of the whole file. Reading never fails: a problem is a value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.validator.core.safe_yaml import LoadedYaml, YamlProblem, load_yaml

_OPENING = "---"
_CLOSINGS = ("---", "...")


@dataclass
class Frontmatter:
    """What the top of a memory file says.

    `present` is False when the file does not open with a `---` line. When
    it does, either `loaded` (a mapping, positions in file lines) or
    `problem` is set. `body_start` is the 1-based line where the body starts.
    """

    present: bool
    loaded: LoadedYaml | None = None
    problem: YamlProblem | None = None
    body_start: int = 1
    fields: dict = field(default_factory=dict)

    def position(self, key: str) -> tuple[int, int]:
        if self.loaded is not None and (key,) in self.loaded.positions:
            return self.loaded.positions[(key,)]
        return (1, 1) if self.present else (0, 0)


def read_frontmatter(text: str) -> Frontmatter:
    """The frontmatter of `text` (a whole memory file)."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != _OPENING:
        return Frontmatter(present=False)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in _CLOSINGS:
            block = "\n".join(lines[1:index])
            break
    else:
        return Frontmatter(present=True, problem=YamlProblem(
            "structure", "frontmatter opened with '---' on line 1 is never closed", 1, 1))
    body_start = index + 2
    loaded = load_yaml(block, line_offset=1)
    if isinstance(loaded, YamlProblem):
        return Frontmatter(present=True, problem=loaded, body_start=body_start)
    if loaded.data is None:
        return Frontmatter(present=True, loaded=loaded, body_start=body_start)
    if not isinstance(loaded.data, dict):
        return Frontmatter(present=True, body_start=body_start, problem=YamlProblem(
            "structure", f"frontmatter is a {type(loaded.data).__name__}, not a mapping of fields", 2, 1))
    return Frontmatter(present=True, loaded=loaded, body_start=body_start, fields=loaded.data)
