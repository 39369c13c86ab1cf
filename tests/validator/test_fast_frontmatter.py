"""The validator's fast frontmatter path reads exactly as the reference model.

`fast_frontmatter.parse` either gives the model's `parse_entry_text` result,
field for field (places and lines included), or declines; it is compared
with the model on every entry file of the vectors and of the real-world
corpus, and on the forms at the edge of what it takes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model.frontmatter import parse_entry_text
from conformance.resources import vectors_dir
from conformance.validator.memoir import fast_frontmatter

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "real-world"


def _vector_entry_texts() -> dict[str, str]:
    """Every entry file the vectors hold: on disk, and as `files` of a store in a vector."""
    found = {str(path): path.read_text(encoding="utf-8", errors="replace")
             for path in sorted(vectors_dir().rglob("*.md"))}

    def walk(value, where):
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str) and str(key).endswith(".md"):
                    found[f"{where}:{key}"] = item
                else:
                    walk(item, where)
        elif isinstance(value, list):
            for item in value:
                walk(item, where)

    for path in sorted(vectors_dir().rglob("*.json")):
        try:
            walk(json.loads(path.read_text(encoding="utf-8")), path.name)
        except ValueError:
            continue
    return found


# The edges of what the fast path takes, and just past them.
EDGES = [
    "---\n---\n", "---\n---", "---\n---  \nBody", "---\n--- \r\nBody", "---\n---\rBody", "---\n---x\n---\n",
    "---\ntype: fact\n---\n", "---\ntype: fact\n----\n---\n", "---\n# c\n\n  \ntype: fact  \n---\n",
    "---\ntype:\n---\n", "---\ntype:\nname: x\n---\n", "---\nurl: http://x:80/a\n---\n", "---\na:b: c\n---\n",
    "---\nk: v:\n---\n", "---\nk:v\n---\n", "---\n: v\n---\n", "---\n- a\n---\n", "---\n-\n---\n",
    "---\nn: 12\nb: true\nz: null\ne: ~\nneg: -3\nf: 1.5\n---\n", "---\ntags:\n  - a\n  - b  \n---\n",
    "---\ntags:\n- a\n- b\nname: x\n---\n", "---\ntags:\n  - a\n - b\n---\n", "---\ntags:\n  - a\n    - b\n---\n",
    "---\ntags:\n  -\n---\n", "---\ntags:\n  - \"a\"\n---\n", "---\ntags:\n  - 'a'\n---\n", "---\ntags:\n  - &a\n---\n",
    "---\ntags:\n  - [a]\n---\n", "---\ntags:\n  - a\n  k: v\n---\n", "---\ntags:\n  -a\n---\n",
    "---\nmetadata:\n  type: user\n  originSessionId: abc\nname: x\n---\nBody\n",
    "---\nmetadata:\n  type: user\n    deeper: x\n---\n", "---\nmetadata:\n  a: 1\n a: 2\n---\n",
    "---\nmetadata:\n  a:\n    b: c\n---\n", "---\nmetadata:\n  a:\n---\n", "---\nmetadata:\n  a: 1\n  a: 2\n---\n",
    "---\nmetadata:\n  - a\n  b: c\n---\n", "---\nname: x\nname: y\n---\n", "---\n  indented: x\n---\n",
    "---\nname: \"q\"\n---\n", "---\nname: 'q'\n---\n", "---\nname: *a\n---\n", "---\nwhy: |\n  x\n---\n",
    "---\nwhy: >-\n  x\n---\n", "---\ntags: [a, b]\n---\n", "---\ntags: {a: b}\n---\n", "---\nname: !t x\n---\n",
    "---\nname: a # b\n---\n", "---\nname: a: b\n---\n", "---\nname:\tx\n---\n", "---\n\tname: x\n---\n",
    "---\r\nname: x\r\n---\r\n", "\ufeff---\nname: x\n---\n", "\n---\nname: x\n---\n", "<!-- c -->\n---\nname: x\n---\n",
    "--- \nname: x\n---\n", "---\nname: x\n", "---\nname: x", "---", "# Title\n\nBody", "", "---\nname: x\r---\n",
    "---\nname: x\n---\n\n---\nmore: y\n---\n", "---\n?k: v\n---\n", "---\n\"k\": v\n---\n", "---\nk : v\n---\n",
    "---\r\n---\r\n", "---\r\ntype: fact\r\ntags:\r\n  - a\r\n---\r\nBody\r\n", "---\r\nname: x\n---\r\n",
    "---\r\nname: x\r---\r\n", "---\r\nname: x\r\n---\n", "---\r\nname: x\r\n\r---\r\n", "---\r\n\r\n---",
    "---\nk:  v  w  \n---\n", "---\nk: 99999999999999999999\n---\n", "---\nk: -\n---\n", "---\nk: - x\n---\n",
]


def _same(text: str) -> bool:
    """Whether the fast path declines `text` or reads it exactly as the model; True when it read it."""
    fast = fast_frontmatter.parse(text)
    if fast is None:
        return False
    model = parse_entry_text(text)
    assert fast == model
    assert fast.frontmatter_lines == model.frontmatter_lines
    assert fast.places == model.places
    assert list(fast.fields) == list(model.fields)  # key order too: it is the places' order
    return True


def test_the_edges():
    taken = [text for text in EDGES if _same(text)]
    assert len(taken) > 10  # the test is not vacuous


def test_every_vector_entry_file():
    texts = _vector_entry_texts()
    assert len(texts) > 100
    taken = [where for where, text in texts.items() if _same(text)]
    assert len(taken) > len(texts) // 4


def test_variants_of_every_vector_entry_file():
    """The same files with CRLF or lone CR breaks, tabs and trailing spaces, which the fast path declines or reads alike."""
    for text in _vector_entry_texts().values():
        for variant in (text.replace("\n", "\r\n"), text.replace("\n", " \n"), text.replace("  ", "\t"),
                        text.replace(": ", ":  "), text.replace("\n---", "\n--- ", 1), text.replace("\n", "\r")):
            _same(variant)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus/real-world is not beside the repository")
def test_every_real_world_file():
    paths = sorted(CORPUS.glob("*.md"))
    assert paths
    for path in paths:
        _same(path.read_text(encoding="utf-8", errors="replace"))


# Pieces of frontmatter lines near every edge the fast path decides on: indicators,
# comments, quotes, scalars the model reads specially, odd spaces and breaks.
_PIECES = ["a", "X", " ", "  ", ":", ": ", "#", " #", "-", "- ", "true", "false", "1", "-1", "0x1", "~", "null",
           "'", '"', "\t", "é", "\u00a0", "[", "{", "*", "&", "|", ">", "!", "%", "@", "---", "...", "k: v", "k:",
           ",", "?"]
_lines = st.lists(st.tuples(st.sampled_from(["", "", " ", "  ", "    "]),
                            st.lists(st.sampled_from(_PIECES), max_size=5)).map(lambda t: t[0] + "".join(t[1])),
                  max_size=6)


@given(lines=_lines, newline=st.sampled_from(["\n", "\r\n"]))
@settings(max_examples=600, deadline=None)
def test_whatever_the_fast_path_takes_it_reads_as_the_model(lines, newline):
    text = newline.join(["---", *lines, "---", "body", ""])
    fast = fast_frontmatter.parse(text)
    assert fast is None or fast == parse_entry_text(text)
