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
   A word spells a filter's value as the value's own words, or as the filter's field reads it
   (`reader`: "Infrastructure" is project "OPS" where the project's vocabulary says so).
7. A word of the query that no row holds and no filter sent asks, which the field of an equal
   filter not sent (never a requirement) reads as one of its values, is that filter's value
   written in the query: the next call moves it there ("Dana" in the query is owner
   "dana.kim@example.org"), the query keeps the words some row holds, and that call is the next
   call whatever it finds (it is what was asked, each word where it asks; its own answer
   relaxes). A word two filters read, or a filter two words read as different values, moves
   nothing (why: docs/decisions/0055-a-filter-written-in-the-query.md).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel

from drivable.contract.tool import field_kinds
from drivable.kinds import jsonable, read
from drivable.kinds.text_folding import words as folded

Side = Literal["equal", "lower", "upper"]
Kept = Mapping[str, Any]
Value = tuple[Any, int]
# The domain's counting and faceting over its own data, sync or async: rows matching every
# non-filter argument (the query, a day) and the `kept` filters; and, for one filter's name,
# (value, rows) for each value of its field among those rows.
Count = Callable[[Kept], "int | Awaitable[int]"]
Facet = Callable[[str, Kept], "Iterable[Value] | Awaitable[Iterable[Value]]"]
# How the field of a filter reads one word: the value (canonical JSON), or None (`reader`).
Reads = Callable[[str, str], Any]

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
    # rule 7: the filters not sent that words of the query were read as, with their values
    moved: dict[str, Any] = field(default_factory=dict)

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
        if not (self.dropped or self.unasked) or (self.matches <= 0 and not self.moved):
            return None
        out = {k: v for k, v in self.sent.items() if k not in self.dropped} | self.moved
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


def reader(model: type[BaseModel]) -> Reads:
    """How `model`'s fields read a word, through their kinds: the value read (canonical JSON), or
    None when no kind reads it as one value. A field that reads a word naming nothing as a value
    (free text, an id) is open: no word spells one of its values."""

    def reads(name: str, word: str) -> Any:
        info = model.model_fields.get(name)
        for kind in field_kinds(info) if info is not None else ():
            options = {k: v for k, v in kind.options.items() if k != "json_extra"}
            if read(kind.name, _NAMES_NOTHING, **options).outcome == "value":
                continue
            got = read(kind.name, word, **options)
            if got.outcome == "value" and got.value is not None:
                return jsonable(got.value)
        return None

    return reads


_NAMES_NOTHING = "qzxjv"


def asked_by(
    word: str, sent: Mapping[str, Any], names: Sequence[str], reads: Reads | None = None
) -> str:
    """The first filter among `names` whose value as sent spells `word` (rule 6: case, accents and
    punctuation aside, the word is one of the value's words, or of a listed value's; or the
    filter's field reads the word as that value, or as values listed); ""."""
    pieces = folded(word).split()
    if not pieces:
        return ""
    for name in names:
        value = sent[name]
        listed = value if isinstance(value, list) else [value]
        for one in listed:
            scalar = isinstance(one, str | int | float) and not isinstance(one, bool)
            if scalar and set(pieces) <= set(folded(str(one)).split()):
                return name
        got = reads(name, word) if reads is not None else None
        if got is not None and (got == value or _among(got, listed)):
            return name
    return ""


def _among(got: Any, listed: list[Any]) -> bool:
    """Whether a value read (one, or a list of them) is among the values a filter listed."""
    return all(g in listed for g in got) if isinstance(got, list) and got else got in listed


async def unasked_words(
    sent: Mapping[str, Any],
    filters: Sequence[Filter],
    query: str,
    count: Count,
    reads: Reads | None = None,
) -> tuple[tuple[tuple[str, str], ...], dict[str, Any]]:
    """Rule 6's words, in the order sent (those a filter sent asks, then those no row holds),
    and rule 7's filters (`moved`), whose words are among them."""
    text = sent.get(query)
    if not isinstance(text, str):
        return (), {}
    names = [f.name for f in filters if f.name in sent]
    sent_words = text.split()
    asked = [(w, asked_by(w, sent, names, reads)) for w in sent_words]
    rest = [w for w, by in asked if not by]
    held = {w: int(await _settle(count({query: w}))) > 0 for w in dict.fromkeys(rest)}
    nowhere = [w for w in rest if not held[w]]
    moved = _moved(nowhere, [f for f in filters if f.name not in sent], reads)
    if moved:
        by = {w: n for n, (_, ws) in moved.items() for w in ws}
        asked = [(w, a or by.get(w, "")) for w, a in asked]
        return tuple((w, a) for w, a in asked if a or w in nowhere), {
            n: v for n, (v, _) in moved.items()
        }
    keeps_some = len(nowhere) < len(rest)  # a word of what was asked stays in the query
    return tuple((w, by) for w, by in asked if by or (keeps_some and w in nowhere)), {}


def _moved(
    nowhere: Sequence[str], unsent: Sequence[Filter], reads: Reads | None
) -> dict[str, tuple[Any, list[str]]]:
    """Rule 7: per filter not sent, the value its field reads words no row holds as, and those
    words; a word two filters read, or a filter read as two values, moves nothing."""
    if reads is None:
        return {}
    found: dict[str, tuple[Any, list[str]]] = {}
    clashing: set[str] = set()
    for word in dict.fromkeys(nowhere):
        read_as = [
            (f.name, v)
            for f in unsent
            if f.side == "equal" and not f.requirement and (v := reads(f.name, word)) is not None
        ]
        if len(read_as) != 1:
            continue
        name, value = read_as[0]
        if name in found and found[name][0] != value:
            clashing.add(name)
        found.setdefault(name, (value, []))[1].append(word)
    return {n: vw for n, vw in found.items() if n not in clashing}


async def relax(
    sent: Mapping[str, Any],
    filters: Sequence[Filter],
    count: Count,
    facet: Facet,
    *,
    limit: int = VALUES,
    query: str | None = None,
    reads: Reads | None = None,
) -> Relaxation | None:
    """The minimal relaxation of a search that found nothing under `sent` (module docstring);
    None when neither a filter but requirements nor a word of `query` may be left out.
    `filters` in declaration order, every filter the search takes. With `query`, `count` and
    `facet` find the query's words in `kept` (absent: no words), as rules 6 and 7 leave them;
    `reads` is how the filters' fields read a word (`reader`; None: as the values' own words)."""
    active = [f for f in filters if f.name in sent]
    loose = [i for i, f in enumerate(active) if not f.requirement]
    names = tuple(f.name for f in active)
    required = tuple(f.name for f in active if f.requirement)
    unasked, moved = await unasked_words(sent, filters, query, count, reads) if query else ((), {})
    said = Relaxation(
        dict(sent), names, required=required, query=query, unasked=unasked, moved=moved
    )
    words_kept = {query: said.words_kept} if query and said.words_kept else {}
    if moved:  # rule 7: what was asked, each word where it asks, whatever it finds
        kept = {**{k: sent[k] for k in names}, **moved, **words_kept}
        return dataclasses.replace(said, matches=int(await _settle(count(kept))))
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


__all__ = [
    "Count",
    "Facet",
    "Filter",
    "Reads",
    "Relaxation",
    "declared",
    "ordered",
    "reader",
    "relax",
    "sent_arguments",
]
