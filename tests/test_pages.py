"""The report pages' primitives: whatever a string holds, it is shown as text, never as markup."""

from __future__ import annotations

import itertools
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.pages import (
    CHART_W,
    CSP,
    LABEL_W,
    VALUE_W,
    Markup,
    Series,
    _ticks,
    bar_chart,
    carriable,
    el,
    page,
    prose,
    text,
)
from tests.markup import TAGS, parse

# every code point, lone surrogates too, with what HTML treats specially drawn often
ANY_CHAR = st.one_of(
    st.sampled_from([*"<>&\"'`=/\\\r\n\t\x00\x0c\u2028", "</script>", "<!--", "]]>"]),
    st.characters(exclude_categories=()),
)
ANY_TEXT = st.lists(ANY_CHAR, max_size=40).map("".join)
UNCARRIABLE = re.compile("[\x00-\x08\x0b\x0d\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef]")


@settings(max_examples=400)
@given(ANY_TEXT)
def test_text_reads_back_as_the_string_a_browser_shows(value: str) -> None:
    shown = text(value)
    parsed = parse(shown)
    assert parsed.tags == []
    assert parsed.text == carriable(value)
    shown.encode("utf-8")  # a page is always writable, whatever the server sent


@settings(max_examples=300)
@given(ANY_TEXT)
def test_carriable_keeps_what_html_carries_and_replaces_the_rest(value: str) -> None:
    out = carriable(value)
    assert not UNCARRIABLE.search(out)
    assert not any(ord(c) & 0xFFFE == 0xFFFE for c in out)
    assert len(out) == len(value) - value.count("\r\n")
    kept = [a == b for a, b in zip(out, value.replace("\r\n", "\n"), strict=True)]
    assert all(k or c == "\ufffd" or c == "\n" for k, c in zip(kept, out, strict=True))


@settings(max_examples=300)
@given(ANY_TEXT, ANY_TEXT)
def test_an_attribute_value_stays_inside_its_attribute(content: str, title: str) -> None:
    parsed = parse(el("span", content, title=title, data_series=title))
    assert parsed.tags == ["span"]
    assert parsed.attributes == [
        ("span", "title", carriable(title)),
        ("span", "data-series", carriable(title)),
    ]
    assert parsed.text == carriable(content)


@settings(max_examples=300)
@given(ANY_TEXT)
def test_prose_sets_paired_backticks_as_code_and_keeps_every_other_character(value: str) -> None:
    parsed = parse(prose(value))
    assert set(parsed.tags) <= {"code"}
    if value.count("`") % 2:
        assert parsed.tags == [] and parsed.text == carriable(value)
    else:
        # each span is carried on its own: a CR closing a code span is a line end there
        assert parsed.text == "".join(carriable(part) for part in value.split("`"))
        assert len(parsed.tags) == value.count("`") // 2


def test_names_of_tags_and_attributes_come_from_code_only() -> None:
    with pytest.raises(ValueError):
        el("img src=x onerror=alert(1)")
    with pytest.raises(ValueError):
        el("span", **{"onclick=alert(1) x": "1"})
    assert el("br") == Markup("<br>")


VALUES = st.one_of(st.none(), st.floats(min_value=0, max_value=1e6, allow_nan=False))


@settings(max_examples=150)
@given(
    st.lists(ANY_TEXT, min_size=1, max_size=5),
    st.lists(st.tuples(ANY_TEXT, st.lists(VALUES, min_size=5, max_size=5)), min_size=1, max_size=4),
    st.booleans(),
)
def test_a_bar_is_as_long_as_its_value_and_every_name_is_text(
    categories: list[str], named: list[tuple[str, list[float | None]]], stacked: bool
) -> None:
    series = [Series(name, "#2b6cd9", values) for name, values in named]
    chart = bar_chart("caption <b>", categories, series, stacked=stacked)
    parsed = parse(chart)
    assert set(parsed.tags) <= TAGS
    for name in [*categories, *(name for name, _ in named)]:
        assert carriable(name) in parsed.text
    bars = [
        dict((k, v) for t, k, v in parsed.attributes[i : i + 9] if t == "rect")
        for i, (t, k, _) in enumerate(parsed.attributes)
        if t == "rect" and k == "x" and i + 1 < len(parsed.attributes)
    ]
    bars = [b for b in bars if b.get("class") == "bar"]
    drawn = [
        (j, i, v)
        for j, (_, values) in enumerate(named)
        for i, v in enumerate(values[: len(categories)])
        if v is not None and (v or not stacked)
    ]
    assert len(bars) == len(drawn)
    plot = CHART_W - LABEL_W - VALUE_W
    widths = [float(b["width"]) for b in bars]
    assert all(0 <= w <= plot + 0.05 for w in widths)
    if not stacked:
        top = max((v for _, _, v in drawn), default=0.0)
        for w, (_, _, v) in zip(widths, sorted(drawn, key=lambda d: (d[1], d[0])), strict=True):
            if top > 0:  # one scale for every bar: lengths keep the values' ratios
                assert math.isclose(w, plot * v / _ticks(top)[-1], abs_tol=0.06)


@given(st.floats(min_value=0, max_value=1e9, allow_nan=False), st.booleans())
def test_gridlines_are_even_round_steps_reaching_the_largest_value(top: float, whole: bool) -> None:
    ticks = _ticks(top, whole)
    if whole:
        assert all(t == int(t) for t in ticks)
    assert ticks[0] == 0 and ticks[-1] >= top - 1e-9
    steps = [b - a for a, b in itertools.pairwise(ticks)]
    assert all(math.isclose(step, steps[0], rel_tol=1e-6) for step in steps)
    assert 2 <= len(ticks) <= 7


def test_a_page_loads_nothing_and_runs_nothing() -> None:
    doc = page("t <script>", el("p", "<script>alert(1)</script>"))
    parsed = parse(doc)
    assert "script" not in parsed.tags
    assert ("meta", "content", CSP) in parsed.attributes
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'"
    assert "<script>alert(1)</script>" in parsed.text
    assert not re.search(r"url\(|@import|https?:", parsed.style)
