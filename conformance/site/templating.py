"""The Jinja2 environment of the site: templates shipped in this package, everything escaped.

Every value in a page comes from a run report, and a report holds what an
adapter sent back: untrusted text. Autoescaping is on for every template
(HTML and SVG alike), no template marks report data safe, and the page
script never writes report data as markup.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jinja2

from conformance import safe_text
from conformance.report.failure_block import readable_args

TEMPLATES = Path(__file__).resolve().parent / "templates"


def printable(value: object) -> str:
    """Control characters (a terminal escape, a NUL, a bidi override) shown as visible escapes."""
    return safe_text.printable(str(value), multiline=True)


def pretty_json(value: object, limit: int | None = None) -> str:
    """Indented JSON, `{"$absent": true}` shown as (absent), cut at `limit` characters."""
    if value == {"$absent": True}:
        return "(absent)"
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters in the JSON report)"
    return printable(text)


def readable_sent(sent: list[dict]) -> list[dict]:
    """The requests sent, session texts shown as the JSON they hold (as the console shows them)."""
    return [{**request, "args": readable_args(request["args"])} for request in sent]


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,               # every template, .svg included
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["printable"] = printable
    env.filters["pretty_json"] = pretty_json
    env.filters["readable_sent"] = readable_sent
    return env
