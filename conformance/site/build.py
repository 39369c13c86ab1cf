"""Writing the static results site: plain HTML and CSS, a little JavaScript, no server.

Layout of the output directory:

    index.html            the matrix: requirements (by spec section) x implementations
    impl/<slug>.html      one implementation: levels, every failure with what was sent,
                          expected and received, the requirement text, the adapter's stderr
    req/<slug>.html       one requirement: its text, the vectors that check it, who passes
    badges/<slug>.json    shields.io endpoint; badges/<slug>.svg: the same badge as an image
    assets/               site.css, site.js (the filters)
    site.json             what the site was built from (kit, corpus digests, date, levels)

Every page opens from the file system and names the corpus digest, kit
version, spec version and date it comes from. `site.json` also marks the
directory as a site, so that building again may replace it; any other
non-empty directory is refused.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from conformance import __version__
from conformance.runner import result_model
from conformance.runner.grading import LEVEL_NAMES
from conformance.report.junit import _section_key
from conformance.runner.requirements import RequirementIndex
from conformance.site import cells
from conformance.site.badges import badge
from conformance.site.reports import SiteReport, unique_slugs
from conformance.site.templating import environment

MANIFEST = "site.json"
ASSETS = Path(__file__).resolve().parent / "assets"
OWN_ENTRIES = ("index.html", MANIFEST, "impl", "req", "badges", "assets")
SENT_CHARS = 12000      # per vector, on a page; the JSON report has everything
VALUE_CHARS = 6000      # per expected or received value
STDERR_CHARS = 6000
SHOWN_OUTCOMES = ("xpass", "stale")
# The result model's buckets in an implementation's levels table (each level's own vectors).
LEVEL_BUCKETS = (result_model.MUST_FAILED, result_model.ERRORS, result_model.SHOULD_FAILED,
                 result_model.ADVISORY_FAILED, result_model.WAIVED, result_model.NOT_APPLICABLE)   # shown on an implementation's page even though nothing failed


@dataclass(frozen=True)
class Stamp:
    """What the pages come from: shown on every page."""

    corpus_digests: tuple[str, ...]
    kit_versions: tuple[str, ...]
    spec_versions: tuple[str, ...]
    generated: str
    site_kit: str = __version__

    @property
    def mixed(self) -> bool:
        return len(self.corpus_digests) > 1 or len(self.kit_versions) > 1


def stamp_of(reports: list[SiteReport], generated: str) -> Stamp:
    def distinct(values) -> tuple[str, ...]:
        return tuple(dict.fromkeys(values))

    return Stamp(distinct(r.data["corpus_digest"] for r in reports), distinct(r.data["kit"]["version"] for r in reports),
                 distinct(r.data["spec"] for r in reports), generated)


def generation_time() -> datetime:
    """Now, or SOURCE_DATE_EPOCH when set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), tz=timezone.utc)
    return datetime.now(timezone.utc)


def prepare(out: Path) -> str | None:
    """Make `out` ready for a site, or say why it cannot be used."""
    if out.exists() and not out.is_dir():
        return f"{out} is a file, not a directory"
    if out.is_dir() and any(out.iterdir()):
        if not (out / MANIFEST).is_file():
            return f"{out} is not empty and holds no site built before ({MANIFEST} is missing): choose another directory"
        for name in OWN_ENTRIES:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    out.mkdir(parents=True, exist_ok=True)
    # Marks the directory as a site at once, so that a build that stops half-way can be run again.
    (out / MANIFEST).write_text("{}\n", encoding="utf-8")
    return None


@dataclass(frozen=True)
class Built:
    out: Path
    pages: int
    requirements: int


