"""The courts the caselaw server knows: names, abbreviations, and each court's case-number format.

The stored value of a court is its official name in its own language ("Nejvyšší soud"); the
vocabulary reads it through its English name, abbreviations and aliases as well. Imported
decisions must name one of these courts, so the vocabulary is the data's own.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from drivable.kinds.vocabulary import Entry, Vocabulary

Numberer = Callable[[random.Random, int], str]

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")


@dataclass(frozen=True)
class Court:
    value: str
    english: str
    abbreviations: tuple[str, ...]
    country: str  # ISO 3166-1 alpha-2, "EU" for the Union's courts, "COE" for the Council of Europe
    locale: str
    level: str  # apex, appeal, regional, constitutional, supranational
    subjects: tuple[str, ...]
    example: str
    numberer: Numberer
    ecli_code: str
    aliases: tuple[str, ...] = ()
    weight: int = 1

    def entry(self) -> Entry:
        return Entry(self.value, self.value, self.english, self.abbreviations, self.aliases)


def _cz(
    registers: tuple[str, ...], senates: tuple[int, int], list_number: bool = False
) -> Numberer:
    def number(rng: random.Random, year: int) -> str:
        senate = rng.randint(*senates)
        base = f"{senate} {rng.choice(registers)} {rng.randint(1, 4999)}/{year}"
        return f"{base}-{rng.randint(12, 180)}" if list_number else base

    return number


def _us(rng: random.Random, year: int) -> str:
    yy = f"{year % 100:02d}"
    if rng.random() < 0.06:
        return f"Pl. ÚS {rng.randint(1, 60)}/{yy}"
    return f"{rng.choice(ROMAN[:4])}. ÚS {rng.randint(1, 3999)}/{yy}"


def _bgh(rng: random.Random, year: int) -> str:
    register = rng.choice(("ZR", "ZR", "ZB", "StR"))
    senate = rng.randint(1, 6) if register == "StR" else rng.randint(1, 12)
    head = str(senate) if register == "StR" else ROMAN[senate - 1]
    return f"{head} {register} {rng.randint(1, 599)}/{year % 100:02d}"


def _bverfg(rng: random.Random, year: int) -> str:
    return f"{rng.randint(1, 2)} {rng.choice(('BvR', 'BvR', 'BvL', 'BvE'))} {rng.randint(1, 2999)}/{year % 100:02d}"


def _bverwg(rng: random.Random, year: int) -> str:
    return (
        f"{rng.randint(1, 10)} {rng.choice(('C', 'B', 'A'))} {rng.randint(1, 60)}.{year % 100:02d}"
    )


def _ogh(rng: random.Random, year: int) -> str:
    letter = "abcdefghikmnpstvwxyz"[rng.randint(0, 19)]
    return f"{rng.randint(1, 10)} {rng.choice(('Ob', 'Ob', 'Os', 'ObA'))} {rng.randint(1, 250)}/{year % 100:02d}{letter}"


def _cass(rng: random.Random, year: int) -> str:
    return f"{year % 100:02d}-{rng.randint(10, 99)}.{rng.randint(0, 999):03d}"


def _ce(rng: random.Random, year: int) -> str:
    return str(rng.randint(400000, 499999))


def _sn(rng: random.Random, year: int) -> str:
    register = rng.choice(("CSK", "CSKP", "CZP", "KK", "PSK"))
    return f"{rng.choice(ROMAN[:5])} {register} {rng.randint(1, 999)}/{year % 100:02d}"


def _nsa(rng: random.Random, year: int) -> str:
    return f"{rng.choice(ROMAN[:3])} {rng.choice(('OSK', 'FSK', 'GSK'))} {rng.randint(1, 2999)}/{year % 100:02d}"


def _cjeu(prefix: str) -> Numberer:
    def number(rng: random.Random, year: int) -> str:
        return f"{prefix}-{rng.randint(1, 899)}/{year % 100:02d}"

    return number


def _echr(rng: random.Random, year: int) -> str:
    return f"{rng.randint(1000, 79999)}/{(year - rng.randint(2, 6)) % 100:02d}"


CIVIL = ("civil", "commercial", "labour", "family", "consumer", "insolvency")
ADMIN = ("administrative", "tax", "asylum", "data_protection")

COURTS: tuple[Court, ...] = (
    Court("Nejvyšší soud", "Supreme Court of the Czech Republic", ("NS", "NSČR"), "CZ", "cs-CZ", "apex",
          (*CIVIL, "criminal"), "21 Cdo 1096/2021", _cz(("Cdo", "Cdo", "Cdo", "Odo", "Tdo", "ICdo", "NSČR"), (20, 33)),
          "CZ:NS", aliases=("Supreme Court", "Nejvyšší soud České republiky"), weight=5),
    Court("Nejvyšší správní soud", "Supreme Administrative Court of the Czech Republic", ("NSS",), "CZ", "cs-CZ",
          "apex", ADMIN, "6 As 123/2020-45", _cz(("As", "Ads", "Afs", "Azs", "Ans"), (1, 10), list_number=True),
          "CZ:NSS", aliases=("Supreme Administrative Court",), weight=4),
    Court("Ústavní soud", "Constitutional Court of the Czech Republic", ("ÚS", "ÚSČR"), "CZ", "cs-CZ",
          "constitutional", ("constitutional", "civil", "criminal", "human_rights"), "I. ÚS 23/23", _us,
          "CZ:US", aliases=("Constitutional Court",), weight=3),
    Court("Vrchní soud v Praze", "High Court in Prague", ("VS Praha", "VSPH"), "CZ", "cs-CZ", "appeal",
          ("commercial", "insolvency", "criminal"), "7 Cmo 123/2020", _cz(("Cmo", "VSPH", "To"), (1, 12)), "CZ:VSPH"),
    Court("Vrchní soud v Olomouci", "High Court in Olomouc", ("VS Olomouc", "VSOL"), "CZ", "cs-CZ", "appeal",
          ("commercial", "insolvency", "criminal"), "8 Cmo 45/2019", _cz(("Cmo", "VSOL", "To"), (1, 12)), "CZ:VSOL"),
    Court("Městský soud v Praze", "Municipal Court in Prague", ("MS Praha", "MSPH"), "CZ", "cs-CZ", "regional",
          ("civil", "administrative", "labour", "criminal"), "10 A 123/2020", _cz(("A", "Co", "To", "Ad"), (3, 91)),
          "CZ:MSPH"),
    Court("Krajský soud v Brně", "Regional Court in Brno", ("KS Brno", "KSBR"), "CZ", "cs-CZ", "regional",
          ("civil", "administrative", "family", "criminal"), "44 A 12/2020", _cz(("A", "Co", "To", "Af"), (4, 72)),
          "CZ:KSBR"),
    Court("Krajský soud v Ostravě", "Regional Court in Ostrava", ("KS Ostrava", "KSOS"), "CZ", "cs-CZ", "regional",
          ("civil", "administrative", "labour", "criminal"), "22 A 86/2019", _cz(("A", "Co", "To", "Ad"), (8, 75)),
          "CZ:KSOS"),
    Court("Bundesgerichtshof", "Federal Court of Justice of Germany", ("BGH",), "DE", "de-DE", "apex",
          ("civil", "commercial", "consumer", "criminal", "insolvency"), "VI ZR 12/21", _bgh, "DE:BGH",
          aliases=("Federal Court of Justice",), weight=3),
    Court("Bundesverfassungsgericht", "Federal Constitutional Court of Germany", ("BVerfG",), "DE", "de-DE",
          "constitutional", ("constitutional", "human_rights", "data_protection"), "1 BvR 2237/21", _bverfg,
          "DE:BVERFG", aliases=("Federal Constitutional Court",)),
    Court("Bundesverwaltungsgericht", "Federal Administrative Court of Germany", ("BVerwG",), "DE", "de-DE",
          "apex", ("administrative", "asylum", "data_protection"), "8 C 9.20", _bverwg, "DE:BVERWG",
          aliases=("Federal Administrative Court",)),
    Court("Oberster Gerichtshof", "Supreme Court of Justice of Austria", ("OGH",), "AT", "de-AT", "apex",
          ("civil", "commercial", "consumer", "labour", "criminal"), "1 Ob 45/21d", _ogh, "AT:OGH0002", weight=2),
    Court("Cour de cassation", "Court of Cassation of France", ("Cass.", "CCass"), "FR", "fr-FR", "apex",
          ("civil", "commercial", "labour", "criminal", "consumer"), "19-20.945", _cass, "FR:CCASS",
          aliases=("Court of Cassation", "French Court of Cassation"), weight=3),
    Court("Conseil d'État", "Council of State of France", ("CE",), "FR", "fr-FR", "apex",
          ("administrative", "tax", "asylum", "data_protection"), "436123", _ce, "FR:CECHR",
          aliases=("Council of State", "Conseil d'Etat"), weight=2),
    Court("Sąd Najwyższy", "Supreme Court of Poland", ("SN",), "PL", "pl-PL", "apex",
          ("civil", "commercial", "labour", "criminal", "family"), "III CZP 12/21", _sn, "PL:SN",
          aliases=("Polish Supreme Court",), weight=2),
    Court("Naczelny Sąd Administracyjny", "Supreme Administrative Court of Poland", ("NSA",), "PL", "pl-PL",
          "apex", ("administrative", "tax", "data_protection"), "II OSK 1234/19", _nsa, "PL:NSA"),
    Court("Court of Justice of the European Union", "Court of Justice of the European Union",
          ("CJEU", "SDEU", "EuGH", "CJUE", "TSUE", "ECJ"), "EU", "en", "supranational",
          ("consumer", "data_protection", "asylum", "tax", "competition", "civil"), "C-311/18", _cjeu("C"), "EU:C",
          aliases=("Soudní dvůr Evropské unie", "Gerichtshof der Europäischen Union", "Court of Justice"),
          weight=3),
    Court("General Court", "General Court of the European Union", ("GC", "Tribunál", "EuG"), "EU", "en",
          "supranational", ("competition", "data_protection", "tax"), "T-612/17", _cjeu("T"), "EU:T",
          aliases=("Tribunál Evropské unie", "Gericht der Europäischen Union")),
    Court("European Court of Human Rights", "European Court of Human Rights", ("ECtHR", "ESLP", "EGMR", "CEDH"),
          "COE", "en", "supranational", ("human_rights",), "47287/15", _echr, "CE:ECHR",
          aliases=("Evropský soud pro lidská práva", "Europäischer Gerichtshof für Menschenrechte", "Strasbourg court"),
          weight=2),
)  # fmt: skip

BY_VALUE = {c.value: c for c in COURTS}

COURT_VOCABULARY = Vocabulary(
    [c.entry() for c in COURTS],
    name="court",
    list_tool="list_courts",
    description="A court, as list_courts names it (official name, English name or abbreviation)",
)


__all__ = ["BY_VALUE", "COURTS", "COURT_VOCABULARY", "Court"]
