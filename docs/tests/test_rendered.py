"""The built site renders in a browser and its internal links resolve.

The index and one API page are opened in headless Chromium (Debian's package,
installed by scripts/setup.sh) and the DOM it built is checked: the page title,
the navigation sidebar listing every page, the page's heading, and every link and
image of the page pointing at a file of the build (and, for a link with a
fragment, at an element with that id). Every other page gets the same link check
from its HTML file. Nothing here uses the network: only relative links are
followed; links to other sites are counted, not fetched.
"""

from __future__ import annotations

import html.parser
import os
import pathlib
import shutil
import subprocess
import urllib.parse

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("COOP_DOCS_BUILD", DOCS / "_build"))
HTML = BUILD / "html"
BROWSER_PAGES = ["index.html", "api.html"]
TOP_PAGES = ["api.html", "cli.html", "troubleshooting.html", "performance.html", "examples.html", "guide/groups.html"]


class Page(html.parser.HTMLParser):
    """What the checks need of a page: title, ids, links, the sidebar's links, h1."""

    def __init__(self, text: str):
        super().__init__()
        self.title, self.h1 = "", ""
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sidebar_links: list[str] = []
        self._open: list[str] = []  # the elements being read, with "sidebar" marking the navigation
        self._in = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag in ("a", "link") and attrs.get("href"):
            self.links.append(attrs["href"])
            if "sidebar" in self._open and tag == "a":
                self.sidebar_links.append(attrs["href"])
        if tag in ("img", "script") and attrs.get("src"):
            self.links.append(attrs["src"])
        if tag in ("title", "h1"):
            self._in = tag
        if tag in ("br", "img", "link", "meta", "input", "hr", "source", "path", "rect", "circle", "use"):
            return  # void elements have no end tag
        self._open.append("sidebar" if "sidebar-tree" in classes else tag)

    def handle_endtag(self, tag):
        if tag in ("title", "h1"):
            self._in = None
        if self._open and tag not in ("br", "img", "link", "meta", "input", "hr"):
            self._open.pop()

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "h1":
            self.h1 += data


def _read(path: pathlib.Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def broken_links(page_path: pathlib.Path, page: Page) -> list[str]:
    """Relative links of `page` that name no file of the build, or no element of it."""
    broken = []
    for link in page.links:
        parts = urllib.parse.urlsplit(link)
        if parts.scheme or link.startswith("//"):
            continue  # another site: not followed
        target = page_path if not parts.path else (page_path.parent / urllib.parse.unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.exists() or HTML.resolve() not in [target, *target.parents]:
            broken.append(f"{link} (no file {target})")
            continue
        if parts.fragment and target.suffix == ".html":
            ids = page.ids if target == page_path else _read(target).ids
            if urllib.parse.unquote(parts.fragment) not in ids:
                broken.append(f"{link} (no element with id {parts.fragment!r})")
    return broken


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def rendered_dom(page_path: pathlib.Path, profile: pathlib.Path) -> str:
    browser = _chromium()
    if browser is None:
        pytest.fail("no Chromium on PATH: scripts/setup.sh installs Debian's chromium")
    command = [
        browser,
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3000",  # let the theme's scripts run before the DOM is taken
        "--dump-dom",
        page_path.resolve().as_uri(),
    ]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"chromium exited with {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


def _all_pages() -> list[pathlib.Path]:
    if not HTML.exists():
        return []
    return sorted(path for path in HTML.rglob("*.html") if "_static" not in path.parts)


def test_the_site_was_built():
    assert (HTML / "index.html").exists(), f"no {HTML}/index.html: build the docs first (scripts/docs.sh)"
    for page in TOP_PAGES:
        assert (HTML / page).exists(), page


@pytest.mark.parametrize("name", BROWSER_PAGES)
def test_page_renders_in_chromium(name, tmp_path):
    path = HTML / name
    page = Page(rendered_dom(path, tmp_path / "profile"))
    assert "cuda.coop" in page.title, page.title
    assert page.h1.strip(), "the page has no heading"
    targets = set()
    for link in page.sidebar_links:
        relative = urllib.parse.urlsplit(link).path
        targets.add((path.parent / relative).resolve() if relative else path.resolve())
    for top in TOP_PAGES:
        assert (HTML / top).resolve() in targets, f"the navigation of {name} has no link to {top}"
    assert not broken_links(path, page), broken_links(path, page)


@pytest.mark.parametrize("path", _all_pages(), ids=lambda path: str(path.relative_to(HTML)))
def test_internal_links_resolve(path):
    assert not broken_links(path, _read(path))
