"""Builders for the site tests: a small corpus with a known outcome per implementation,
run through `memoir-conform run --matrix` against the reference adapter and a mutant."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from conformance.cli import main
from conformance.resources import runners_dir
from conformance.runner.vectors import load_corpus

REFERENCE = runners_dir() / "reference" / "adapter.py"
# Mutant 03 drops the hidden flag when the other copy is newer (spec 5.3.1): it fails STICKY.
MUTANT = runners_dir() / "mutants" / "03_hidden_not_sticky.py"
STICKY = "site.merge.hidden-sticky"
SHOULD_ONLY = "site.read.links-should"
ADVISORY = "site.merge.tie-advisory"
LEVEL_NAMES = ("reference", "mutant 03", "mutant 03 (waived)")


def _session(*decisions) -> dict:
    return {"version": 1, "current": {"decisions": list(decisions)}}


VECTORS = [
    {"id": "site.read.absent-session", "title": "A store without session.json reads as absent", "sections": ["4.1"],
     "requirements": ["S8-reader-ignore-unknown-fields"], "level": "reader", "op": "read_store",
     "input": {"store": {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}},
     "expect": [{"path": "/entries/fact_a", "matches": {"status": "ok", "type": "fact"}}]},
    {"id": SHOULD_ONLY, "title": "A wikilink is resolved (this vector expects a link that is not there)",
     "sections": ["3.4"], "requirements": ["S3.4-readers-resolve-wikilinks"], "level": "reader", "op": "read_store",
     "input": {"store": {"files": {"memory/fact_b.md": "---\ntype: fact\nname: B\n---\nsee nothing\n"}}},
     "expect": [{"path": "/entries/fact_b/links", "equals": ["nowhere"]}]},
    {"id": "site.write.add-and-complete", "title": "An action added then completed leaves the live list",
     "sections": ["5.3.2"], "requirements": ["S5.3.2-complete-removes-and-records"], "level": "writer", "op": "write",
     "input": {"steps": [{"op": "add_next_action", "args": {"text": "Ship it"}},
                         {"op": "complete_next_action", "args": {"text": "ship it"}}]},
     "expect": [{"path": "/live/next_actions", "count": 0}]},
    {"id": STICKY, "title": "A hidden local copy stays hidden when the remote copy is newer <b>bold</b>",
     "sections": ["5.3.1"], "requirements": ["S5.3.1-hidden-sticky"], "level": "full", "op": "merge_sessions",
     "input": {"local": _session({"text": "use x", "date": "2026-01-01T00:00:00Z", "hidden": True,
                                  "hidden_at": "2026-01-02T00:00:00Z"}),
               "remote": _session({"text": "use x", "date": "2026-01-05T00:00:00Z"})},
     "expect": [{"path": "/live/decisions", "excludes": ["use x"]}]},
    {"id": ADVISORY, "title": "An equal-date tie (this vector expects the wrong copy)", "sections": ["5.2"],
     "requirements": ["S5.2-newest-wins"], "level": "full", "tags": ["ambiguous"], "ambiguity": "AMB-TIE",
     "op": "merge_sessions",
     "input": {"local": _session({"text": "use y", "date": "2026-01-01T00:00:00Z", "why": "a"}),
               "remote": _session({"text": "use y", "date": "2026-01-01T00:00:00Z", "why": "b"})},
     "expect": [{"path": "/session/current/decisions", "contains": [{"text": "use y", "why": "neither"}]}]},
]


def write_corpus(root: Path) -> Path:
    (root / "site").mkdir(parents=True, exist_ok=True)
    (root / "site" / "vectors.json").write_text(json.dumps({"description": "site tests", "vectors": VECTORS}),
                                                encoding="utf-8")
    return root


def adapter(script: Path) -> str:
    return shlex.join([sys.executable, str(script)])


def build_site(tmp: Path, *extra: str) -> tuple[int, Path, Path]:
    """Run the small corpus against the reference adapter, the mutant and the mutant with its
    failure waived; write the reports and the site. Returns (exit code, json dir, site dir)."""
    corpus = write_corpus(tmp / "vectors")
    listed = tmp / "known.json"
    digest = next(v.digest for v in load_corpus([corpus]).vectors if v.id == STICKY)
    listed.write_text(json.dumps([{"id": STICKY, "reason": "hidden flag lost (tracked)", "digest": digest,
                                   "issue": "javascript:alert(1)"}]), encoding="utf-8")
    matrix = tmp / "matrix.toml"
    matrix.write_text(
        f'[[implementation]]\nname = "{LEVEL_NAMES[0]}"\nadapter = {json.dumps(adapter(REFERENCE))}\n\n'
        f'[[implementation]]\nname = "{LEVEL_NAMES[1]}"\nadapter = {json.dumps(adapter(MUTANT))}\n\n'
        f'[[implementation]]\nname = "{LEVEL_NAMES[2]}"\nadapter = {json.dumps(adapter(MUTANT))}\n'
        f'expect_fail = "{listed.name}"\n', encoding="utf-8")
    json_dir, site = tmp / "reports", tmp / "site"
    code = main(["run", "--matrix", str(matrix), "--no-bundled", "--vectors", str(corpus), "--json-dir", str(json_dir),
                 "--site", str(site), "--quiet", *extra])
    return code, json_dir, site
