"""Two next-step rules over whole classes of calls, through the real call pipeline:

- a keyed call without a usable idempotency_key is repaired with a new key and every argument it
  sent (docs/decisions/0044-a-missing-key-is-minted-in-the-repair.md);
- an unknown property named by a word of an inclusive range's side ("since", "until",
  "start_date") is the one declared bound on that side, its value kept
  (docs/decisions/0045-range-words.md).
"""

from __future__ import annotations

import datetime
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.effects import open_store
from tests.contract.example_server import contract

settings_ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(autouse=True)
def store(tmp_path: Path) -> None:
    contract.use_effects(
        open_store(str(tmp_path / "effects.sqlite")), b"test-secret-0123456789abcdef"
    )


NO_KEY = st.sampled_from(
    [None, "", " ", "uuid", "key", "<a key you generate>", "<idempotency_key>", "null", "n/a"]
)
drafts = st.lists(
    st.fixed_dictionaries(
        {
            "title": st.text(
                st.characters(categories=("L", "N"), max_codepoint=0x24F), min_size=1, max_size=20
            ),
            "day": st.dates(datetime.date(2026, 1, 1), datetime.date(2027, 12, 31)).map(str),
        }
    ),
    min_size=1,
    max_size=3,
)


@settings_
@given(drafts=drafts, key=NO_KEY, absent=st.booleans())
async def test_a_keyed_call_without_a_key_is_repaired_with_a_new_key_and_all_it_sent(
    drafts: list[dict[str, str]], key: str | None, absent: bool
) -> None:
    sent: dict[str, Any] = {"drafts": drafts}
    if not absent:
        sent["idempotency_key"] = key
    refused = await contract.call("create_notes", sent)
    assert refused.is_error
    env = refused.structured
    repair = env["repair"]
    assert repair["tool"] == "create_notes"
    assert repair["next_step"] == "resend_with_a_new_idempotency_key"
    minted = repair["arguments"].pop("idempotency_key")
    assert repair["arguments"] == {"drafts": drafts}  # every argument as it was sent
    assert minted != key and "`repair`" in env["hint"]
    # the new key is a key: the repair runs, and a retry with it replays the same change
    first = await contract.call("create_notes", {**sent, "idempotency_key": minted})
    again = await contract.call("create_notes", {**sent, "idempotency_key": minted})
    assert not first.is_error and not again.is_error
    assert again.structured["created"] == first.structured["created"]
    assert (again.meta or {})["dev.drivable/receipt"]["replayed"] is True


async def test_each_refusal_mints_its_own_key() -> None:
    sent = {"drafts": [{"title": "Once", "day": "2026-10-01"}]}
    keys = {
        (await contract.call("create_notes", sent)).structured["repair"]["arguments"][
            "idempotency_key"
        ]
        for _ in range(5)
    }
    assert len(keys) == 5  # never one key shared by callers who each sent none


async def test_a_key_sent_is_never_replaced() -> None:
    key = f"k-{uuid.uuid4()}"
    bad = {"drafts": [{"title": "", "day": "x"}], "idempotency_key": key}
    out = await contract.call("create_notes", bad)
    assert out.is_error
    repair = out.structured.get("repair")
    assert repair is None or repair["arguments"]["idempotency_key"] == key


LOWER = ["since", "start", "starting", "begin", "earliest", "start_date", "since_date", "from"]
UPPER = ["until", "till", "end", "ending", "latest", "end_date", "until_date", "to"]


@settings_
@given(
    word=st.sampled_from(LOWER + UPPER),
    day=st.dates(datetime.date(2020, 1, 1), datetime.date(2030, 12, 31)),
    spelled=st.sampled_from(["iso", "czech"]),
)
async def test_a_range_word_is_the_declared_bound_of_its_side(
    word: str, day: datetime.date, spelled: str
) -> None:
    value = day.isoformat() if spelled == "iso" else f"{day.day}. {day.month}. {day.year}"
    out = await contract.call("search_notes", {"query": "budget", word: value})
    assert out.is_error
    env = out.structured
    bound = "date_from" if word in LOWER else "date_to"
    assert env["repair"]["next_step"] == "resend_with_corrected_property_names", env
    assert env["repair"]["arguments"] == {"query": "budget", bound: value}  # the value as sent
    read = await contract.call("search_notes", env["repair"]["arguments"])
    assert not read.is_error  # and it reads as the day it was
    assert all(day.isoformat() in n for n in read.structured.get("notes", []) if bound in n)


@pytest.mark.parametrize("word", ["after", "before", "after_date", "before_date"])
async def test_an_exclusive_word_is_no_bound(word: str) -> None:
    env = (await contract.call("search_notes", {"query": "budget", word: "2026-03-01"})).structured
    repair = env.get("repair") or {"arguments": {}}
    assert "date_from" not in repair["arguments"] and "date_to" not in repair["arguments"]
    assert word in env["hint"]  # left out, and said so
