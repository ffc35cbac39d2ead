"""The bundled decisions: generated deterministically from a seed, the same records on every run.

`generate(count, seed)` yields plain records (`Record`), the shape `import-decisions` reads from
JSONL too. Courts, their case-number formats and ECLI prefixes come from `courts.py`; statutes are
cited by ELI (Czech acts in the Sbírka zákonů, EU acts in the Official Journal), as
`drivable.kinds.eli` emits them. Texts are written in the court's language from phrase tables:
several pages in sections headed "I.", "II.", ... which the server serves as chunks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from drivable.kinds.eli import CZ_BASE, EU_BASE
from drivable.kinds.text_folding import words
from drivable.servers.caselaw.courts import COURTS, Court

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


def cz(year: int, number: int) -> str:
    return f"{CZ_BASE}/{year}/{number}"


def eu(kind: str, year: int, number: int) -> str:
    return f"{EU_BASE}/{kind}/{year}/{number}/oj"


STATUTES: dict[str, str] = {
    cz(2012, 89): "zákon č. 89/2012 Sb., občanský zákoník",
    cz(1963, 99): "zákon č. 99/1963 Sb., občanský soudní řád",
    cz(2009, 40): "zákon č. 40/2009 Sb., trestní zákoník",
    cz(1961, 141): "zákon č. 141/1961 Sb., trestní řád",
    cz(2006, 262): "zákon č. 262/2006 Sb., zákoník práce",
    cz(2012, 90): "zákon č. 90/2012 Sb., o obchodních korporacích",
    cz(2006, 182): "zákon č. 182/2006 Sb., insolvenční zákon",
    cz(2002, 150): "zákon č. 150/2002 Sb., soudní řád správní",
    cz(2004, 500): "zákon č. 500/2004 Sb., správní řád",
    cz(2009, 280): "zákon č. 280/2009 Sb., daňový řád",
    cz(2004, 235): "zákon č. 235/2004 Sb., o dani z přidané hodnoty",
    cz(1999, 325): "zákon č. 325/1999 Sb., o azylu",
    cz(1993, 1): "ústavní zákon č. 1/1993 Sb., Ústava České republiky",
    cz(1993, 2): "usnesení č. 2/1993 Sb., Listina základních práv a svobod",
    cz(2019, 110): "zákon č. 110/2019 Sb., o zpracování osobních údajů",
    cz(1992, 634): "zákon č. 634/1992 Sb., o ochraně spotřebitele",
    cz(2001, 143): "zákon č. 143/2001 Sb., o ochraně hospodářské soutěže",
    eu("reg", 2016, 679): "Regulation (EU) 2016/679 (General Data Protection Regulation)",
    eu("dir", 1993, 13): "Council Directive 93/13/EEC on unfair terms in consumer contracts",
    eu("reg", 2012, 1215): "Regulation (EU) No 1215/2012 (Brussels I bis)",
    eu("dir", 2011, 83): "Directive 2011/83/EU on consumer rights",
    eu("reg", 2004, 261): "Regulation (EC) No 261/2004 on air passenger rights",
    eu("dir", 2006, 112): "Council Directive 2006/112/EC on the common system of VAT",
    eu("dir", 2013, 32): "Directive 2013/32/EU on international protection procedures",
    eu("reg", 2015, 848): "Regulation (EU) 2015/848 on insolvency proceedings",
    eu("reg", 2003, 1): "Council Regulation (EC) No 1/2003 (competition rules)",
    eu("dir", 2003, 88): "Directive 2003/88/EC concerning the organisation of working time",
    eu("reg", 2019, 1111): "Council Regulation (EU) 2019/1111 (Brussels II ter)",
}

# Statutes a decision of each subject applies: Czech acts (for Czech courts) and EU acts (for all).
CZ_BY_SUBJECT: dict[str, tuple[str, ...]] = {
    "civil": (cz(2012, 89), cz(1963, 99)),
    "commercial": (cz(2012, 90), cz(2012, 89)),
    "labour": (cz(2006, 262),),
    "family": (cz(2012, 89),),
    "consumer": (cz(1992, 634), cz(2012, 89)),
    "insolvency": (cz(2006, 182),),
    "criminal": (cz(2009, 40), cz(1961, 141)),
    "administrative": (cz(2002, 150), cz(2004, 500)),
    "tax": (cz(2009, 280), cz(2004, 235)),
    "asylum": (cz(1999, 325), cz(2002, 150)),
    "constitutional": (cz(1993, 1), cz(1993, 2)),
    "data_protection": (cz(2019, 110),),
    "human_rights": (cz(1993, 2),),
    "competition": (cz(2001, 143),),
}
EU_BY_SUBJECT: dict[str, tuple[str, ...]] = {
    "civil": (eu("reg", 2012, 1215),),
    "commercial": (eu("reg", 2012, 1215),),
    "labour": (eu("dir", 2003, 88),),
    "family": (eu("reg", 2019, 1111),),
    "consumer": (eu("dir", 1993, 13), eu("dir", 2011, 83), eu("reg", 2004, 261)),
    "insolvency": (eu("reg", 2015, 848),),
    "criminal": (),
    "administrative": (),
    "tax": (eu("dir", 2006, 112),),
    "asylum": (eu("dir", 2013, 32),),
    "constitutional": (),
    "data_protection": (eu("reg", 2016, 679),),
    "human_rights": (),
    "competition": (eu("reg", 2003, 1),),
}

# Topics by subject and language: what a decision is about, in words a search finds.
TOPICS: dict[str, dict[str, tuple[str, ...]]] = {
    "cs": {
        "civil": ("náhrada škody", "bezdůvodné obohacení", "vydržení vlastnického práva"),
        "commercial": ("odpovědnost jednatele", "převod obchodního podílu", "smluvní pokuta"),
        "labour": (
            "výpověď z pracovního poměru",
            "okamžité zrušení pracovního poměru",
            "náhrada mzdy",
        ),
        "family": (
            "výživné pro nezletilé dítě",
            "svěření dítěte do péče",
            "vypořádání společného jmění",
        ),
        "consumer": (
            "nepřiměřené smluvní ujednání",
            "spotřebitelský úvěr",
            "odstoupení od smlouvy",
        ),
        "insolvency": ("oddlužení", "popěrný spor", "neúčinnost právního jednání"),
        "criminal": ("podvod", "krádež", "zkrácení daně", "maření výkonu úředního rozhodnutí"),
        "administrative": ("stavební povolení", "přestupek v dopravě", "přístup k informacím"),
        "tax": ("nadměrný odpočet DPH", "daňová kontrola", "zajišťovací příkaz"),
        "asylum": ("mezinárodní ochrana", "správní vyhoštění", "zajištění cizince"),
        "constitutional": (
            "právo na spravedlivý proces",
            "svoboda projevu",
            "právo vlastnit majetek",
        ),
        "data_protection": ("zpracování osobních údajů", "kamerový systém", "právo na výmaz"),
        "human_rights": ("zákaz mučení", "respektování rodinného života", "délka řízení"),
        "competition": ("kartelová dohoda", "zneužití dominantního postavení"),
    },
    "en": {
        "civil": ("damages", "jurisdiction in civil matters", "unjust enrichment"),
        "commercial": ("freedom of establishment", "liability of directors", "late payment"),
        "labour": ("working time", "annual leave", "equal pay"),
        "family": ("parental responsibility", "child abduction", "maintenance obligations"),
        "consumer": (
            "unfair contract terms",
            "consumer credit",
            "flight cancellation compensation",
        ),
        "insolvency": ("centre of main interests", "secondary insolvency proceedings"),
        "criminal": ("European arrest warrant", "right to interpretation"),
        "administrative": ("access to documents", "public procurement"),
        "tax": ("value added tax deduction", "VAT exemption", "carousel fraud"),
        "asylum": ("international protection", "subsequent application", "detention of applicants"),
        "constitutional": ("rule of law", "judicial independence"),
        "data_protection": (
            "processing of personal data",
            "right to erasure",
            "transfer of personal data to third countries",
        ),
        "human_rights": (
            "right to a fair trial",
            "freedom of expression",
            "respect for private and family life",
            "prohibition of torture",
        ),
        "competition": ("cartel fines", "abuse of a dominant position", "State aid"),
    },
    "de": {
        "civil": ("Schadensersatz", "ungerechtfertigte Bereicherung", "Mietminderung"),
        "commercial": ("Geschäftsführerhaftung", "Gesellschafterbeschluss"),
        "labour": ("Kündigungsschutz", "Urlaubsabgeltung"),
        "consumer": ("Widerrufsrecht", "Verbraucherdarlehen", "Abgasmanipulation"),
        "insolvency": ("Insolvenzanfechtung", "Restschuldbefreiung"),
        "criminal": ("Betrug", "Untreue", "Steuerhinterziehung"),
        "administrative": ("Baugenehmigung", "Informationsfreiheit"),
        "asylum": ("Flüchtlingseigenschaft", "subsidiärer Schutz"),
        "constitutional": ("allgemeines Persönlichkeitsrecht", "Meinungsfreiheit"),
        "data_protection": ("Auskunftsanspruch", "Verarbeitung personenbezogener Daten"),
        "human_rights": ("Menschenwürde",),
    },
    "fr": {
        "civil": ("responsabilité civile", "enrichissement injustifié", "bail d'habitation"),
        "commercial": ("rupture brutale des relations commerciales", "cession de parts sociales"),
        "labour": ("licenciement sans cause réelle et sérieuse", "heures supplémentaires"),
        "consumer": ("clause abusive", "crédit à la consommation"),
        "criminal": ("escroquerie", "abus de confiance"),
        "administrative": ("permis de construire", "responsabilité de l'État"),
        "tax": ("taxe sur la valeur ajoutée", "abus de droit fiscal"),
        "asylum": ("protection subsidiaire", "obligation de quitter le territoire"),
        "data_protection": ("traitement de données personnelles", "droit à l'effacement"),
    },
    "pl": {
        "civil": ("odszkodowanie", "bezpodstawne wzbogacenie", "zasiedzenie"),
        "commercial": ("odpowiedzialność członka zarządu", "umowa spółki"),
        "labour": ("wypowiedzenie umowy o pracę", "wynagrodzenie za nadgodziny"),
        "family": ("alimenty", "władza rodzicielska"),
        "criminal": ("oszustwo", "kradzież"),
        "administrative": ("pozwolenie na budowę", "dostęp do informacji publicznej"),
        "tax": ("podatek od towarów i usług", "kontrola podatkowa"),
        "data_protection": ("przetwarzanie danych osobowych",),
    },
}

HEADINGS: dict[str, tuple[str, ...]] = {
    "cs": ("I. Vymezení věci", "II. Dosavadní průběh řízení", "III. Argumentace účastníků", "IV. Posouzení věci", "V. Závěr"),
    "en": ("I. Legal context", "II. Facts of the dispute", "III. Arguments of the parties", "IV. Assessment", "V. Conclusion"),
    "de": ("I. Sachverhalt", "II. Prozessgeschichte", "III. Vorbringen der Parteien", "IV. Entscheidungsgründe", "V. Ergebnis"),
    "fr": ("I. Faits et procédure", "II. Moyens du pourvoi", "III. Arguments des parties", "IV. Motifs", "V. Dispositif"),
    "pl": ("I. Stan faktyczny", "II. Przebieg postępowania", "III. Stanowiska stron", "IV. Ocena prawna", "V. Rozstrzygnięcie"),
}  # fmt: skip

SENTENCES: dict[str, tuple[str, ...]] = {
    "cs": (
        "Žalobce se domáhal rozhodnutí ve věci, jejímž předmětem je {topic}.",
        "Soud prvního stupně žalobě vyhověl a uložil žalované zaplatit {amount} Kč s příslušenstvím.",
        "Odvolací soud rozsudek soudu prvního stupně změnil a žalobu zamítl.",
        "Dovolatel namítá, že odvolací soud nesprávně posoudil otázku, která se týká toho, co je {topic}.",
        "Podle ustanovení {section} předpisu {statute} je rozhodující skutečný obsah právního jednání.",
        "Nejvyšší soud již v minulosti dovodil, že {topic} je třeba posuzovat s ohledem na všechny okolnosti případu.",
        "Ze skutkových zjištění vyplývá, že účastníci uzavřeli smlouvu dne {date} a žalovaná svůj závazek nesplnila.",
        "Žalovaná ve vyjádření uvedla, že nárok je promlčen a že uplatnila námitku promlčení včas.",
        "Soud neshledal důvod k odchýlení se od své ustálené judikatury, podle níž {topic} nelze vykládat extenzivně.",
        "Právní posouzení věci odvolacím soudem je proto neúplné, a tudíž nesprávné.",
        "Pro úplnost soud dodává, že otázka, kterou je {topic}, nebyla v řízení sporná.",
        "Stěžovatel tvrdí, že napadeným rozhodnutím bylo porušeno jeho právo na spravedlivý proces podle čl. 36 odst. 1 Listiny.",
        "Soud proto napadené rozhodnutí zrušil a věc vrátil k dalšímu řízení.",
        "O náhradě nákladů řízení bude rozhodnuto v novém rozhodnutí o věci.",
    ),
    "en": (
        "The request for a preliminary ruling concerns the interpretation of {statute}, in particular as regards {topic}.",
        "The applicant complained that the domestic courts had failed to examine {topic} with due diligence.",
        "The referring court asks, in essence, whether {section} of {statute} must be interpreted as precluding national legislation on {topic}.",
        "The dispute in the main proceedings arose on {date}, when the defendant refused to pay the sum of EUR {amount}.",
        "It is settled case-law that the concept of {topic} must be given an autonomous and uniform interpretation.",
        "The Government submitted that the complaint was manifestly ill-founded.",
        "The Court reiterates that the guarantees at stake must be practical and effective, not theoretical and illusory.",
        "That interpretation is supported by the objective of ensuring a high level of protection as regards {topic}.",
        "The national court must therefore disapply any provision of national law which is contrary to {statute}.",
        "There has accordingly been a violation of the Convention as regards {topic}.",
        "The answer to the question referred is that {statute} precludes the practice described.",
        "Costs incurred in submitting observations to the Court are not recoverable.",
    ),
    "de": (
        "Die Klägerin begehrt Schadensersatz; im Streit steht die Frage der {topic}.",
        "Das Berufungsgericht hat die Klage abgewiesen und die Revision zugelassen.",
        "Die Revision hat Erfolg, soweit sie sich gegen die Beurteilung der {topic} richtet.",
        "Nach {section} der Verordnung {statute} kommt es auf den tatsächlichen Inhalt der Vereinbarung an.",
        "Am {date} schlossen die Parteien einen Vertrag über EUR {amount}.",
        "Der Senat hält an seiner bisherigen Rechtsprechung zur {topic} fest.",
        "Die Beklagte hat die Einrede der Verjährung erhoben.",
        "Das angefochtene Urteil ist daher aufzuheben und die Sache zurückzuverweisen.",
    ),
    "fr": (
        "Selon l'arrêt attaqué, le litige porte sur la question de la {topic}.",
        "La cour d'appel a rejeté la demande formée par la société requérante.",
        "Il résulte de {section} du {statute} que le juge doit examiner d'office la {topic}.",
        "Le {date}, les parties ont conclu un contrat d'un montant de {amount} euros.",
        "En statuant ainsi, la cour d'appel a violé le texte susvisé.",
        "Le moyen, qui critique la qualification de la {topic}, est fondé.",
        "Par ces motifs, la Cour casse et annule l'arrêt en toutes ses dispositions.",
    ),
    "pl": (
        "Powód domagał się zasądzenia kwoty {amount} zł; spór dotyczy kwestii: {topic}.",
        "Sąd Apelacyjny oddalił apelację pozwanego.",
        "Zgodnie z {section} aktu {statute} decydujące znaczenie ma rzeczywista treść czynności.",
        "W dniu {date} strony zawarły umowę.",
        "Sąd Najwyższy podtrzymuje dotychczasowe orzecznictwo dotyczące zagadnienia: {topic}.",
        "Skarga kasacyjna okazała się zasadna.",
        "Zaskarżony wyrok należało uchylić i przekazać sprawę do ponownego rozpoznania.",
    ),
}

HEADLINE: dict[str, str] = {
    "cs": "{Topic}: {holding}",
    "en": "{Topic}: {holding}",
    "de": "{Topic}: {holding}",
    "fr": "{Topic} : {holding}",
    "pl": "{Topic}: {holding}",
}
HOLDINGS: dict[str, tuple[str, ...]] = {
    "cs": ("rozhodnutí zrušeno a věc vrácena", "dovolání zamítnuto", "ústavní stížnosti vyhověno", "kasační stížnost zamítnuta", "rozsudek potvrzen"),
    "en": ("national rule precluded", "violation found", "no violation", "interpretation given", "action dismissed"),
    "de": ("Revision erfolgreich", "Berufung zurückgewiesen", "Verfassungsbeschwerde stattgegeben"),
    "fr": ("cassation", "rejet du pourvoi"),
    "pl": ("wyrok uchylony", "skarga kasacyjna oddalona"),
}  # fmt: skip
SUMMARY: dict[str, str] = {
    "cs": "{Court} se zabýval otázkou, kterou je {topic}. Dospěl k závěru: {holding}. Rozhodnutí vychází z předpisu {statute}.",
    "en": "The {court} examined {topic}. Outcome: {holding}. The decision applies {statute}.",
    "de": "Der {court} befasste sich mit der Frage der {topic}. Ergebnis: {holding}. Angewandt wurde {statute}.",
    "fr": "La {court} s'est prononcée sur la {topic}. Solution : {holding}. Texte appliqué : {statute}.",
    "pl": "{Court} rozważył zagadnienie: {topic}. Rozstrzygnięcie: {holding}. Zastosowano {statute}.",
}
SECTION_WORD = {
    "cs": "§ {n}",
    "en": "Article {n}",
    "de": "Art. {n}",
    "fr": "l'article {n}",
    "pl": "art. {n}",
}


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
    "STATUTES",
    "SUBJECTS",
    "Record",
    "Subject",
    "decision_id_for",
    "generate",
    "records_digest",
]