def build(reports: list[SiteReport], out: Path, index: RequirementIndex,
          generated: datetime | None = None) -> Built | str:
    """Write the site for `reports` into `out`; a message when `out` cannot be used."""
    problem = prepare(out)
    if problem:
        return problem
    when = (generated or generation_time()).strftime("%Y-%m-%d %H:%M UTC")
    stamp = stamp_of(reports, when)
    sections = cells.matrix(reports, index)
    rows = [row for section in sections for row in section.rows]
    pages = dict(zip((row.id for row in rows), unique_slugs([row.id for row in rows])))
    badges = [badge(report) for report in reports]
    env = environment()
    common = {"stamp": stamp, "reports": reports, "badges": badges, "req_pages": pages, "labels": cells.STATE_LABELS,
              "help": cells.STATE_HELP, "level_names": LEVEL_NAMES, "index": index}

    def write(relative: str, template: str, **context) -> None:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        root = "../" * relative.count("/")
        target.write_text(env.get_template(template).render(root=root, **common, **context), encoding="utf-8")

    shutil.copytree(ASSETS, out / "assets")
    levels = [level for level in cells.LEVEL_ORDER[:3] if any(row.level == level for row in rows)]
    tops = sorted({cells.top_section(section.id) for section in sections}, key=_section_key)
    write("index.html", "index.html", sections=sections, levels=levels, tops=tops, states=cells.STATES,
          requirement_count=len(rows))
    for report, shown in zip(reports, badges):
        write(f"impl/{report.slug}.html", "implementation.html", report=report, badge=shown,
              **implementation_context(report))
        (out / "badges").mkdir(exist_ok=True)
        (out / "badges" / f"{report.slug}.json").write_text(json.dumps(shown.endpoint()) + "\n", encoding="utf-8")
        (out / "badges" / f"{report.slug}.svg").write_text(shown.svg(), encoding="utf-8")
    for section in sections:
        for row in section.rows:
            write(f"req/{pages[row.id]}.html", "requirement.html", row=row)
    manifest = {
        "kit": __version__,
        "generated": when,
        "corpus_digests": list(stamp.corpus_digests),
        "implementations": [
            {"label": report.label, "page": f"impl/{report.slug}.html", "report": report.path.name,
             "claimed": report.grade["claimed"], "earned": report.grade["earned"],
             "reached_if_waived_fixed": report.grade["reached_if_waived_fixed"], "waived": len(report.waived),
             "badge": shown.message}
            for report, shown in zip(reports, badges)
        ],
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return Built(out, 1 + len(reports) + len(rows), len(rows))


def _section_state(vector: dict) -> str:
    """A vector's column in the outcomes by section: its state, or a stale or unexpected pass of the expect-fail file."""
    return vector["outcome"] if vector["outcome"] in SHOWN_OUTCOMES else cells.vector_state(vector)


def implementation_context(report: SiteReport) -> dict:
    """An implementation's page: its failures (worst first) and its outcomes by section."""
    vectors = report.data["vectors"]
    shown = [vector for vector in vectors
             if cells.vector_state(vector) not in (cells.PASS, cells.NA) or vector["outcome"] in SHOWN_OUTCOMES]
    shown.sort(key=lambda vector: (cells.STATES.index(cells.vector_state(vector)), vector["id"]))
    not_applicable = Counter((vector["detail"] or "", vector["not_applicable"]["kind"], vector["not_applicable"]["blocks"])
                             for vector in vectors if vector["not_applicable"])
    by_section: dict[tuple[str, str], Counter] = {}
    for vector in vectors:
        key = (vector["sections"][0] if vector["sections"] else "?", vector["level"])
        by_section.setdefault(key, Counter())[_section_state(vector)] += 1
    # Counted as the failures list and the matrix show them: a SHOULD-only failure is not a "fail".
    columns = [(state, cells.STATE_LABELS[state]) for state in cells.STATES] + [(o, o) for o in SHOWN_OUTCOMES]
    outcomes = [(state, label) for state, label in columns if any(counts[state] for counts in by_section.values())]
    section_rows = sorted(by_section.items(),
                          key=lambda item: (_section_key(item[0][0]), cells.LEVEL_ORDER.index(item[0][1])))
    return {
        "results": result_model.of_report(report.data), "level_buckets": LEVEL_BUCKETS,
        "bucket_labels": result_model.LABELS,
        "failures": [(vector, cells.vector_state(vector)) for vector in shown],
        "not_applicable": sorted(not_applicable.items(), key=lambda item: (-item[1], item[0])),
        "section_rows": section_rows, "outcomes": outcomes,
        "tops": sorted({cells.top_section(vector["sections"][0]) for vector in shown if vector["sections"]},
                       key=_section_key),
        "limits": {"sent": SENT_CHARS, "value": VALUE_CHARS, "stderr": STDERR_CHARS},
    }
