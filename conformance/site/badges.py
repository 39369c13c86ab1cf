"""Badges: what an implementation may show in its README, from the level earned with nothing waived.

For each run report, a shields.io endpoint JSON (https://shields.io/badges/endpoint-badge)
and a self-contained SVG, both saying the same thing: `memoir | Full 0.1.2`,
`memoir | Reader 0.1.2 (3 waived)`, `memoir | no level 0.1.2`. A waived
failure never lifts the level on a badge: the level is the report's
`grade.earned` (earned with nothing waived), and the waived vectors are
counted next to it. A filtered run or a shard grades no level, and its
badge says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.site.reports import SiteReport
from conformance.site.templating import environment

LABEL = "memoir"
COLORS = {  # shields' named colours, and their hex for the SVG
    "full": ("brightgreen", "#4c1"),
    "writer": ("green", "#97ca00"),
    "reader": ("yellowgreen", "#a4a61d"),
    None: ("red", "#e05d44"),
    "ungraded": ("lightgrey", "#9f9f9f"),
}
# Approximate advance widths (px) of Verdana 11px, the badge font: close
# enough to size the two halves of the badge around their text.
_WIDTHS = dict.fromkeys("ijl.,:;'|!", 3.6) | dict.fromkeys("frt()[] /", 4.6) | dict.fromkeys("mwMW", 10.5)


@dataclass(frozen=True)
class Badge:
    label: str
    message: str
    color: str        # shields' named colour
    hex: str

    def endpoint(self) -> dict:
        return {"schemaVersion": 1, "label": self.label, "message": self.message, "color": self.color}

    def svg(self) -> str:
        left, right = text_width(self.label) + 10, text_width(self.message) + 10
        return environment().get_template("badge.svg").render(badge=self, left=left, right=right)


def text_width(text: str) -> int:
    return round(sum(_WIDTHS.get(char) or (7.0 if char.isdigit() else 7.6 if char.isupper() else 6.8)
                     for char in text))


def badge(report: SiteReport) -> Badge:
    grade = report.grade
    if grade["filtered"] or report.shard:
        what = f"shard {report.shard}" if report.shard else "filtered run"
        return Badge(LABEL, f"{what}, no level graded", *COLORS["ungraded"])
    earned = grade["earned"]
    message = f"{report.level_name('earned') if earned else 'no level'} {report.data['spec']}"
    if report.waived:
        message += f" ({len(report.waived)} waived)"
    return Badge(LABEL, message, *COLORS[earned])
