"""HTML report pages: escaping, the page shell, tables and SVG bar charts, for audit and eval alike.

A page is one self-contained file: inline CSS and inline SVG, no script, no font, no image, no URL
to fetch, so it opens offline, attaches to a pull request and reads the same printed. Markup is
built only by `el` from names written in this code; every other value is text and is escaped, so a
tool name or an evidence string that holds `<script>` shows as those characters. A
Content-Security-Policy that allows nothing but the inline style is a second lock on the same door.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "PALETTE",
    "Markup",
    "Series",
    "bar_chart",
    "carriable",
    "el",
    "page",
    "percent",
    "prose",
    "table",
    "text",
]


class Markup(str):
    """Markup this module built; any other str handed to `el` is text and is escaped."""

    __slots__ = ()


Child = Markup | str | int | float | None | Iterable["Child"]
AttrValue = str | int | float | bool | None

# What an HTML document cannot carry as text: NUL (dropped by the parser), the other controls but
# whitespace, noncharacters (parse errors) and lone surrogates (not encodable); each becomes U+FFFD.
_UNCARRIABLE = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(
        f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17)
    )
    + "]"
)
# Tag and attribute names come from this module's callers' code, never from data.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9:-]*\Z")
_VOID = frozenset({"meta", "br", "hr", "col", "wbr"})


def carriable(value: str) -> str:
    """The text a browser will show for `value`: line ends as it reads them (CR LF and CR are LF),
    and what HTML cannot carry replaced by U+FFFD."""
    return _UNCARRIABLE.sub("\ufffd", value.replace("\r\n", "\n").replace("\r", "\n"))


def text(value: object) -> Markup:
    return Markup(html.escape(carriable(str(value)), quote=True))


def _attr_name(key: str) -> str:
    # `class_` for the keyword; `data_series` and `text_anchor` for the hyphenated names
    name = key.rstrip("_").replace("_", "-")
    if not _NAME.match(name):
        raise ValueError(f"not an attribute name: {key!r}")
    return name


def _children(children: Iterable[Child]) -> Iterable[str]:
    for child in children:
        if child is None:
            continue
        if isinstance(child, Markup):
            yield child
        elif isinstance(child, str | int | float):
            yield text(child)
        else:
            yield from _children(child)


def el(tag: str, /, *children: Child, **attrs: AttrValue) -> Markup:
    """`<tag attrs>children</tag>`: children that are not Markup are escaped as text."""
    if not _NAME.match(tag):
        raise ValueError(f"not a tag name: {tag!r}")
    parts = [tag]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        attr = _attr_name(key)
        parts.append(attr if value is True else f'{attr}="{text(value)}"')
    head = "<" + " ".join(parts) + ">"
    if tag in _VOID:
        return Markup(head)
    return Markup(head + "".join(_children(children)) + f"</{tag}>")


def prose(value: str) -> Markup:
    """A summary or a fix as written, its `backticked` names set as code (when they pair up)."""
    parts = value.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: shown as written
        return text(value)
    return Markup("".join(el("code", p) if i % 2 else text(p) for i, p in enumerate(parts)))


def percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f}%"


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Child]],
    *,
    numeric: Iterable[int] = (),
    class_: str | None = None,
    groups: Sequence[tuple[str, int]] = (),
) -> Markup:
    """A table; the columns named in `numeric` align right. `groups` (label, columns) heads runs
    of columns above `headers`: a metric over its sides."""
    right = set(numeric)
    over = el(
        "tr",
        [
            el("th", label, colspan=span, scope="colgroup" if span > 1 else None)
            for label, span in groups
        ],
        class_="group",
    )
    head = el(
        "thead", over if groups else None, el("tr", [el("th", h, scope="col") for h in headers])
    )
    body = el(
        "tbody",
        [
            el("tr", [el("td", c, class_="num" if i in right else None) for i, c in enumerate(row)])
            for row in rows
        ],
    )
    return el("table", head, body, class_=class_)


# -- charts -----------------------------------------------------------------------------------

# Series colours in order: the first is "before" (a naive twin, a baseline), the second "after".
PALETTE = (
    "#d9822b",
    "#2b6cd9",
    "#2a9d5c",
    "#8e44ad",
    "#c0392b",
    "#16a085",
    "#7f6a00",
    "#5d6d7e",
)


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    values: Sequence[float | None]


def _at(values: Sequence[float | None], i: int) -> float | None:
    return values[i] if i < len(values) else None


def _short(label: str, most: int) -> str:
    return label if len(label) <= most else label[: most - 1] + "…"


def _number(value: float) -> str:
    return f"{value:.0f}" if value >= 100 or value == int(value) else f"{value:.1f}"


def _ticks(top: float, whole: bool = False) -> list[float]:
    """Gridlines at round steps (1, 2, 2.5 or 5 times a power of ten; whole numbers for counts),
    five or so, the last at or above `top`."""
    if top <= 1e-9:  # nothing to scale: an empty axis to 1
        return [0.0, 1.0]
    rough = top / 5
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= rough)
    if whole:
        step = max(1.0, math.ceil(step))
    count = math.ceil(top / step - 1e-9)
    return [float(f"{step * i:.12g}") for i in range(count + 1)]


# two charts side by side fit a page of 1,100 px
CHART_W, LABEL_W, VALUE_W, BAR_H, BAR_GAP, GROUP_PAD, LEGEND_H, AXIS_H = (
    500,
    180,
    56,
    12,
    2,
    10,
    24,
    18,
)


def bar_chart(
    caption: str,
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    maximum: float | None = None,
    fmt: Callable[[float], str] = _number,
    stacked: bool = False,
    whole: bool = False,
    width: int = CHART_W,
) -> Markup:
    """Horizontal bars, a row of bars per category and a bar per series (one bar split by series
    when `stacked`; gridlines at whole numbers when `whole`). A missing value draws no bar and shows "–"; a stacked bar has no segment for
    a zero. Each bar is a `rect.bar` with
    `data-series` and `data-category`, and says its value in a tooltip."""
    rows = len(categories)
    per_row = 1 if stacked else max(1, len(series))
    group_h = per_row * BAR_H + (per_row - 1) * BAR_GAP + GROUP_PAD
    plot_w = width - LABEL_W - VALUE_W
    height = LEGEND_H + rows * group_h + AXIS_H
    totals = [sum(_at(s.values, i) or 0.0 for s in series) if stacked else 0.0 for i in range(rows)]
    seen = [v for s in series for v in s.values[:rows] if v is not None]
    ticks = _ticks(maximum if maximum is not None else max([*totals, *seen, 0.0]), whole)
    top = ticks[-1]
    parts: list[Markup] = [el("title", caption)]
    x = 0.0
    for s in series:  # the legend
        parts.append(el("rect", x=f"{x:.0f}", y=4, width=10, height=10, fill=s.colour))
        name = _short(s.name, 28)
        parts.append(el("text", el("title", s.name), name, x=f"{x + 14:.0f}", y=13))
        x += 14 + 7 * len(name) + 16
    for tick in ticks:
        tx = LABEL_W + plot_w * tick / top
        parts.append(
            el(
                "line",
                x1=f"{tx:.1f}",
                x2=f"{tx:.1f}",
                y1=LEGEND_H - 4,
                y2=height - AXIS_H,
                class_="grid",
            )
        )
        parts.append(
            el(
                "text",
                fmt(tick),
                x=f"{tx:.1f}",
                y=height - 5,
                text_anchor="middle",
                class_="tick",
            )
        )
    for i, category in enumerate(categories):
        y0 = LEGEND_H + i * group_h + GROUP_PAD / 2
        parts.append(
            el(
                "text",
                el("title", category),
                _short(category, 26),
                x=LABEL_W - 6,
                y=f"{y0 + (per_row * (BAR_H + BAR_GAP)) / 2 + 3:.1f}",
                text_anchor="end",
            )
        )
        offset = 0.0
        for j, s in enumerate(series):
            value = _at(s.values, i)
            y = y0 if stacked else y0 + j * (BAR_H + BAR_GAP)
            if stacked and not value:  # an empty segment is no segment
                continue
            if value is None:
                if not stacked:
                    parts.append(el("text", "–", x=LABEL_W + 4, y=f"{y + BAR_H - 2:.1f}"))
                continue
            w = plot_w * min(value, top) / top
            parts.append(
                el(
                    "rect",
                    el("title", f"{category} · {s.name}: {fmt(value)}"),
                    x=f"{LABEL_W + offset:.1f}",
                    y=f"{y:.1f}",
                    width=f"{max(w, 0.0):.1f}",
                    height=BAR_H,
                    fill=s.colour,
                    class_="bar",
                    data_series=s.name,
                    data_category=category,
                )
            )
            if stacked:
                offset += w
            else:
                parts.append(
                    el("text", fmt(value), x=f"{LABEL_W + w + 4:.1f}", y=f"{y + BAR_H - 2:.1f}")
                )
        if stacked and offset:
            parts.append(
                el(
                    "text",
                    fmt(totals[i]),
                    x=f"{LABEL_W + offset + 4:.1f}",
                    y=f"{y0 + BAR_H - 2:.1f}",
                )
            )
    svg = el(
        "svg",
        parts,
        width=width,
        height=f"{height:.0f}",
        viewBox=f"0 0 {width} {height:.0f}",
        role="img",
        aria_label=caption,
    )
    return el("figure", el("figcaption", caption), svg, class_="chart")


# -- the page ---------------------------------------------------------------------------------

CSS = """
:root { --ink: #1d2329; --muted: #5b6670; --line: #d9dee3; --soft: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 20px 24px 48px; }
header.page { border-bottom: 2px solid var(--ink); margin-bottom: 16px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
h4 { font-size: 14px; margin: 14px 0 4px; }
p.meta, .muted { color: var(--muted); }
nav a { margin-right: 12px; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
code { background: var(--soft); padding: 0 3px; border-radius: 3px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20em; overflow: auto; margin: 4px 0;
  background: #fff; border: 1px solid var(--line); padding: 6px 8px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 10px 3px 0; text-align: left;
  vertical-align: top; }
th { font-weight: 600; }
tr.group th { border-bottom: 1px solid var(--ink); text-align: center; padding-right: 10px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0 12px; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 120px; }
.figure .value { font-size: 22px; font-weight: 700; }
.figure .label { color: var(--muted); font-size: 12px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 28px; align-items: flex-start; }
figure.chart { margin: 6px 0; }
figcaption { font-weight: 600; margin-bottom: 2px; }
svg text { font: 11px system-ui, sans-serif; fill: var(--ink); }
svg text.tick { fill: var(--muted); font-size: 10px; }
svg line.grid { stroke: var(--line); stroke-width: 1; }
details { margin: 6px 0; }
summary { cursor: pointer; }
.note { border-left: 3px solid var(--line); padding: 4px 10px; color: var(--muted); }
@media print { pre { max-height: none; } details { break-inside: avoid; } }
"""

# Nothing but the inline style may load: no script, no font, no image, no connection.
CSP = "default-src 'none'; style-src 'unsafe-inline'"


def page(title: str, body: Child, *, css: str = "") -> str:
    """The whole document: one file, everything inline."""
    head = el(
        "head",
        el("meta", charset="utf-8"),
        el("meta", http_equiv="Content-Security-Policy", content=CSP),
        el("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("meta", name="color-scheme", content="light"),
        el("title", title),
        el("style", Markup(CSS + css)),
    )
    return "<!doctype html>\n" + el("html", head, el("body", el("main", body)), lang="en") + "\n"
