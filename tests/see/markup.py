"""Reading the pages back: a strict check that HTML/SVG is well formed (html.parser), and the
elements with a class, with their attributes and text."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link"}


class Markup(HTMLParser):
    """Fails on a close tag that does not close the innermost open one, or on a tag left
    open; collects every element's tag, attributes and text, and the JSON scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[list] = []
        self.elements: list[dict] = []
        self.scripts: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": []}
        self.elements.append(element)
        if tag not in VOID:
            self.open.append([tag, element])

    def handle_startendtag(self, tag, attrs):
        self.elements.append({"tag": tag, "attrs": dict(attrs), "text": []})

    def handle_endtag(self, tag):
        assert self.open, f"</{tag}> closes nothing"
        top, element = self.open.pop()
        assert top == tag, f"</{tag}> closes <{top}>"
        script_id = element["attrs"].get("id")
        if tag == "script" and element["attrs"].get("type") == "application/json":
            self.scripts[script_id] = "".join(element["text"])

    def handle_data(self, data):
        for _, element in self.open:
            element["text"].append(data)


def parse(text: str) -> Markup:
    reader = Markup()
    reader.feed(text)
    reader.close()
    assert not reader.open, f"left open: {[tag for tag, _ in reader.open]}"
    return reader


def with_class(reader: Markup, name: str, tag: str | None = None) -> list[dict]:
    return [
        e
        for e in reader.elements
        if name in e["attrs"].get("class", "").split() and (tag is None or e["tag"] == tag)
    ]


def text_of(element: dict) -> str:
    return "".join(element["text"])


def json_script(reader: Markup, element_id: str):
    return json.loads(reader.scripts[element_id])


def node_titles(reader: Markup) -> list[str]:
    """The hover text of each drawn node, in box order."""
    titles = []
    for node in with_class(reader, "node", "g"):
        titles.append(node)
    return [_title_after(reader, node) for node in titles]


def _title_after(reader: Markup, node: dict) -> str:
    i = reader.elements.index(node)
    title = reader.elements[i + 1]
    assert title["tag"] == "title"
    return text_of(title)


def first_line_ops(titles: list[str]) -> list[str]:
    """'subtract 64x128 float32' from each hover text's first line."""
    return [re.split(r"\n", t)[0] for t in titles]
