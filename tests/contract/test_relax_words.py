"""Rule 6 of the minimal relaxation (`drivable.contract.relax`): the words of an empty search's
query, over generated tables, queries and filters.

For every empty page of a search whose rows hold every word of its query: a word the next call
leaves out is asked by a filter sent (it spells that filter's value) or held by no row at all;
every other word stays, in the order sent; a word no row holds goes only when another word no
filter asks stays; when the words alone bring rows back every filter is kept as sent;
and the next call returns the rows it says. The table is plain data the test counts itself.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract.relax import Filter, Relaxation, relax
from drivable.contract.relax_said import unasked_said, words

FILTERS = (Filter("colour"), Filter("shape"), Filter("tags"))
# words the rows hold, some of them spelling a filter's values ("red", "round")
VOCABULARY = ("red", "blue", "round", "alpha", "beta", "gamma")
ROW = st.fixed_dictionaries(
    {
        "colour": st.sampled_from(["red", "blue", "green"]),
        "shape": st.sampled_from(["round", "square"]),
        "tags": st.sets(st.sampled_from(["alpha", "beta"]), max_size=2).map(sorted),
        "words": st.sets(st.sampled_from(VOCABULARY), max_size=4),
    }
)
TABLES = st.lists(ROW, max_size=30)
# a query's words as a caller spells them: any case, and words no row holds ("zeta", "5MB")
WORD = st.sampled_from((*VOCABULARY, "zeta", "5MB")).flatmap(
    lambda w: st.sampled_from([w, w.upper(), w.title()])
)
SENT = st.fixed_dictionaries(
    {"query": st.lists(WORD, min_size=1, max_size=4).map(" ".join)},
    optional={
        "colour": st.sampled_from(["red", "blue", "green", "pink"]),
        "shape": st.sampled_from(["round", "square", "oval"]),
        "tags": st.lists(st.sampled_from(["alpha", "beta", "gamma"]), min_size=1, max_size=2),
        "limit": st.integers(1, 20),
    },
)


def holds(row: Mapping[str, Any], word: str) -> bool:
    return word.casefold() in row["words"]


def matching(rows: Sequence[Mapping[str, Any]], kept: Mapping[str, Any]) -> list[Any]:
    out = []
    for row in rows:
        if not all(holds(row, w) for w in str(kept.get("query") or "").split()):
            continue
        if any(row[n] != kept[n] for n in ("colour", "shape") if n in kept):
            continue
        if "tags" in kept and not set(kept["tags"]) <= set(row["tags"]):
            continue
        out.append(row)
    return out


def run(
    rows: Sequence[Mapping[str, Any]], sent: dict[str, Any], reads: Any = None
) -> Relaxation | None:
    """`relax` over the table: the search of `sent`, its filters' fields reading words as
    `reads` does (None: as the values' own words)."""
    return anyio.run(
        lambda: relax(sent, FILTERS, count_of(rows), facet_of(rows), query="query", reads=reads)
    )


def count_of(rows: Sequence[Mapping[str, Any]]) -> Any:
    return lambda kept: len(matching(rows, kept))


def facet_of(rows: Sequence[Mapping[str, Any]]) -> Any:
    async def facet(name: str, kept: Mapping[str, Any]) -> list[tuple[Any, int]]:
        found = matching(rows, kept)
        if name == "tags":
            return list(Counter(t for r in found for t in r["tags"]).items())
        return list(Counter(r[name] for r in found).items())

    return facet


def spells(word: str, sent: Mapping[str, Any], name: str) -> bool:
    value = sent[name]
    return word.casefold() in [
        str(v).casefold() for v in (value if isinstance(value, list) else [value])
    ]


@given(rows=TABLES, sent=SENT)
@settings(max_examples=400, deadline=None)
def test_the_words_of_an_empty_search_over_generated_tables(
    rows: list[dict[str, Any]], sent: dict[str, Any]
) -> None:
    if matching(rows, sent):
        return  # rows came back: there is no empty page to explain
    found = run(rows, sent)
    filters = [f.name for f in FILTERS if f.name in sent]
    sent_words = sent["query"].split()
    if found is None:
        # nothing said only when no filter was sent and no word could leave the query
        assert not filters
        held = [w for w in sent_words if any(holds(r, w) for r in rows)]
        assert not held or len(held) == len(sent_words)
        return
    unasked = list(found.unasked)
    left = [w for w, _ in unasked]
    # each word left out is asked by the filter named, or held by no row at all
    for word, by in unasked:
        if by:
            assert by in filters and spells(word, sent, by), (word, by)
        else:
            assert not any(holds(r, word) for r in rows), word
    # every word asked by a filter sent leaves; every word no row holds leaves when something
    # else sent narrows the search; nothing else leaves
    kept_words = list(sent_words)
    for word in left:
        kept_words.remove(word)
    if found.dropped or found.arguments is None:
        # filters may go (or nothing was found): a word a filter asks is back in the query
        assert not any(by for _, by in unasked), unasked
    else:
        for word in kept_words:
            assert not any(spells(word, sent, n) for n in filters), word
    unasked_words = [w for w in sent_words if not any(spells(w, sent, n) for n in filters)]
    nowhere = [w for w in unasked_words if not any(holds(r, w) for r in rows)]
    narrows = len(nowhere) < len(unasked_words)  # another word of what was asked stays
    if nowhere:
        assert all(w in left for w in nowhere) == narrows, (nowhere, left)
    # the next call: every other word as sent, in order; rows come back, as many as it says
    following = found.arguments
    if following is None:
        assert found.matches == 0
        return
    assert following.get("query", "").split() == kept_words
    assert matching(rows, following) and len(matching(rows, following)) == found.matches
    if not found.dropped:
        # the words alone brought rows back: every filter and every other argument as sent
        assert {k: v for k, v in following.items() if k != "query"} == {
            k: v for k, v in sent.items() if k != "query"
        }
    else:
        assert all(following[k] == v for k, v in sent.items() if k not in (*found.dropped, "query"))
    # said: the words left out are named in the message
    said = words(found, "find", "row")
    assert all(f'"{w}"' in said.message for w in left), said.message


def test_every_case_of_the_words_is_met_by_the_generated_tables() -> None:
    seen: Counter[str] = Counter()

    @given(rows=TABLES, sent=SENT)
    @settings(max_examples=400, deadline=None, derandomize=True, database=None)
    def cases(rows: list[dict[str, Any]], sent: dict[str, Any]) -> None:
        if matching(rows, sent):
            return
        found = run(rows, sent)
        if found is None or not found.unasked:
            seen["no word left out"] += 1
        elif found.arguments is None:
            seen["words left out, nothing found"] += 1
        elif found.dropped:
            seen["words and a filter left out"] += 1
        else:
            seen["words left out, filters kept"] += 1
        if found is not None and any(by for _, by in found.unasked):
            seen["a word asked by a filter"] += 1
        if found is not None and any(not by for _, by in found.unasked):
            seen["a word no row holds"] += 1

    cases()
    assert set(seen) == {
        "no word left out",
        "words left out, nothing found",
        "words and a filter left out",
        "words left out, filters kept",
        "a word asked by a filter",
        "a word no row holds",
    }, seen


# Rules 6 and 7 with the filters' fields reading words (`reads`, as `relax.reader` gives a
# model's): aliases of a colour, a shape and a tag. "navy" is also a word some rows hold.
ALIASES: dict[str, dict[str, Any]] = {
    "colour": {"crimson": "red", "scarlet": "red", "navy": "blue", "jade": "green"},
    "shape": {"circle": "round", "ball": "round", "box": "square"},
    "tags": {"first": ["alpha"], "second": ["beta"]},
}
ALIAS_WORDS = sorted({w for names in ALIASES.values() for w in names})
READ_ROW = ROW.flatmap(
    lambda row: st.sets(st.sampled_from(["navy", "box"]), max_size=1).map(
        lambda extra: {**row, "words": {*row["words"], *extra}}
    )
)
READ_SENT = st.fixed_dictionaries(
    {
        "query": st.lists(
            st.sampled_from((*VOCABULARY, *ALIAS_WORDS, "zeta")).flatmap(
                lambda w: st.sampled_from([w, w.title()])
            ),
            min_size=1,
            max_size=4,
        ).map(" ".join)
    },
    optional={
        "colour": st.sampled_from(["red", "blue", "green"]),
        "shape": st.sampled_from(["round", "square"]),
        "tags": st.lists(st.sampled_from(["alpha", "beta"]), min_size=1, max_size=2, unique=True),
    },
)


def reads(name: str, word: str) -> Any:
    return ALIASES.get(name, {}).get(word.casefold())


def read_as(word: str, sent: Mapping[str, Any], name: str) -> bool:
    got, value = reads(name, word), sent[name]
    listed = value if isinstance(value, list) else [value]
    return (
        spells(word, sent, name)
        or got == value
        or (isinstance(got, list) and all(g in listed for g in got))
    )


@given(rows=st.lists(READ_ROW, max_size=30), sent=READ_SENT)
@settings(max_examples=400, deadline=None)
def test_a_word_a_filter_reads_is_that_filters_value_over_generated_tables(
    rows: list[dict[str, Any]], sent: dict[str, Any]
) -> None:
    """Every word the next call leaves out of the query is asked by a filter sent (its field
    reads it as the value sent), read as the value of a filter not sent (rule 7: a word no row
    holds, that one filter reads, and no other word reads that filter otherwise), or held by no
    row; a moved word's filter is sent with the value its field reads the word as, every other
    argument as sent, whatever the call finds; and the count said is the rows the call returns."""
    if matching(rows, sent):
        return
    found = run(rows, sent, reads)
    sent_words = sent["query"].split()
    held = {w: any(holds(r, w) for r in rows) for w in sent_words}
    unsent = [f.name for f in FILTERS if f.name not in sent]
    asked = {w for w in sent_words if any(read_as(w, sent, f) for f in sent if f in ALIASES)}
    # rule 7's words, as the rule states them, computed here from the table and the aliases
    candidates = {
        w: [f for f in unsent if reads(f, w) is not None]
        for w in sent_words
        if w not in asked and not held[w]
    }
    movable = {w: fs[0] for w, fs in candidates.items() if len(fs) == 1}
    values: dict[str, set[str]] = {}
    for w, f in movable.items():
        values.setdefault(f, set()).add(json.dumps(reads(f, w)))
    moved = {w: f for w, f in movable.items() if len(values[f]) == 1}
    if found is None:
        assert not moved
        return
    assert {w: by for w, by in found.unasked if by in found.moved} == moved
    for word, by in found.unasked:
        if by in sent:
            assert read_as(word, sent, by), (word, by)
        elif by:
            assert not held[word] and reads(by, word) == found.moved[by], (word, by)
        else:
            assert not held[word], word
    following = found.arguments
    if following is not None and not found.dropped:  # every filter stays: its words leave
        assert asked <= {w for w, by in found.unasked if by in sent}, (asked, found.unasked)
    if moved:
        assert following is not None
        assert found.moved == {f: reads(f, w) for w, f in moved.items()}
        assert {k: v for k, v in following.items() if k != "query"} == {
            **{k: v for k, v in sent.items() if k != "query"},
            **found.moved,
        }
        kept_words = [w for w in sent_words if w not in {u for u, _ in found.unasked}]
        assert following.get("query", "").split() == kept_words
        assert all(held[w] for w in kept_words)
        assert len(matching(rows, following)) == found.matches
        said = words(found, "find", "row")
        assert all(json.dumps(v) in said.message for v in found.moved.values()), said.message
    elif following is not None:
        assert matching(rows, following) and len(matching(rows, following)) == found.matches


def test_every_case_of_the_read_words_is_met_by_the_generated_tables() -> None:
    seen: Counter[str] = Counter()

    @given(rows=st.lists(READ_ROW, max_size=30), sent=READ_SENT)
    @settings(max_examples=400, deadline=None, derandomize=True, database=None)
    def cases(rows: list[dict[str, Any]], sent: dict[str, Any]) -> None:
        if matching(rows, sent):
            return
        found = run(rows, sent, reads)
        if found is None:
            return
        if found.moved:
            seen["moved, rows found" if found.matches else "moved, nothing found"] += 1
        if any(by in sent and not spells(w, sent, by) for w, by in found.unasked):
            seen["asked by a filter that reads the word"] += 1

    cases()
    assert set(seen) == {
        "moved, rows found",
        "moved, nothing found",
        "asked by a filter that reads the word",
    }, seen


@given(rows=st.lists(READ_ROW, max_size=30), sent=READ_SENT, times=st.integers(2, 40))
@settings(max_examples=200, deadline=None)
def test_a_word_sent_many_times_is_named_once(
    rows: list[dict[str, Any]], sent: dict[str, Any], times: int
) -> None:
    """What an empty page says of the words it leaves out is the same whether each word was sent
    once or many times (a query of one name forty times was answered with the name forty times)."""
    once = {**sent, "query": " ".join(dict.fromkeys(sent["query"].split()))}
    repeated = {**once, "query": " ".join(w for w in once["query"].split() for _ in range(times))}
    if matching(rows, once):
        return
    first, again = run(rows, once, reads), run(rows, repeated, reads)
    assert (first is None) == (again is None)
    if first is not None and again is not None and first.unasked:
        assert unasked_said(again, "row") == unasked_said(first, "row")
