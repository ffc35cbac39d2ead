"""The bundled decisions: generated deterministically from a seed, the same records on every run.

`generate(count, seed)` yields plain records (`Record`), the shape `import-decisions` reads from
JSONL too. Courts, their case-number formats and ECLI prefixes come from `courts.py`; the statutes
cited, by ELI, from `statutes.py`. Texts are written in the court's language from the tables in
`phrases.py`: several pages in sections headed "I.", "II.", ... which the server serves as chunks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from drivable.kinds.text_folding import words
from drivable.servers.caselaw.courts import COURTS, Court
from drivable.servers.caselaw.phrases import (
    HEADINGS,
    HEADLINE,
    HOLDINGS,
    SECTION_WORD,
    SENTENCES,
    SUMMARY,
    TOPICS,
)
from drivable.servers.caselaw.statutes import CZ_BY_SUBJECT, EU_BY_SUBJECT, STATUTES

DATA_VERSION = "2026.11.1"
SEED = 20261129
COUNT = 5000

SUBJECTS = (
    "civil",
    "commercial",
    "labour",
    "family",
    "consumer",
    "insolvency",
    "criminal",
    "administrative",
    "tax",
    "asylum",
    "constitutional",
    "data_protection",
    "human_rights",
    "competition",
)
DECISION_TYPES = ("judgment", "order")

Subject = Literal[
    "civil",
    "commercial",
    "labour",
    "family",
    "consumer",
    "insolvency",
    "criminal",
    "administrative",
    "tax",
    "asylum",
    "constitutional",
    "data_protection",
    "human_rights",
    "competition",
]


@dataclass(frozen=True)
class Record:
    """One decision, as the generator makes it and as a JSONL line carries it."""

    decision_id: str
    court: str
    case_number: str
    ecli: str
    decided_on: str
    decision_type: str
    subject: str
    locale: str
    headline: str
    summary: str
    text: str
    statutes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision_id": self.decision_id,
            "court": self.court,
            "case_number": self.case_number,
            "ecli": self.ecli,
            "decided_on": self.decided_on,
            "decision_type": self.decision_type,
            "subject": self.subject,
            "locale": self.locale,
            "headline": self.headline,
            "summary": self.summary,
            "statutes": list(self.statutes),
            "text": self.text,
        }


_ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def decision_id_for(court: str, case_number: str) -> str:
    """A stable id from the court and the case number: the same decision gets the same id."""
    digest = hashlib.sha256(f"{court}\x1f{case_number}".encode()).digest()
    value = int.from_bytes(digest[:8], "big")
    body = "".join(_ID_ALPHABET[(value >> (5 * i)) & 31] for i in range(10))
    return f"dec_{body}"


def ecli_for(court: Court, year: int, case_number: str, ordinal: int) -> str:
    folded = words(case_number, joiner=".").upper()
    return f"ECLI:{court.ecli_code}:{year}:{folded}.{ordinal}"


def _language(court: Court) -> str:
    return court.locale.split("-")[0]


def _topic(rng: random.Random, language: str, subject: str) -> str:
    table = TOPICS[language]
    return rng.choice(table.get(subject) or table["civil"])


def _paragraph(rng: random.Random, language: str, context: dict[str, str]) -> str:
    values = dict(context)
    values["amount"] = f"{rng.randint(1, 950)}\u00a0000"
    values["section"] = SECTION_WORD[language].format(n=rng.randint(2, 2999))
    table = SENTENCES[language]
    picks = [table[rng.randrange(len(table))] for _ in range(rng.randint(3, 6))]
    return " ".join(picks).format(**values)


def _text(
    rng: random.Random, court: Court, case_number: str, decided: dt.date, context: dict[str, str]
) -> str:
    language = _language(court)
    head = f"{court.value}\n{case_number}\n{context['date']}"
    parts = [head]
    for heading in HEADINGS[language]:
        parts.append(heading)
        parts.extend(_paragraph(rng, language, context) for _ in range(rng.randint(2, 3)))
    return "\n\n".join(parts)


def _date(rng: random.Random) -> dt.date:
    # More recent years hold more decisions, as published collections do.
    year = 2026 - min(int(rng.expovariate(1 / 5.0)), 21)
    last = dt.date(year, 10, 31) if year == 2026 else dt.date(year, 12, 31)
    start = dt.date(year, 1, 1)
    return start + dt.timedelta(days=rng.randint(0, (last - start).days))


def _statutes(rng: random.Random, court: Court, subject: str) -> tuple[str, ...]:
    chosen: list[str] = []
    if court.country == "CZ":
        chosen.extend(CZ_BY_SUBJECT[subject][: rng.randint(1, 2)])
    eu_acts = EU_BY_SUBJECT[subject]
    if eu_acts and (court.country != "CZ" or rng.random() < 0.35):
        chosen.append(rng.choice(eu_acts))
    return tuple(dict.fromkeys(chosen))


def generate(count: int = COUNT, seed: int = SEED) -> Iterator[Record]:
    """`count` decisions, the same ones for the same seed on every run and every platform."""
    rng = random.Random(seed)
    weighted = [c for c in COURTS for _ in range(c.weight)]
    seen: set[str] = set()
    made = 0
    while made < count:
        court = rng.choice(weighted)
        decided = _date(rng)
        case_number = court.numberer(rng, decided.year - rng.choice((0, 0, 1, 1, 2)))
        key = f"{court.value}|{case_number}"
        if key in seen:
            continue
        seen.add(key)
        made += 1
        language = _language(court)
        subject = rng.choice(court.subjects)
        statutes = _statutes(rng, court, subject)
        topic = _topic(rng, language, subject)
        holding = rng.choice(HOLDINGS[language])
        statute_title = STATUTES[statutes[0]] if statutes else court.english
        court_name = court.value if language != "en" else court.english
        context = {
            "topic": topic,
            "Topic": topic[:1].upper() + topic[1:],
            "statute": statute_title,
            "date": decided.isoformat() if language == "en" else decided.strftime("%d.%m.%Y"),
            "court": court_name,
            "Court": court_name,
            "holding": holding,
        }
        headline = HEADLINE[language].format(**context)
        summary = SUMMARY[language].format(**context)
        yield Record(
            decision_id=decision_id_for(court.value, case_number),
            court=court.value,
            case_number=case_number,
            ecli=ecli_for(court, decided.year, case_number, 1),
            decided_on=decided.isoformat(),
            decision_type="judgment" if rng.random() < 0.6 else "order",
            subject=subject,
            locale=court.locale,
            headline=headline,
            summary=summary,
            text=_text(rng, court, case_number, decided, context),
            statutes=statutes,
        )


def records_digest(records: Iterator[Record] | list[Record]) -> str:
    """sha256 over the records' canonical JSON: what the determinism test pins."""
    import json

    digest = hashlib.sha256()
    for record in records:
        digest.update(json.dumps(record.to_dict(), sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


__all__ = [
    "COUNT",
    "DATA_VERSION",
    "DECISION_TYPES",
    "SEED",
    "SUBJECTS",
    "Record",
    "Subject",
    "decision_id_for",
    "generate",
    "records_digest",
]
