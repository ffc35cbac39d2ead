"""One verb vocabulary: every verb the auditor knows leads a name, and a domain adds its own."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import READ_ONLY, Call, Contract, ContractError, Output, Summary
from drivable.contract.tool import check_name
from drivable.kinds import KindModel
from drivable.verbs import LEADING, MUTATING_VERBS, NOT_VERBS, READ_VERBS

NOUNS = st.from_regex(r"[a-z][a-z0-9]{1,10}", fullmatch=True)


@given(verb=st.sampled_from(sorted(LEADING)), noun=NOUNS, prefix=st.none() | NOUNS)
def test_every_verb_the_auditor_knows_leads_a_name(
    verb: str, noun: str, prefix: str | None
) -> None:
    check_name(f"{prefix}_{verb}_{noun}" if prefix else f"{verb}_{noun}")


@given(word=st.sampled_from(sorted(NOT_VERBS)), noun=NOUNS)
def test_a_word_that_names_no_action_does_not(word: str, noun: str) -> None:
    assert word in READ_VERBS | MUTATING_VERBS  # the auditor still reads it
    with pytest.raises(ContractError, match="verbs="):
        check_name(f"{word}_{noun}")


class TicketInput(KindModel):
    title: str = Field(description="The title of the ticket to triage.")


class TicketOutput(Output):
    title: str


def _contract(verbs: list[str]) -> Contract:
    summary = Summary(text="Triage tickets.", does=["triage a ticket"], does_not=["delete"])
    return Contract("ops", version="1.0.0", summary=summary, verbs=verbs)


def _declare(contract: Contract) -> None:
    @contract.tool(
        name="triage_ticket",
        title="Triage a ticket",
        description="Put the ticket of this title in the triage queue; nothing else changes.",
        effects=READ_ONLY,
    )
    async def triage_ticket(args: TicketInput, call: Call) -> TicketOutput:
        return TicketOutput(title=args.title)


def test_a_domain_verb_is_declared_once_and_a_refused_name_says_how() -> None:
    assert "triage" not in LEADING
    with pytest.raises(ContractError) as refused:
        _declare(_contract([]))
    assert "verbs=['triage']" in str(refused.value) and "allow_name" in str(refused.value)
    declared = _contract(["triage"])
    _declare(declared)
    assert "triage_ticket" in declared.tools
    for wrong in ("Triage", "tri age", "triage2", ""):
        with pytest.raises(ValueError, match="one lowercase word"):
            _contract([wrong])
