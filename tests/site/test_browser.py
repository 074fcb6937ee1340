"""The small site in a real browser: headless Chromium (Debian's ``chromium`` package, no
browser download) driven by Playwright. From the home page, by clicks: SKIP-THM-2, a case
citing it, an engine's failing result on it (and the matrix cell), its reproduction; the
search box; then every internal link of the site followed: no broken link, no missing
anchor, no console error. A screenshot is saved in ``$INCSPEC_ARTIFACTS`` (default: the
test's tmp folder). A missing browser or Playwright fails the test, it is not skipped."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlparse

import pytest

from site_builder.build import Options, build
from site_builder.paths import ROOT, case_anchor
from site_builder.sources import CaseFile, failing, read, small

pytestmark = pytest.mark.browser
CHROMIUM = Path(os.environ.get("INCSPEC_CHROMIUM", "/usr/bin/chromium"))
#: how long a page may take to get ready (the search index loads in a worker): a wait returns
#: as soon as its condition holds, so a long limit costs nothing on a quiet machine
READY_MS = 60_000


def browser_or_fail() -> Any:
    """Playwright's entry point, or a failure saying what to install."""
    if not CHROMIUM.is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: install Debian's package (apt-get install -y chromium) "
                    "or point INCSPEC_CHROMIUM at a Chromium binary", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright for Python is not installed: pip install -e '.[site]' (the browser itself "
                    "is the system's Chromium, no download)", pytrace=False)
    return sync_playwright


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The small site built into a tmp folder and served over HTTP: (its URL, the folder)."""
    tmp = tmp_path_factory.mktemp("site")
    try:
        build(Options(out=tmp / "site", small=True), tmp / "work")
    except ModuleNotFoundError as exc:
        pytest.fail(f"the site extra is not installed ({exc}): pip install -e '.[site]'", pytrace=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(tmp)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/site/", tmp
    finally:
        server.shutdown()
        thread.join()


@pytest.fixture()
def page(served: tuple[str, Path]) -> Iterator[Any]:
    """A fresh page; console errors, page errors and failed requests are collected on ``errors``."""
    sync_playwright = browser_or_fail()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        pg = browser.new_page()
        pg.set_default_timeout(READY_MS)
        errors: list[str] = []
        pg.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        # a request cut short by the next navigation (net::ERR_ABORTED) is no broken link
        pg.on("requestfailed", lambda r: None if "ERR_ABORTED" in (r.failure or "")
              else errors.append(f"request failed: {r.url} ({r.failure})"))
        pg.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        pg.errors = errors
        yield pg
        browser.close()


def artifacts(default: Path) -> Path:
    folder = Path(os.environ.get("INCSPEC_ARTIFACTS", str(default)))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def the_failing_case() -> tuple[CaseFile, str]:
    """The small site's case citing SKIP-THM-2 that an engine fails, and that engine."""
    found = small(read(ROOT))
    for case in found.cases_citing("SKIP-THM-2"):
        for engine in found.engines:
            if failing(found.result(engine, case.id)):
                return case, engine["name"]
    raise AssertionError("the small site has no failing engine cell on a case citing SKIP-THM-2")


def test_theorem_to_case_to_engine_result_to_reproduction(page: Any, served: tuple[str, Path]) -> None:
    base, tmp = served
    case, engine = the_failing_case()
    anchor = case_anchor(case.area, case.slug)
    page.goto(base + "index.html")
    page.get_by_role("link", name="SKIP-THM-2", exact=True).first.click()
    page.wait_for_url("**/spec/skip.html#SKIP-THM-2")
    assert page.locator("#SKIP-THM-2").is_visible()
    page.locator(f"a:text-is('{case.id}')").first.click()
    page.wait_for_url(f"**/suite/{case.area}/{case.slug}.html")
    assert page.locator("table td code", has_text=case.raw["steps"][0]["op"]).count() >= 1
    page.locator(f"a[href$='engines/{engine}.html#{anchor}']").first.click()
    page.wait_for_url(f"**/engines/{engine}.html#{anchor}")
    section = page.locator(f"h3#{anchor}")
    assert section.is_visible()
    repro = page.locator(f"xpath=//h3[@id='{anchor}']/following-sibling::p"
                         "[starts-with(normalize-space(.), 'Reproduction')][1]/a")
    assert "Cause:" in page.locator(f"xpath=//h3[@id='{anchor}']/following-sibling::p[starts-with(., 'Cause')]"
                                    ).first.inner_text()
    page.screenshot(path=str(artifacts(tmp) / "site-engine-failure.png"), full_page=False)
    repro.click()
    page.wait_for_url("**/engines/reproduction-*.html")
    assert page.locator("pre code").first.is_visible()
    # the same cell from the matrix, filtered by area and level
    page.goto(base + "engines/index.html")
    page.select_option("#filter-area", case.area)
    page.select_option("#filter-level", case.raw["level"])
    rows = page.locator("#engine-matrix tbody tr")
    visible = [rows.nth(i).get_attribute("data-area") for i in range(rows.count()) if rows.nth(i).is_visible()]
    assert visible and set(visible) == {case.area}
    page.locator("#engine-matrix").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts(tmp) / "site-matrix.png"), full_page=False)
    page.locator(f"tr#{anchor} a[href='{engine}.html#{anchor}']").click()
    page.wait_for_url(f"**/engines/{engine}.html#{anchor}")
    assert page.locator(f"h3#{anchor}").is_visible()
    assert page.errors == []


def test_the_search_box_finds_a_theorem(page: Any, served: tuple[str, Path]) -> None:
    base, _ = served
    page.goto(base + "index.html")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    # the search index loads in a worker: type once it is ready ("Type to start searching")
    page.wait_for_function("(document.querySelector('.md-search-result__meta') || {}).textContent"
                           " && document.querySelector('.md-search-result__meta').textContent.includes('Type')",
                           timeout=READY_MS)
    page.locator("input.md-search__input").press_sequentially("incremental correctness", delay=20)
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=READY_MS)
    assert "SKIP-THM-2" in page.locator(".md-search-result").inner_text()
    assert page.errors == []


def test_every_internal_link_resolves_with_its_anchor(page: Any, served: tuple[str, Path]) -> None:
    """Crawl from the home page: every link inside the site names a page that loads (or a file
    served), and its fragment an element of that page. Links leaving the site (to the
    repository's files) are the generator's link checker's to check."""
    base, _ = served
    ids: dict[str, set[str]] = {}
    wanted: list[tuple[str, str, str]] = []  # (from page, target page, fragment)
    queue, files = [base + "index.html"], set[str]()
    while queue:
        url = queue.pop()
        if url in ids:
            continue
        response = page.goto(url)
        assert response is not None and response.ok, f"{url}: HTTP {response.status if response else '?'}"
        ids[url] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        for href in hrefs:
            target, fragment = urldefrag(href)
            if not target.startswith(base):
                continue  # another site, or the repository's files
            path = urlparse(target).path
            if path.endswith(".html") or path.endswith("/"):
                queue.append(target)
                if fragment:
                    wanted.append((url, target, fragment))
            else:
                files.add(target)
    missing = [f"{src} -> {dst}#{frag}" for src, dst, frag in wanted if frag not in ids.get(dst, set())]
    assert missing == []
    for url in files:
        assert page.request.get(url).ok, url
    assert len(ids) >= 20
    assert page.errors == []
