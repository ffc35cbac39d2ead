"""What an empty filtered page says of its minimal relaxation (`drivable.contract.relax`): the
message and hint of the page, and a no_hits_filtered warning per filter left out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from drivable.contract.relax import Relaxation, Value


def spelled(value: Any) -> str:
    """A value as JSON, so a reader (a model, a test) sees exactly what to send."""
    return json.dumps(value, ensure_ascii=False)


def listing(values: Sequence[Value]) -> str:
    return ", ".join(f"{spelled(v)} ({n})" for v, n in values)


def _either(names: Sequence[str], word: str = "and") -> str:
    return f" {word} ".join(names) if len(names) < 3 else ", ".join(names)


@dataclass(frozen=True)
class Words:
    """What an empty filtered page says: `message` and `hint` in a refusal's words, and the
    no_hits_filtered warnings as (path or None, message)."""

    message: str
    hint: str
    warnings: tuple[tuple[str | None, str], ...]


def unasked_said(r: Relaxation, noun: str) -> str:
    """Rules 6 and 7 in words: which words the next call's query leaves out, and why; each word
    once, however often it was sent."""
    unasked = list(dict.fromkeys(r.unasked))
    asked = [(w, by) for w, by in unasked if by in r.sent]
    moved = [(w, by) for w, by in unasked if by in r.moved]
    nowhere = [w for w, by in unasked if not by]
    parts = []
    for group, verb, values in ((asked, "asked by", r.sent), (moved, "read as", r.moved)):
        if group:
            by = list(dict.fromkeys(b for _, b in group))
            parts.append(
                f"{_either([spelled(w) for w, _ in group])} in {r.query} "
                f"{'is' if len(group) == 1 else 'are'} {verb} "
                + _either([f"{b} {spelled(values[b])}" for b in by])
            )
    if nowhere:
        parts.append(f"no {noun} holds {_either([spelled(w) for w in nowhere], 'or')}")
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]}."


def words(relaxation: Relaxation, tool: str, noun: str) -> Words:
    r = relaxation
    said = f" {unasked_said(r, noun)}" if r.unasked else ""
    if r.moved:  # rule 7
        rest = r.words_kept
        sends = _either([f"{n} {spelled(v)}" for n, v in r.moved.items()])
        return Words(
            f"No {noun} matches every word of {r.query} with the filters sent.{said} The call in "
            f"next_call sends {sends}"
            + (f" and {r.query} {spelled(rest)}" if rest else f" without {r.query}")
            + ", every other argument as sent: "
            + (
                f"{r.matches} {noun}{'' if r.matches == 1 else 's'} match it."
                if r.matches
                else f"no {noun} matches it either, and its answer says what would."
            ),
            f"Call {tool} again as next_call has it: {sends} in place of the words of {r.query} "
            "that name it.",
            (),
        )
    if r.unasked and not r.dropped and r.matches > 0:
        rest = r.words_kept
        return Words(
            f"No {noun} matches every word of {r.query} with the filters sent.{said} "
            + (f"With {r.query} {spelled(rest)}" if rest else f"Without {r.query}")
            + f", {r.matches} {'does' if r.matches == 1 else 'do'}.",
            f"Call {tool} again "
            + (f"with {r.query} {spelled(rest)}" if rest else f"without {r.query}")
            + " (the call in next_call keeps every filter and every other argument as sent).",
            (),
        )
    needs = _either([f"{q} {spelled(r.sent[q])}" for q in r.required])
    never = "a requirement is" if len(r.required) == 1 else "requirements are"
    kept = f" ({needs} kept: {never} never left out)" if r.required else ""
    if r.dropped:
        left_out = _either([f"{d} {spelled(r.sent[d])}" for d in r.dropped])
        values = "; ".join(
            f"values of {d} that would match: {listing(r.values[d])}"
            for d in r.dropped
            if r.values.get(d)
        )
        single = len(r.dropped) == 1
        message = (
            f"No {noun} matches every filter together"
            + ("" if not said else f" and every word of {r.query}")
            + ("" if single else ", nor with any one of them left out")
            + f"; without {left_out}, {r.matches} {'does' if r.matches == 1 else 'do'}"
            + (
                f" (no other {'filter' if single else 'pair'} left out finds fewer)."
                if len(r.loose) > len(r.dropped)
                else "."
            )
            + (f" {values[0].upper()}{values[1:]}." if values else "")
            + (f" It keeps {needs}: {never} never left out." if r.required else "")
            + said
        )
        hint = (
            f"Call {tool} again without {_either(list(r.dropped))}"
            + (
                f" and with {r.query} {spelled(r.words_kept)}"
                if r.unasked and r.words_kept
                else (f" and without {r.query}" if r.unasked else "")
            )
            + " (the call in next_call keeps every other argument as sent), or with "
            f"{_either(list(r.dropped), 'or')} set to a value that would match. The {noun}s it "
            f"finds are not limited to "
            f"{_either([f'{d} {spelled(r.sent[d])}' for d in r.dropped], 'or')}."
        )
        warned = []
        for d in r.dropped:
            others = [o for o in r.dropped if o != d]
            with_ = f" (with {others[0]} left out too)" if others else ""
            named = r.values.get(d)
            if named:
                then = f" Values of {d} that would match{with_}: {listing(named)}."
            elif d in r.values:  # rows that lack the field (a decision that applies no statute)
                then = f" No {noun} found without it{with_} has a value of {d}."
            else:  # values not counted (a page relaxed by running its tool again)
                then = ""
            warned.append(
                (d, f"No {noun} matches {d} {spelled(r.sent[d])} with the other filters.{then}")
            )
        return Words(message, hint, tuple(warned))
    names = list(r.loose)
    if not names:  # rule 6 only: the words left did not bring rows back either
        return Words(
            f"No {noun} matches every word of {r.query}.{said}",
            f"Call {tool} again with fewer words in {r.query}; which to keep is the user's choice.",
            (),
        )
    if not r.unfiltered:
        return Words(
            f"No {noun} matches, even without the filters ({', '.join(names)}){kept}: the "
            f"other arguments match none.{said}",
            f"Leaving filters out of {tool} finds no {noun}; change the other arguments instead.",
            (),
        )
    return Words(
        f"No {noun} matches every filter together, nor with any one or two of them left out; "
        f"without any filter{kept}, {r.unfiltered} {'does' if r.unfiltered == 1 else 'do'}.{said}",
        f"Call {tool} again with fewer of its filters ({', '.join(names)}); which to keep is the "
        "user's choice.",
        ((None, f"No {noun} matches these filters together: {', '.join(r.active)}."),),
    )
