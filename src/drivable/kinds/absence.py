"""Absence: null and the placeholder spellings models send for "unset".

A placeholder in an optional property is absence on a read; on a write it is asked about, because
there an optional id left as a placeholder can turn an update into a create.
"""

from __future__ import annotations

import re
from typing import Any

from drivable.kinds._reading import Reading, shown
from drivable.kinds.text_folding import caseless

# Spellings that carry no value. Compared after trimming, case folding and stripping brackets.
PLACEHOLDERS: frozenset[str] = frozenset(
    {
        "",
        "null",
        "none",
        "nil",
        "undefined",
        "n/a",
        "n.a.",
        "not applicable",
        "unknown",
        "string",
        "str",
        "example",
        "sample",
        "placeholder",
        "todo",
        "tbd",
        "xxx",
        "...",
        "…",
        "?",
        "-",
        "--",
        "empty",
        "default",
        "your value here",
        "insert value",
        "nic",
        "žádný",
        "zadny",
        "žádná",
        "prázdné",
    }
)

# `<value>`, `{value}`, `[date]`, `{{query}}`, `<YYYY-MM-DD>`, `$VALUE`: a template the model did not fill.
_TEMPLATE = re.compile(
    r"^(?:<[^<>]{1,40}>|\{\{?[^{}]{1,40}\}?\}|\[[^\[\]]{1,40}\]|\$[A-Z_]{2,40})$"
)


def placeholder_of(value: Any) -> str | None:
    """The folded placeholder `value` spells, or None when it is a real value (or not a string)."""
    if not isinstance(value, str):
        return None
    # No placeholder has a digit, and of the templates only a bracketed one can hold one: "$42"
    # and "42 Kč" are values, known without folding them.
    if _DIGIT.search(value) is not None and value.lstrip()[:1] not in _BRACKETS:
        return None
    folded = caseless(value)
    if folded in PLACEHOLDERS:
        return folded or "empty string"
    # Every template opens with one of these: the regex runs only on what could be one.
    if folded[:1] in _TEMPLATE_OPENERS and _TEMPLATE.match(value.strip()):
        # `<jana@example.com>` is an address written as mail writes one (RFC 5322's angle
        # address), not a template: a template's inside names a thing, it never holds an "@".
        return None if _ANGLE_ADDRESS.match(value.strip()) else folded
    return None


def is_template(value: Any) -> bool:
    """`<YYYY-MM-DD>`, `<id of a search result>`: a placeholder that names what goes there (an
    empty string or "none" is a placeholder too, but names nothing a model could fill)."""
    opens = value.strip()[:1] if isinstance(value, str) else ""
    return opens in _TEMPLATE_OPENERS and placeholder_of(value) is not None


_TEMPLATE_OPENERS = frozenset("<{[$")
_BRACKETS = frozenset("<{[")
_DIGIT = re.compile(r"[0-9]")
_ANGLE_ADDRESS = re.compile(r"^<[^\s<>@]+@[^\s<>@]+\.[^\s<>@.]+>$")


def is_absent(value: Any) -> bool:
    return value is None or placeholder_of(value) is not None


def reading_for(value: Any, intent: str, expected: str) -> Reading:
    """Absence on a read (with a note), a question on a write."""
    if value is None:
        return Reading.absent()
    if intent == "write":
        return Reading.ask(
            value,
            expected=expected,
            hint=(
                f"{shown(value)} looks like a placeholder. To leave this unset, omit the property; "
                "otherwise send the real value."
            ),
            readings=(None, value),
            code="placeholder_value",
        )
    return Reading.absent(f"Read {shown(value)} as no value.")
