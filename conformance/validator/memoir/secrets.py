"""A scan for secrets in store files (spec 9, 3.4), in time linear in the text.

Spec 9 asks implementations to warn about secrets before an entry leaves the
machine. The patterns here are the shapes of credentials that are
recognisable by form alone: private key blocks, cloud access keys, and
provider API tokens with a fixed prefix. Findings name the kind and the
place, never the value: a validator's output lands in CI logs.

Each kind is scanned on its own, and only when one of its literal hints
occurs in the text (most entries hold none). The patterns run on RE2
(`conformance.patterns`), linear on any input. They were written for a
backtracking engine first, and still read alike on one: each repetition is
followed by nothing that can fail after it gave back characters (a run of
token characters then a character outside the run, a word boundary after a
run of word characters, or the end). Two shapes must look ahead over a run of
token characters: an OpenAI project key (``sk-`` ... ``T3BlbkFJ`` ...) and a
JSON Web Token (``eyJ`` ... ``.eyJ`` ... ``.`` ...), where a text like
``sk-sk-sk-...`` offers a start every three characters. For those, a start
that fails makes every later start in the same run fail too (the later one
has less room before the same end), so a failed start consumes its whole run
(the ``skip`` branch). `tests/validator/test_hostile_files.py` and
``benchmarks/hostile_files_bench.py`` hold them to it.

A word boundary (``\\b``) is RE2's, between an ASCII letter, digit or ``_``
and anything else: a key written against a non-ASCII letter (``密钥AKIA...``)
is found, where Python's Unicode ``\\b`` saw no boundary. Spaces (``_SPACE``)
are Python's `str.isspace`, spelled out.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance import patterns
from conformance.validator.core.positions import LineIndex

_TOKEN = "[A-Za-z0-9_-]"
# What Python's `\\s` and `str.isspace` take (RE2's `\\s` is ASCII, without \\v); the characters
# past ASCII are written as themselves, which both engines read alike.
_SPACE = "[\\t-\\r\\x1c-\\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"

# kind -> (literal hints, one of which every match contains; pattern). Kinds
# listed first win where two match at the same place.
_KINDS: list[tuple[str, tuple[str, ...], str]] = [
    ("private key", ("PRIVATE KEY",),
     r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----"),
    ("AWS access key id", ("AKIA", "ASIA"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("AWS secret access key", ("ws_secret", "WS_SECRET", "ws_Secret", "WS_Secret"),
     rf"(?i:aws_secret_access_key)[\"']?{_SPACE}*[:=]{_SPACE}*[\"']?[A-Za-z0-9/+=]{{40}}\b"),
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{60,}"),
    ("GitLab token", ("glpat-",), rf"\bglpat-{_TOKEN}{{20,}}\b"),
    ("Slack token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("Slack webhook URL", ("hooks.slack.com",),
     r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+"),
    ("Google API key", ("AIza",), rf"\bAIza{_TOKEN}{{35}}\b"),
    ("Anthropic API key", ("sk-ant-",), rf"\bsk-ant-{_TOKEN}{{20,}}"),
    # An OpenAI key with its T3BlbkFJ marker, or a legacy 48-character one.
    ("OpenAI API key", ("T3BlbkFJ",),
     rf"(?P<hit>\bsk-{_TOKEN}{{20,}}T3BlbkFJ{_TOKEN}{{20,}})|(?P<skip>\bsk-{_TOKEN}*)"),
    ("OpenAI API key", ("sk-",), r"\bsk-[A-Za-z0-9]{48}\b"),
    ("Stripe secret key", ("k_live_",), r"\b[rs]k_live_[0-9A-Za-z]{24,}\b"),
    ("npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("PyPI token", ("pypi-AgEIcHlwaS5vcmc",), rf"\bpypi-AgEIcHlwaS5vcmc{_TOKEN}{{50,}}"),
    ("Hugging Face token", ("hf_",), r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("JSON Web Token", ("eyJ",),
     rf"(?P<hit>\beyJ{_TOKEN}{{10,}}\.eyJ{_TOKEN}{{10,}}\.{_TOKEN}{{10,}})|(?P<skip>\beyJ{_TOKEN}*)"),
]
_SCANNERS = [(kind, hints, patterns.compile(pattern)) for kind, hints, pattern in _KINDS]


def _literal(char: str) -> str:
    return char if char.isalnum() or not char.isascii() else f"\\x{ord(char):02x}"  # read alike by RE2 and re


def _trie_pattern(words: set[str]) -> str:
    """One regex matching any of `words`, as a trie of their letters: the regex
    engine then looks at each character of a text once, not once per word."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [_literal(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


# One pass that tells whether any kind needs a look at all (most entries: none does).
_ANY_HINT = patterns.compile(_trie_pattern({hint for _kind, hints, _pattern in _KINDS for hint in hints}))

_SURROGATES = {code: "\ufffd" for code in range(0xD800, 0xE000)}

SECRET_KINDS = tuple(dict.fromkeys(kind for kind, _hints, _pattern in _KINDS))


@dataclass(frozen=True)
class SecretFinding:
    kind: str
    line: int    # 1-based
    column: int  # 1-based


def scan(text: str) -> list[SecretFinding]:
    """Where `text` holds something shaped like a credential: one finding per
    place (the first kind listed, where several match there)."""
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, which RE2 cannot read: U+FFFD is in no class either
        text = text.translate(_SURROGATES)
        encoded = text.encode("utf-8")
    # The hints are ASCII: searched in the UTF-8 bytes, they are found exactly
    # where they are in the text, and RE2's binding reads bytes without
    # mapping offsets back to characters (most texts hold no hint at all).
    if _ANY_HINT.search(encoded) is None:
        return []
    starts: dict[int, int] = {}  # start -> kind's order
    for order, (_kind, hints, pattern) in enumerate(_SCANNERS):
        if not any(hint in text for hint in hints):
            continue
        split = pattern.groups > 0  # a hit, or a start that failed
        for match in pattern.finditer(text):
            if split and match.group("hit") is None:
                continue  # a start that failed, with the run it covers
            starts.setdefault(match.start(), order)
    if not starts:
        return []
    index = LineIndex(text)
    return [SecretFinding(_SCANNERS[order][0], *index.place(start)) for start, order in sorted(starts.items())]
