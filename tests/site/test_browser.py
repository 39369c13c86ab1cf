"""The site in a real browser: Debian's Chromium, headless, driven by Playwright.

The pages are opened from disk (file://), as a person who downloaded a CI
artifact would. Nothing here downloads a browser: Playwright is pointed at
the system's `chromium`; when it or Playwright is missing, these tests skip
and say why. One browser serves the whole module.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("MEMOIR_CHROMIUM"), "chromium", "chromium-browser"):
        found = candidate and shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (pip install '.[test]'): browser tests skipped")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium): browser tests skipped")
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except Error as error:
            pytest.skip(f"chromium at {executable} does not start: {str(error).splitlines()[0]}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors, page errors and every request made."""
    context = browser.new_context()
    opened = context.new_page()
    opened.problems = []
    opened.requests = []
    opened.on("console", lambda message: message.type == "error" and opened.problems.append(message.text))
    opened.on("pageerror", lambda error: opened.problems.append(str(error)))
    opened.on("request", lambda request: opened.requests.append(request.url))
    yield opened
    context.close()


def cell(page, requirement: str, implementation: str):
    """The matrix cell of a requirement and an implementation (its column, found by its header)."""
    slugs = [header.get_attribute("data-impl") for header in page.locator("#matrix th.impl").all()]
    return page.locator(f'tr[data-req="{requirement}"] td').nth(slugs.index(implementation))


def test_the_matrix_shows_each_implementation_s_cell_for_a_known_failure(page, site):
    page.goto((site / "index.html").as_uri())
    assert cell(page, "S5.3.1-hidden-sticky", "reference").inner_text().strip() == "pass"
    failing = cell(page, "S5.3.1-hidden-sticky", "mutant-03")
    assert failing.inner_text().strip() == "fail" and "fail" in failing.get_attribute("class").split()
    assert cell(page, "S5.3.1-hidden-sticky", "mutant-03-waived").inner_text().strip() == "waived"
    assert cell(page, "S3.4-readers-resolve-wikilinks", "reference").inner_text().strip() == "SHOULD only"
    assert cell(page, "S5.2-newest-wins", "reference").inner_text().strip() == "advisory"
    waived = page.locator('th.impl[data-impl="mutant-03-waived"]')
    assert waived.locator("dd.earned").inner_text() == "Writer"
    assert waived.locator("dd.waived").inner_text() == "1 (Full if fixed)"
    assert page.problems == []


def test_filters_hide_and_show_rows(page, site):
    page.goto((site / "index.html").as_uri())
    rows = page.locator("#matrix tr[data-row]")
    total = rows.count()
    assert page.locator("[data-count]").inner_text() == f"{total} of {total} shown"

    page.select_option('select[name="outcome"]', "fail")
    visible = page.locator("#matrix tr[data-row]:visible")
    assert [row.get_attribute("data-req") for row in visible.all()] == ["S5.3.1-hidden-sticky"]
    assert page.locator("[data-count]").inner_text() == f"1 of {total} shown"
    assert page.locator('tr[data-group="5.3.1"]').is_visible()
    assert not page.locator('tr[data-group="3.4"]').is_visible()

    page.select_option('select[name="outcome"]', "")
    page.fill('input[name="q"]', "WIKILINKS")
    assert [row.get_attribute("data-req") for row in page.locator("#matrix tr[data-row]:visible").all()] == [
        "S3.4-readers-resolve-wikilinks"]

    page.fill('input[name="q"]', "")
    page.select_option('select[name="level"]', "writer")
    levels = {row.get_attribute("data-level") for row in page.locator("#matrix tr[data-row]:visible").all()}
    assert levels == {"writer"}
    page.select_option('select[name="level"]', "")
    page.select_option('select[name="section"]', "5")
    sections = {row.get_attribute("data-sections") for row in page.locator("#matrix tr[data-row]:visible").all()}
    assert sections and all(section.startswith("5.") for section in sections)

    page.select_option('select[name="section"]', "")
    assert rows.count() == page.locator("#matrix tr[data-row]:visible").count() == total
    assert page.problems == []


def test_a_failure_s_details_open(page, site):
    page.goto((site / "impl" / "mutant-03.html").as_uri())
    details = page.locator('details[id="v-site.merge.hidden-sticky"]')
    assert not details.locator("pre.expected").is_visible()
    details.locator("summary").click()
    assert details.get_attribute("open") is not None
    assert details.locator("pre.expected").first.is_visible() and details.locator("pre.received").first.is_visible()
    assert "merge_sessions" in details.locator("pre.sent").inner_text()
    assert page.problems == []


def test_a_link_to_a_failure_opens_it(page, site):
    page.goto((site / "req" / "s5-3-1-hidden-sticky.html").as_uri())
    page.locator('tr[data-vector="site.merge.hidden-sticky"] a', has_text="fail").click()
    page.wait_for_load_state()
    assert page.url.endswith("impl/mutant-03.html#v-site.merge.hidden-sticky")
    assert page.locator('details[id="v-site.merge.hidden-sticky"]').get_attribute("open") is not None
    assert page.problems == []


def test_no_page_has_a_console_error_or_asks_for_anything_off_disk(page, site):
    for path in sorted(site.rglob("*.html")):
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
    assert page.problems == []
    assert [url for url in page.requests if not url.startswith("file://")] == []


def test_without_chromium_on_path_the_tests_skip(monkeypatch):
    monkeypatch.delenv("MEMOIR_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", "")
    assert chromium_path() is None


def test_a_matrix_cell_links_to_its_failure_whose_card_shows_the_input(page, site):
    page.goto((site / "index.html").as_uri())
    cell(page, "S3.4-readers-resolve-wikilinks", "reference").locator("a").click()
    page.wait_for_load_state()
    assert page.url.endswith("impl/reference.html#v-site.read.links-should")
    details = page.locator('details[id="v-site.read.links-should"]')
    assert details.get_attribute("open") is not None
    # the input store's files, as the console shows them, and the command that shows the vector whole
    assert 'memory/fact_b.md (39 bytes): "---\\ntype: fact' in details.locator("pre.input").inner_text()
    assert "memoir-conform vectors show site.read.links-should --vectors " in details.locator("p.show").inner_text()
    assert page.problems == []
