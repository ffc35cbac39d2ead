"""The phrase tables decisions are written from, in each court's language: topics by subject,
section headings, sentences, headlines, holdings, summaries and how a statute's section is named.

Data only: `data.generate` picks from these with its seeded generator, so changing a table changes
every generated decision (and the digest the determinism test pins).
"""

from __future__ import annotations

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
