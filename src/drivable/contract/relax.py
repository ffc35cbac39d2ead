"""The minimal relaxation of an empty filtered page: the next call that keeps every argument the
caller sent but the one filter whose removal brings back the fewest rows, and the values of that
filter that would have matched.

The rule (docs/runtime.md; why: docs/decisions/0006-minimal-relaxation.md):

1. The candidates are the filters the caller sent (a filter is an argument the domain names as
   one; the query, a page size, a detail level are not). Each is left out alone, and the domain
   counts the rows matching everything else. The next call leaves out the filter whose removal
   gives the fewest rows, more than none. Equal counts: the filter declared last in the tool's
   input goes (the author's order, never a guess from the values' wording).
2. When no single filter left out brings rows back, two filters contradict the rest each on its
   own; the same rule over pairs gives the smallest superset one step further. Never more than
   two: beyond that the relaxation would drop most of what was asked, and no next call is made.
3. Nothing matches even without any filter: the filters did not empty the page; no next call.
4. The next call keeps every other argument as sent (a cursor aside: it belonged to the emptied
   search). For each filter it leaves out, the values that would have matched are named: that
   filter's values among the rows the next call returns, at most `VALUES`, most rows first (a
   bound's nearest first: a lower bound's highest, an upper bound's lowest). Each, sent in place of
   the value that emptied the page with everything else as the next call has it, matches.
5. A filter the author declares a requirement (`Filter(name, side, requirement=True)`: what a row
   must meet to be of any use for the call, such as the seats a meeting needs) is never left out.
   It is kept like an argument that is not a filter, and rules 1-4 run over the other filters
   (why: docs/decisions/0021-a-requirement-is-never-relaxed.md).
6. The words of a query the author names (`query=`, a search whose rows hold every word), before
   any filter: a word that spells the value of a filter sent is asked by that filter, and a word
   no row holds on its own can be in no row the search returns; both leave the query, named, and
   every other word stays as sent. When the rest finds rows, that is the next call, every filter
   kept; else rules 1-4 run with the query less only the words no row holds (a word a filter
   asks is back: the filter that asked it may be the one left out). A word that no row holds is left out only
   when another word of the query, one no filter asks, stays: a next call never drops everything
   the query asked for (why: docs/decisions/0034-the-words-of-an-empty-search.md).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel

from drivable.kinds.text_folding import words as folded

Side = Literal["equal", "lower", "upper"]
Kept = Mapping[str, Any]
Value = tuple[Any, int]
# The domain's counting and faceting over its own data, sync or async: rows matching every
# non-filter argument (the query, a day) and the `kept` filters; and, for one filter's name,
# (value, rows) for each value of its field among those rows.
Count = Callable[[Kept], "int | Awaitable[int]"]
Facet = Callable[[str, Kept], "Iterable[Value] | Awaitable[Iterable[Value]]"]

VALUES = 5  # values named per dropped filter
MOST_DROPPED = 2


@dataclass(frozen=True)
class Filter:
    """One filtering argument: `equal` keeps rows whose field is the value, `lower` rows at or
    above it (date_from), `upper` rows at or below it (date_to). A `requirement` is never left out
    (rule 5): a row that fails it is of no use whatever else matches (a room with too few seats)."""

    name: str
    side: Side = "equal"
    requirement: bool = False


@dataclass(frozen=True)
class Relaxation:
    """What an empty filtered page leads on to (`relax`)."""

    sent: dict[str, Any]  # every argument the caller sent, canonical JSON
    active: tuple[str, ...]  # the filters among them, in declaration order
    dropped: tuple[str, ...] = ()  # the filters the next call leaves out; () when none does
    matches: int = 0  # rows the next call returns
    unfiltered: int | None = None  # rows without any filter, when nothing smaller brought rows
    values: dict[str, tuple[Value, ...]] = field(default_factory=dict)  # per dropped filter
    required: tuple[str, ...] = ()  # the requirements among `active`: never left out
    query: str | None = None  # the argument whose words rule 6 reads
    # the words the next call's query leaves out (rule 6), each with the filter that asks it
    # ("" when no row holds it), in the order sent
    unasked: tuple[tuple[str, str], ...] = ()

    @property
    def loose(self) -> tuple[str, ...]:
        """The filters sent that may be left out (every one but the requirements)."""
        return tuple(n for n in self.active if n not in self.required)

    @property
    def words_kept(self) -> str | None:
        """The query the next call sends (rule 6): the words sent but `unasked`; None for none."""
        if self.query is None or not isinstance(self.sent.get(self.query), str):
            return None
        gone = [w for w, _ in self.unasked]
        kept = []
        for word in self.sent[self.query].split():
            if word in gone:
                gone.remove(word)
            else:
                kept.append(word)
        return " ".join(kept) or None

    @property
    def arguments(self) -> dict[str, Any] | None:
        """The next call's arguments: everything sent but the dropped filters and the words left
        out; None without a next call."""
        if (not self.dropped and not self.unasked) or self.matches <= 0:
            return None
        out = {k: v for k, v in self.sent.items() if k not in self.dropped}
        if self.unasked and self.query is not None:
            out.pop(self.query)
            if self.words_kept is not None:
                out[self.query] = self.words_kept
        return out


def sent_arguments(args: BaseModel, cursor: str | None = None) -> dict[str, Any]:
    """The arguments the caller sent, as the tool read them (canonical JSON), without `cursor`:
    what a next call must keep. Absent values (null, a placeholder) were not sent."""
    sent = args.model_dump(mode="json", include=set(args.model_fields_set), exclude_none=True)
    sent.pop(cursor or "", None)
    return sent


def declared(model: type[BaseModel], filters: Sequence[Filter]) -> list[Filter]:
    """`filters` in the order the input model declares them (the tie rule's order)."""
    order = list(model.model_fields)
    return sorted(filters, key=lambda f: order.index(f.name) if f.name in order else len(order))


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def asked_by(word: str, sent: Mapping[str, Any], names: Sequence[str]) -> str:
    """The first filter among `names` whose value as sent spells `word` (rule 6: case, accents and
    punctuation aside, the word is one of the value's words, or of a listed value's); ""."""
    pieces = folded(word).split()
    if not pieces:
        return ""
    for name in names:
        value = sent[name]
        for one in value if isinstance(value, list) else [value]:
            scalar = isinstance(one, str | int | float) and not isinstance(one, bool)
            if scalar and set(pieces) <= set(folded(str(one)).split()):
                return name
    return ""


async def unasked_words(
    sent: Mapping[str, Any], names: Sequence[str], query: str, count: Count
) -> tuple[tuple[str, str], ...]:
    """Rule 6's words, in the order sent: those a filter sent asks, then those no row holds."""
    text = sent.get(query)
    if not isinstance(text, str):
        return ()
    sent_words = text.split()
    asked = [(w, asked_by(w, sent, names)) for w in sent_words]
    rest = [w for w, by in asked if not by]
    held = {w: int(await _settle(count({query: w}))) > 0 for w in dict.fromkeys(rest)}
    nowhere = [w for w in rest if not held[w]]
    keeps_some = len(nowhere) < len(rest)  # a word of what was asked stays in the query
    return tuple((w, by) for w, by in asked if by or (keeps_some and w in nowhere))


async def relax(
    sent: Mapping[str, Any],
    filters: Sequence[Filter],
    count: Count,
    facet: Facet,
    *,
    limit: int = VALUES,
    query: str | None = None,
) -> Relaxation | None:
    """The minimal relaxation of a search that found nothing under `sent` (module docstring);
    None when neither a filter but requirements nor a word of `query` may be left out.
    `filters` in declaration order. With `query`, `count` and `facet` find the query's words
    in `kept` (absent: no words), as rule 6 leaves them."""
    active = [f for f in filters if f.name in sent]
    loose = [i for i, f in enumerate(active) if not f.requirement]
    names = tuple(f.name for f in active)
    required = tuple(f.name for f in active if f.requirement)
    unasked = await unasked_words(sent, names, query, count) if query else ()
    said = Relaxation(dict(sent), names, required=required, query=query, unasked=unasked)
    words_kept = {query: said.words_kept} if query and said.words_kept else {}
    if unasked:
        n = int(await _settle(count({**{k: sent[k] for k in names}, **words_kept})))
        if n > 0:
            return Relaxation(
                dict(sent), names, matches=n, required=required, query=query, unasked=unasked
            )
    # a word a filter asks leaves only while every filter stays: from here on filters may go,
    # so only the words no row holds stay out of the query
    unasked = tuple((w, by) for w, by in unasked if not by)
    said = Relaxation(dict(sent), names, required=required, query=query, unasked=unasked)
    words_kept = {query: said.words_kept} if query and said.words_kept else {}
    if not loose:  # no filter sent that may be left out: the empty page is the answer
        return said if unasked else None
    counted: dict[frozenset[str], int] = {}

    async def rows_without(dropped: tuple[str, ...]) -> int:
        key = frozenset(dropped)
        if key not in counted:
            kept = {**{n: sent[n] for n in names if n not in key}, **words_kept}
            counted[key] = int(await _settle(count(kept)))
        return counted[key]

    for size in range(1, min(MOST_DROPPED, len(loose)) + 1):
        best: tuple[int, tuple[int, ...], tuple[str, ...]] | None = None
        for chosen in combinations(loose, size):
            dropped = tuple(names[i] for i in chosen)
            n = await rows_without(dropped)
            if n <= 0:
                continue
            # fewest rows; on a tie the one declared last (the larger indices, latest first)
            rank = (n, tuple(-i for i in sorted(chosen, reverse=True)), dropped)
            if best is None or rank < best:
                best = rank
        if best is not None:
            n, _, dropped = best
            kept = {**{k: sent[k] for k in names if k not in dropped}, **words_kept}
            values = {}
            for f in active:
                if f.name in dropped:
                    found = await _settle(facet(f.name, kept))
                    values[f.name] = ordered(found, f.side, limit)
            return Relaxation(
                dict(sent),
                names,
                dropped,
                n,
                values=values,
                required=required,
                query=query,
                unasked=unasked,
            )
    unfiltered = await rows_without(tuple(names[i] for i in loose))
    return Relaxation(
        dict(sent), names, unfiltered=unfiltered, required=required, query=query, unasked=unasked
    )


def ordered(found: Iterable[Value], side: Side, limit: int) -> tuple[Value, ...]:
    """At most `limit` values with rows: most rows first (then by value), or a bound's nearest
    first (a lower bound's highest values, an upper bound's lowest)."""
    values = [(v, int(n)) for v, n in found if v is not None and int(n) > 0]
    if side == "lower":
        values.sort(key=lambda vn: _key(vn[0]), reverse=True)
    elif side == "upper":
        values.sort(key=lambda vn: _key(vn[0]))
    else:
        values.sort(key=lambda vn: (-vn[1], _key(vn[0])))
    return tuple(values[:limit])


def _key(value: Any) -> tuple[int, Any]:
    # numbers by size, anything else by its text: one total order over mixed values
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value))


# -- in words ----------------------------------------------------------------------------------


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
    """Rule 6 in words: which words the next call's query leaves out, and why."""
    asked = [(w, by) for w, by in r.unasked if by]
    nowhere = [w for w, by in r.unasked if not by]
    parts = []
    if asked:
        by = list(dict.fromkeys(b for _, b in asked))
        parts.append(
            f"{_either([spelled(w) for w, _ in asked])} in {r.query} "
            f"{'is' if len(asked) == 1 else 'are'} asked by "
            + _either([f"{b} {spelled(r.sent[b])}" for b in by])
        )
    if nowhere:
        parts.append(f"no {noun} holds {_either([spelled(w) for w in nowhere], 'or')}")
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]}."


def words(relaxation: Relaxation, tool: str, noun: str) -> Words:
    r = relaxation
    said = f" {unasked_said(r, noun)}" if r.unasked else ""
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


__all__ = [
    "Count",
    "Facet",
    "Filter",
    "Relaxation",
    "Words",
    "declared",
    "listing",
    "ordered",
    "relax",
    "sent_arguments",
    "spelled",
    "words",
]
