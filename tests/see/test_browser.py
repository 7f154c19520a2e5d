"""The explain page and a notebook's view in a real browser: headless Chromium, driven by
playwright (the distribution's `chromium`: `apt-get install chromium`, `pip install
playwright`; .ci/run installs both). Skipped where either is missing.

The page of a real program opens without console errors and without fetching anything; it
draws every node and kernel; a click on a kernel highlights its nodes, on a node shows its line
of code, on a split edge says why; a screenshot of it lands in the test's tmp_path.
"""

from __future__ import annotations

import re
import shutil

import pytest

import lazyinfini as li
from lazyinfini._device import get_device
from lazyinfini._see import page as page_module
from lazyinfini._see.scene import scene_of

from .programs import LINES, many_kernels, transpose_clip_sum_rearrange

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Tab:
    """A page in its own context, noting console errors and every request it makes."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def open(self, path) -> None:
        self.page.goto(path.as_uri())

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()


@pytest.fixture
def tab(browser):
    opened = Tab(browser)
    yield opened
    opened.context.close()


def test_the_page_of_a_program_links_its_graph_kernels_nodes_and_decisions(tab, tmp_path):
    arrays = transpose_clip_sum_rearrange()
    sched = li.inspect.schedule(*arrays)
    scene = scene_of(sched)
    tab.open(_report(arrays, tmp_path))
    assert tab.errors == [] and tab.requests == [(tmp_path / "page.html").as_uri()]
    assert tab.count("#li-dag g.node") == len(scene.boxes) == 11
    assert tab.count("#li-dag g.kernel") == len(sched.kernels) == 3

    tab.page.click("#k0 > rect", position={"x": 4, "y": 4})  # the frame of kernel 0
    highlighted = tab.page.locator("#li-dag g.node.hl")
    assert highlighted.count() == len(sched.kernels[0].nodes) == 2
    assert set(highlighted.evaluate_all("els => els.map(e => e.dataset.kernel)")) == {"0"}
    assert get_device("cpu").describe(sched.kernels[0]) in tab.page.inner_text("#detail")
    assert tab.count("tr.krow.hl") == 1

    tab.page.click("#li-dag g.node:has-text('clip')")
    detail = tab.page.inner_text("#detail")
    assert f"programs.py:{LINES['clip']}" in detail
    assert "y = li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1)" in detail

    tab.page.locator("#li-dag g.edge.split").first.click(force=True)
    assert "why: consumer is a reduce op (sum)" in tab.page.inner_text("#detail")
    assert tab.count("tr.drow.hl") == 1
    shot = tmp_path / "page.png"
    tab.page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert tab.errors == []


def _report(arrays, tmp_path, **kwargs):
    path = tmp_path / "page.html"
    li.report(*arrays, path=path, **kwargs)
    return path


def test_the_measured_run_links_its_timeline_to_the_kernels(tab, tmp_path):
    tab.open(_report(transpose_clip_sum_rearrange(), tmp_path, analyze=True))
    assert tab.count("rect.tbar") == 3
    tab.page.locator("rect.tbar[data-kernel='2']").dispatch_event("click")
    assert tab.count("tr.krow.hl[data-kernel='2']") == 1
    assert "rearrange plan" in tab.page.inner_text("#detail")
    assert tab.page.locator("#detail svg.plan").is_visible()
    assert tab.errors == []


def test_a_big_page_attaches_its_drawing_and_rows_as_they_are_needed(tab, tmp_path, monkeypatch):
    for name, value in (("INLINE_BOXES", 50), ("BAND", 400), ("INLINE_ROWS", 10), ("CHUNK", 20)):
        monkeypatch.setattr(page_module, name, value)
    x = many_kernels(40)
    sched = li.inspect.schedule(x)
    total = len(scene_of(sched).boxes)
    tab.open(_report([x], tmp_path))
    first = tab.count("#li-dag g.node")
    assert 0 < first < total
    assert 10 <= tab.count("tr.krow") < len(sched.kernels)  # and those in view
    assert tab.count("tr.drow") == 10
    last = len(sched.kernels) - 1
    while tab.count(f"tr.krow[data-kernel='{last}']") == 0:  # rows come as the page scrolls
        rows = tab.count("tr.krow")
        tab.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        tab.page.wait_for_function(f"document.querySelectorAll('tr.krow').length > {rows}")
    tab.page.click(f"tr.krow[data-kernel='{last}']")  # the graph travels there
    assert tab.count("#li-dag g.node.hl") == len(sched.kernels[last].nodes)
    tab.page.locator("#graph").evaluate("pane => pane.scrollTop = pane.scrollHeight")
    tab.page.wait_for_function(f"document.querySelectorAll('#li-dag g.node').length > {first}")
    rows = tab.page.locator("tr.drow")
    assert rows.count() > 10
    python, script = rows.nth(9).inner_text(), rows.nth(10).inner_text()  # made by each
    node = r"\S+ [\dx]+ \w+ at (\w+/)?programs.py:\d+"  # NOTE: see/ where names collide
    pattern = rf"(fused|split)\t{node}\t{node}\t."
    assert re.match(pattern, python) and re.match(pattern, script), (python, script)
    assert tab.errors == []


def test_a_notebook_shows_a_pending_array(tab):
    y, _, _ = transpose_clip_sum_rearrange()
    s = li.sum(y, axis=0)
    tab.page.set_content(f"<html><body>{s._repr_html_()}</body></html>")
    assert tab.count("svg.dag g.node") == len(li.graph(s)) == 8
    assert tab.count("svg.dag g.kernel") == 2
    assert tab.page.locator("svg.dag").bounding_box()["height"] > 100
    assert "pending: 6 nodes" in tab.page.inner_text("body")
    assert tab.errors == [] and s._node.op.label == "sum"
