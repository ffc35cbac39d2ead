"""A report page as an HTML parser reads it: the elements, their attributes, and the text, for
property tests over many pages (the browser tests open a few in Chromium)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

# Everything the report pages are built of; a tag or attribute outside these came from data.
_TAGS = """html head meta title style body main header nav section article details summary h1 h2
h3 h4 p span strong code pre ul li a div table thead tbody tr th td figure figcaption svg rect
text line"""
_ATTRIBUTES = """charset http-equiv content name lang class id href title scope open width height
viewbox colspan role aria-label x y x1 x2 y1 y2 fill text-anchor data-series data-category"""
TAGS = frozenset(_TAGS.split())
ATTRIBUTES = frozenset(_ATTRIBUTES.split())
URL_ATTRIBUTES = frozenset({"href", "src", "srcset", "action", "poster", "xlink:href", "data"})


@dataclass
class Parsed:
    tags: list[str] = field(default_factory=list)
    attributes: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, name, value)
    text: str = ""
    style: str = ""

    def urls(self) -> list[str]:
        return [v for _, name, v in self.attributes if name in URL_ATTRIBUTES]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parsed = Parsed()
        self._chunks: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.parsed.tags.append(tag)
        self.parsed.attributes += [(tag, k, v or "") for k, v in attrs]
        if tag not in ("meta",):
            self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        if self._in and self._in[-1] == "style":
            self.parsed.style += data
        else:
            self._chunks.append(data)

    def close(self) -> None:
        super().close()
        self.parsed.text = "".join(self._chunks)


def parse(page: str) -> Parsed:
    reader = _Reader()
    reader.feed(page)
    reader.close()
    return reader.parsed


def texts(fragment: str) -> str:
    """The text of a fragment, as the parser gives it."""
    return parse(fragment).text
