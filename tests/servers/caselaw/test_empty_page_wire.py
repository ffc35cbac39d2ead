"""An empty filtered page of search_decisions, over the real wire (`drivable serve caselaw` on the
generated 5,000 decisions, stdio, the SDK client), under generated searches: its next_call is the
same search without the one filter whose removal finds the fewest decisions, the query and every
other argument as sent, and it names the values that would have matched
(`tests.servers.relaxation.check_empty_page`).

On main's explanation (a warning per filter, next_call the first suggestion) this fails: the
next_call swapped the court for another court, or dropped both dates for one bound.
"""

from __future__ import annotations

import asyncio
import datetime
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.servers.caselaw.models import SearchInput
from drivable.target import Target
from tests.cli import CLI
from tests.servers.relaxation import PASSED, check_empty_page, over_stdio, read_as

FILTERS = [
    ("court", "equal"),
    ("date_from", "lower"),
    ("date_to", "upper"),
    ("subject", "equal"),
    ("locale", "equal"),
    ("eli", "equal"),
]


def days(first: datetime.date, last: datetime.date) -> st.SearchStrategy[str]:
    return st.dates(first, last).map(datetime.date.isoformat)


SEARCHES = st.fixed_dictionaries(
    {},
    optional={
        "query": st.sampled_from(
            ["náhrada škody", "nájem", "osobních údajů", "Datenschutz", "bitcoin", "zzqxv"]
        ),
        "court": st.sampled_from(
            ["NS", "Bundesgerichtshof", "Ústavní soud", "Conseil d'État", "General Court", "NSA"]
        ),
        "date_from": days(datetime.date(2010, 1, 1), datetime.date(2031, 1, 1)),
        "date_to": days(datetime.date(2005, 1, 1), datetime.date(2027, 1, 1)),
        "subject": st.sampled_from(["civil", "criminal", "data_protection", "constitutional"]),
        "locale": st.sampled_from(["cs", "de-DE", "fr-FR", "en", "pl-PL"]),
        "eli": st.sampled_from(["89/2012 Sb.", "Regulation (EU) 2016/679", "262/2006 Sb."]),
        "limit": st.integers(1, 50),
        "detail": st.sampled_from(["summary", "full"]),
    },
)


def test_an_empty_filtered_search_leads_to_its_minimal_relaxation(caselaw_db: Path) -> None:
    env = {**PASSED, "DRIVABLE_CASELAW_DB": str(caselaw_db)}
    seen: Counter[str] = Counter()
    with over_stdio(Target(command=(*CLI, "serve", "caselaw"), env=env)) as send:

        @settings(max_examples=60, deadline=None)
        @given(sent=SEARCHES)
        @example(sent={"court": "NS", "subject": "constitutional"})  # "one", met on every run
        def each(sent: dict[str, Any]) -> None:
            async def go() -> None:
                page = await send("search_decisions", sent)
                if page["is_error"]:
                    assert page["code"] == "invalid_arguments"  # date_from after date_to
                    return
                read = read_as(SearchInput, sent)
                assert read is not None
                seen[
                    await check_empty_page(
                        send, "search_decisions", read, FILTERS, page, query="query"
                    )
                ] += 1

            asyncio.run(go())

        each()
    assert seen["one"] and seen["rows"], seen
