"""A scan for secrets in store files (spec 9, 3.4).

Spec 9 asks implementations to warn about secrets before an entry leaves the
machine. The patterns here are the shapes of credentials that are
recognisable by form alone: private key blocks, cloud access keys, and
provider API tokens with a fixed prefix. Findings name the kind and the
place, never the value: a validator's output lands in CI logs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conformance.model.frontmatter import column_of, line_of

_PATTERNS = {
    "private key": r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----",
    "AWS access key id": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    "AWS secret access key": r"(?i:aws_secret_access_key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}\b",
    "GitHub token": r"\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{60,}\b",
    "GitLab token": r"\bglpat-[A-Za-z0-9_-]{20,}\b",
    "Slack token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b",
    "Slack webhook URL": r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+",
    "Google API key": r"\bAIza[0-9A-Za-z_-]{35}\b",
    "Anthropic API key": r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    "OpenAI API key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{48}\b",
    "Stripe secret key": r"\b[rs]k_live_[0-9A-Za-z]{24,}\b",
    "npm token": r"\bnpm_[A-Za-z0-9]{36}\b",
    "PyPI token": r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
    "Hugging Face token": r"\bhf_[A-Za-z0-9]{34,}\b",
    "JSON Web Token": r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
}

_GROUPS = {f"k{index}": kind for index, kind in enumerate(_PATTERNS)}
_SCANNER = re.compile("|".join(f"(?P<k{index}>{pattern})" for index, pattern in enumerate(_PATTERNS.values())))
# Cheap first pass: every pattern contains one of these.
_HINTS = ("PRIVATE KEY", "AKIA", "ASIA", "ws_secret", "WS_SECRET", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
          "github_pat_", "glpat-", "xox", "hooks.slack.com", "AIza", "sk-", "k_live_", "npm_", "pypi-", "hf_", "eyJ")

SECRET_KINDS = tuple(_PATTERNS)


@dataclass(frozen=True)
class SecretFinding:
    kind: str
    line: int    # 1-based
    column: int  # 1-based


def scan(text: str) -> list[SecretFinding]:
    """Where `text` holds something shaped like a credential."""
    if not any(hint in text for hint in _HINTS):
        return []
    return [SecretFinding(_GROUPS[match.lastgroup], line_of(text, match.start()), column_of(text, match.start()))
            for match in _SCANNER.finditer(text)]
