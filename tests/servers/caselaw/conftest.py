"""Shared fixtures: one generated 5,000-decision database and one small planted one per session."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from drivable.contract import Contract
from drivable.servers.caselaw import server
from drivable.servers.caselaw.command import import_decisions
from drivable.servers.caselaw.server import Handle
from drivable.servers.caselaw.store import Store

# Decisions a test can find by words no generated decision uses.
PLANTED = [
    {
        "court": "Nejvyšší soud",
        "case_number": "21 Cdo 1096/2021",
        "decided_on": "2021-10-01",
        "subject": "civil",
        "locale": "cs-CZ",
        "headline": "Kryptoměna jako věc: vydání bitcoinové peněženky",
        "summary": "Nejvyšší soud posoudil, zda lze kryptoměnu vydat jako věc v právním smyslu.",
        "statutes": ["https://eli.gov.cz/eli/cz/sb/2012/89"],
        "text": "Nejvyšší soud\n\n21 Cdo 1096/2021\n\nI. Vymezení věci\n\nŽalobce se domáhal "
        "vydání kryptoměny bitcoin uložené v peněžence žalované.\n\nII. Posouzení věci\n\n"
        "Kryptoměny jsou nehmotnou věcí; žalobě o vydání bitcoinů lze vyhovět.",
    },
    {
        "court": "Bundesgerichtshof",
        "case_number": "VI ZR 12/21",
        "decided_on": "2021-03-09",
        "subject": "consumer",
        "locale": "de-DE",
        "headline": "Abgasmanipulation: Schadensersatz für Dieselfahrzeug mit Thermofenster",
        "summary": "Der BGH entschied über Schadensersatz wegen eines Thermofensters.",
        "statutes": [],
        "text": "Bundesgerichtshof\n\nVI ZR 12/21\n\nI. Sachverhalt\n\nDie Klägerin erwarb "
        "ein Dieselfahrzeug mit Thermofenster.",
    },
    {
        "court": "Court of Justice of the European Union",
        "case_number": "C-311/18",
        "decided_on": "2020-07-16",
        "subject": "data_protection",
        "locale": "en",
        "headline": "Schrems II: transfer of personal data to the United States",
        "summary": "The Court invalidated the Privacy Shield adequacy decision.",
        "statutes": ["Regulation (EU) 2016/679"],
        "text": "Court of Justice of the European Union\n\nC-311/18\n\nI. Legal context\n\n"
        "Transfers of personal data to third countries under standard contractual clauses.",
    },
    {  # the same case number at two courts: asked about, never guessed
        "court": "Krajský soud v Brně",
        "case_number": "44 A 12/2020",
        "decided_on": "2020-05-05",
        "subject": "administrative",
        "locale": "cs-CZ",
        "headline": "Stavební povolení pro vinný sklep",
        "summary": "Krajský soud zrušil stavební povolení.",
        "text": "Krajský soud v Brně\n\n44 A 12/2020\n\nI. Vymezení věci\n\nVinný sklep.",
    },
    {
        "court": "Krajský soud v Ostravě",
        "case_number": "44 A 12/2020",
        "decided_on": "2020-06-06",
        "subject": "administrative",
        "locale": "cs-CZ",
        "headline": "Stavební povolení pro garáž",
        "summary": "Krajský soud potvrdil stavební povolení.",
        "text": "Krajský soud v Ostravě\n\n44 A 12/2020\n\nI. Vymezení věci\n\nGaráž.",
    },
]


@pytest.fixture(scope="session")
def caselaw_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The full generated database (5,000 decisions), built once for the session."""
    path = tmp_path_factory.mktemp("caselaw") / "caselaw.sqlite"
    Store.open(path)
    return path


@pytest.fixture(scope="session")
def planted_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of 300 generated decisions and the planted ones, imported through JSONL."""
    folder = tmp_path_factory.mktemp("planted")
    path = folder / "planted.sqlite"
    Store.open(path, count=300)
    lines = folder / "planted.jsonl"
    lines.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in PLANTED) + "\n")
    imported, bad = import_decisions(lines, path)
    assert (imported, bad) == (len(PLANTED), [])
    return path


# Both are open for the session, each on its own database: each is a copy of the module's
# contract (a copy opens its own lifespan), started on the database the lifespan is given.


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def caselaw(caselaw_db: Path) -> AsyncIterator[Contract]:
    async with copy.copy(server.contract).started(handle=Handle(caselaw_db)) as started:
        yield started


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def planted(planted_db: Path) -> AsyncIterator[Contract]:
    async with copy.copy(server.contract).started(handle=Handle(planted_db)) as started:
        yield started
