"""The documents domain's data: a folder tree three levels deep, its owners and ~200 documents.

Generated deterministically (one seeded `random.Random`), so both servers of the domain (the
drivable one and its naive twin) serve the same rows and tests and workflows can name them.
Modified dates fall in the year up to TODAY, the store's fixed clock; sizes run from 1 KB to
50 MB; a few documents carry long texts that a reader pages through (PART_CHARS a part).
Sizes are binary: 1 KB = 1024 bytes, 1 MB = 1024 KB.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from drivable.kinds.text_folding import words

SEED = 2026_038
TODAY = datetime.date(2026, 11, 30)
FIRST_DAY = TODAY - datetime.timedelta(days=364)
PART_CHARS = 2000
KB = 1024
MB = 1024 * KB
TYPES = ("pdf", "docx", "xlsx", "pptx", "md", "txt", "csv")
ROLES = ("viewer", "editor")


@dataclass(frozen=True)
class Person:
    name: str
    email: str


PEOPLE = (
    Person("Alice Novák", "alice.novak@example.org"),
    Person("Ben Carter", "ben.carter@example.org"),
    Person("Chloé Dubois", "chloe.dubois@example.org"),
    Person("Dana Kim", "dana.kim@example.org"),
    Person("Erik Svoboda", "erik.svoboda@example.org"),
    Person("Fatima Rahman", "fatima.rahman@example.org"),
    Person("George Wilson", "george.wilson@example.org"),
    Person("Hana Weber", "hana.weber@example.org"),
)
# People outside the company that documents are shared with.
GUESTS = ("maria.lopez@partner.example", "tom.reed@acme.example")


@dataclass(frozen=True)
class Share:
    email: str
    role: str


@dataclass(frozen=True)
class Document:
    document_id: str
    name: str
    folder: str
    type: str
    size_bytes: int
    owner: str  # an email of PEOPLE
    modified_on: datetime.date
    version: int
    shares: tuple[Share, ...]
    text: str

    @property
    def path(self) -> str:
        return join(self.folder, self.name)


@dataclass(frozen=True)
class Library:
    people: tuple[Person, ...]
    folders: tuple[str, ...]  # every folder path, "/" first, sorted
    documents: tuple[Document, ...]


def join(folder: str, name: str) -> str:
    return f"/{name}" if folder == "/" else f"{folder}/{name}"


def parent(folder: str) -> str:
    head = folder.rsplit("/", 1)[0]
    return head or "/"


def within(path: str, folder: str) -> bool:
    """`path` is `folder` or lies anywhere under it."""
    return folder == "/" or path == folder or path.startswith(folder + "/")


def size_label(size_bytes: int) -> str:
    """1536 -> '1.5 KB', 2621440 -> '2.5 MB' (binary units, one decimal)."""
    if size_bytes < KB:
        return f"{size_bytes} B"
    if size_bytes < MB:
        return f"{size_bytes / KB:.1f} KB"
    if size_bytes < 1024 * MB:
        return f"{size_bytes / MB:.1f} MB"
    return f"{size_bytes / (1024 * MB):.1f} GB"


def parts(text: str) -> list[str]:
    """A text cut into parts of at most PART_CHARS characters, at paragraph ends where possible."""
    found: list[str] = []
    current = ""
    for paragraph in text.split("\n\n"):
        while len(paragraph) > PART_CHARS:  # a paragraph longer than a part is cut at a space
            cut = paragraph.rfind(" ", 0, PART_CHARS) if " " in paragraph[:PART_CHARS] else -1
            cut = cut if cut > 0 else PART_CHARS
            if current:
                found.append(current)
                current = ""
            found.append(paragraph[:cut])
            paragraph = paragraph[cut:].lstrip()
        joined = f"{current}\n\n{paragraph}" if current else paragraph
        if len(joined) > PART_CHARS and current:
            found.append(current)
            current = paragraph
        else:
            current = joined
    if current or not found:
        found.append(current)
    return found


def searchable(document: Document) -> str:
    """What a search matches words against: name and text, folded (case, accents, punctuation)."""
    return words(f"{document.name} {document.text}")


# -- the tree ------------------------------------------------------------------------------------

_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
_VENDORS = (
    "Acme Hosting", "Brightline Print", "Cobalt Cloud", "Delta Travel", "Evergreen Catering",
    "Fjord Legal", "Granite Security", "Helix Analytics",
)  # fmt: skip
_COMPANIES = (
    "Acme Corp", "Northwind", "Globex", "Initech", "Umbrella Retail", "Stark Logistics",
    "Wayne Media", "Tyrell Labs",
)  # fmt: skip
_FEATURES = ("Search", "Billing", "Notifications", "Mobile app", "Single sign-on", "Reporting")
_DEPARTMENTS = ("Engineering", "Marketing", "HR", "Legal", "Sales", "Finance")

A, B, C, D, E, F, G, H = (p.email for p in PEOPLE)  # by first name: Alice is A

# Per folder: who owns its documents, the area its texts are about, and its document names.
# A name's quarter or month pins its modified date near the end of that period.
_TREE: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {
    "/": ((A, G), "company", ("Read me.md", "Company directory.xlsx")),
    "/Engineering": ((B, E), "engineering", ("Engineering roadmap 2026.pptx", "Team charter.md")),
    "/Engineering/Design": (
        (B, E),
        "engineering",
        (
            *tuple(f"{f} design doc.md" for f in _FEATURES),
            "Architecture overview.pdf",
            "Search wireframes.pdf",
            "Mobile app mockups.pptx",
        ),
    ),
    "/Engineering/Runbooks": (
        (E, B),
        "engineering",
        (
            "Incident response runbook.md",
            "Database failover runbook.md",
            "On-call guide.md",
            "Deploy checklist.md",
            "Backup and restore procedure.md",
            "Access review procedure.txt",
        ),
    ),
    "/Engineering/Specs": (
        (B, E),
        "engineering",
        tuple(f"{f} API spec.md" for f in _FEATURES)
        + tuple(f"{f} requirements.docx" for f in _FEATURES[:4]),
    ),
    "/Engineering/Specs/Archive": (
        (E,),
        "engineering",
        ("Legacy billing spec.docx", "Old search requirements.docx", "Mobile app v1 spec.pdf"),
    ),
    "/Finance": ((A, H), "finance", ("Finance calendar 2026.xlsx", "Chart of accounts.xlsx")),
    "/Finance/Budgets": (
        (A, H),
        "finance",
        ("Budget process.docx", "Budget template.xlsx", "Budget 2025 actuals.xlsx"),
    ),
    "/Finance/Budgets/2026": (
        (A, H),
        "finance",
        (
            *tuple(f"{d} budget 2026.xlsx" for d in _DEPARTMENTS),
            "Budget 2026 summary.pdf",
            "Budget 2026 board deck.pptx",
        ),
    ),
    "/Finance/Invoices": ((H,), "finance", ("Invoice register.xlsx",)),
    "/Finance/Invoices/2025": (
        (H, A),
        "invoice",
        tuple(f"Invoice 2025-{n:03d} {_VENDORS[n % 8]}.pdf" for n in range(101, 113)),
    ),
    "/Finance/Invoices/2026": (
        (H, A),
        "invoice",
        tuple(f"Invoice 2026-{n:03d} {_VENDORS[n % 8]}.pdf" for n in range(1, 25)),
    ),
    "/HR": ((D,), "people", ("Org chart.pdf", "Holiday calendar 2026.xlsx")),
    "/HR/Onboarding": (
        (D,),
        "people",
        (
            "Onboarding checklist.docx",
            "Welcome guide.pdf",
            "IT setup guide.md",
            "First week schedule.docx",
            "Buddy programme.md",
        ),
    ),
    "/HR/Policies": (
        (D, F),
        "people",
        (
            "Employee handbook.pdf",
            "Travel policy.pdf",
            "Remote work policy.docx",
            "Expense policy.pdf",
            "Code of conduct.pdf",
            "Parental leave policy.docx",
            "Whistleblowing policy.pdf",
        ),
    ),
    "/Legal": ((F,), "legal", ("Privacy policy.md", "Data processing agreement.docx")),
    "/Legal/Contracts": (
        (F,),
        "legal",
        (
            "Master services agreement Cobalt Cloud.docx",
            "Contract template.docx",
            *tuple(f"Order form {v}.docx" for v in _VENDORS[:4]),
        ),
    ),
    "/Legal/Contracts/Signed": (
        (F,),
        "legal",
        tuple(f"Signed MSA {v}.pdf" for v in _VENDORS[:6]),
    ),
    "/Legal/NDAs": ((F, G), "legal", tuple(f"NDA {c}.pdf" for c in _COMPANIES)),
    "/Marketing": ((C,), "marketing", ("Marketing plan 2026.docx", "Press contacts.xlsx")),
    "/Marketing/Brand": (
        (C,),
        "marketing",
        ("Brand guidelines.pdf", "Logo usage.pdf", "Colour palette.pdf", "Tone of voice.md"),
    ),
    "/Marketing/Campaigns": (
        (C, G),
        "marketing",
        tuple(f"{s} campaign brief.docx" for s in ("Winter sale", "Webinar series", "Partner"))
        + tuple(f"{s} campaign results.xlsx" for s in ("Winter sale", "Webinar series")),
    ),
    "/Marketing/Campaigns/Spring 2026": (
        (C,),
        "marketing",
        (
            "Spring 2026 launch plan.docx",
            "Spring 2026 ad creatives.pptx",
            "Spring 2026 budget.xlsx",
            "Spring 2026 results.pdf",
            "Spring 2026 press release.md",
        ),
    ),
    "/Reports": ((G, H), "reports", ("Report template.docx", "KPI definitions.md")),
    "/Reports/2025": (
        (G, H),
        "reports",
        (
            "Annual report 2025.pdf",
            "Q4 2025 sales report.pdf",
            "Q4 2025 revenue.xlsx",
            "Sales report December 2025.pdf",
            "Customer churn 2025.csv",
        ),
    ),
    "/Reports/2026": ((G, H), "reports", ("Reporting calendar 2026.xlsx",)),
    **{
        f"/Reports/2026/Q{q}": (
            (G, H),
            "reports",
            (
                f"Q{q} 2026 sales report.pdf",
                f"Q{q} 2026 revenue.xlsx",
                f"Board deck Q{q} 2026.pptx",
                f"Customer churn Q{q} 2026.csv",
                *tuple(f"Sales report {_MONTHS[m]} 2026.pdf" for m in range(3 * q - 3, 3 * q)),
            ),
        )
        for q in (1, 2, 3)
    },
    "/Shared": ((A, B, C, D), "company", ("Office floor plan.pdf", "Lunch menu.txt")),
    "/Shared/Meeting notes": (
        (B, E, C, D, G),
        "meeting",
        tuple(
            f"Weekly sync {(FIRST_DAY + datetime.timedelta(days=7 * w)).isoformat()}.md"
            for w in range(0, 52, 2)
        ),
    ),
}

_SIZES = {  # type -> (smallest, largest) in bytes; drawn log-uniformly
    "pdf": (60 * KB, 12 * MB),
    "docx": (14 * KB, 3 * MB),
    "xlsx": (9 * KB, 8 * MB),
    "pptx": (700 * KB, 50 * MB),
    "md": (1 * KB, 24 * KB),
    "txt": (1 * KB, 12 * KB),
    "csv": (3 * KB, 30 * MB),
}

_AREA_SENTENCES: dict[str, tuple[str, ...]] = {
    "company": (
        "This folder holds what everyone in the company needs day to day.",
        "Ask in the #office channel if something here is out of date.",
        "The office is open from 8:00 to 19:00 on working days.",
        "Visitors sign in at the front desk and wear a badge.",
    ),
    "engineering": (
        "The service runs in two regions with automatic failover.",
        "Every change goes through code review and the CI pipeline before it ships.",
        "Latency targets are measured at the 95th percentile over a rolling week.",
        "Open questions are tracked in the engineering backlog with the label design.",
        "The on-call engineer owns alerts outside office hours.",
        "Dependencies are upgraded monthly; security fixes ship within two days.",
    ),
    "finance": (
        "Figures are in EUR unless a sheet says otherwise.",
        "Department heads review their lines before the monthly close.",
        "Forecasts are updated at the end of every quarter.",
        "Capital expenses above 10,000 EUR need approval from the finance director.",
        "Actuals come from the ledger export of the last working day of the month.",
    ),
    "invoice": (
        "Payment terms: 30 days from the invoice date.",
        "Please quote the invoice number with every payment.",
        "VAT is charged at the standard rate unless the reverse charge applies.",
        "Bank transfer details are printed at the bottom of the invoice.",
    ),
    "people": (
        "Questions about this document go to the people team.",
        "Managers walk new colleagues through it in their first week.",
        "The policy applies to every employee and contractor.",
        "Changes are announced in the monthly all-hands meeting.",
        "Where local law gives you more, local law applies.",
        "Your manager can answer most questions; the people team answers the rest.",
    ),
    "legal": (
        "This document is confidential and may not be shared outside the parties.",
        "Either party may request changes in writing.",
        "The governing law is the law of the Czech Republic.",
        "Signed copies are kept in the Signed folder.",
    ),
    "marketing": (
        "The campaign targets small and medium businesses in Europe.",
        "Creative assets follow the brand guidelines.",
        "Results are measured by sign-ups, qualified leads and cost per lead.",
        "Social posts go out on Tuesdays and Thursdays.",
    ),
    "reports": (
        "Revenue grew compared with the same period last year.",
        "Churn stayed below the target of two percent a month.",
        "The sales pipeline is strongest in Germany and the Nordics.",
        "All figures are unaudited until the annual report.",
        "Enterprise deals made up a larger share of new bookings.",
    ),
    "meeting": (
        "Attendees went through the open action items from last time.",
        "The release is on track; two bugs block the beta.",
        "Hiring: two interviews this week for the backend role.",
        "Action: update the roadmap slide before the board meeting.",
        "Next sync in two weeks, same time.",
    ),
}

# Long texts: sections of a heading and the fact a reader looks for, padded with the area's prose.
_LONG: dict[str, tuple[tuple[str, str], ...]] = {
    "Employee handbook.pdf": (
        ("Welcome", "This handbook describes how we work together and what you can expect."),
        ("Working hours", "Core hours are 10:00 to 15:00; the rest of the day is flexible."),
        ("Remote work", "You may work remotely up to three days a week, agreed with your manager."),
        ("Holidays", "Full-time employees receive 25 days of paid holiday a year."),
        ("Public holidays", "Public holidays of the country you work in are days off."),
        ("Sick leave", "Tell your manager before 10:00 on the first day you are ill."),
        ("Doctor's note", "From the fourth day of sickness a doctor's note is needed."),
        ("Parental leave", "Parents receive 16 weeks of paid parental leave."),
        ("Expenses", "Submit expenses within 30 days; over 500 EUR needs approval first."),
        ("Travel", "Book travel through the travel desk at least 14 days ahead."),
        ("Equipment", "Laptops are replaced every three years."),
        ("Security", "Lock your screen when you leave your desk."),
        ("Lost devices", "Report a lost laptop or phone to IT within one hour."),
        ("Training", "Every employee has a training budget of 1,500 EUR a year."),
        ("Performance reviews", "Reviews happen twice a year, in March and September."),
        ("Probation", "The probation period is three months."),
        ("Notice period", "After probation the notice period is two months for both sides."),
        ("Gifts", "Gifts from suppliers worth more than 50 EUR must be declared."),
        ("Wellbeing", "Everyone may use the employee assistance programme free of charge."),
        ("Leaving", "Return your equipment on your last working day."),
    ),
    "Incident response runbook.md": (
        ("Purpose", "This runbook says who does what when production is degraded."),
        ("Severity levels", "SEV1 means customers cannot use the product at all."),
        ("SEV2", "SEV2 means a major feature is broken for many customers."),
        ("SEV3 and SEV4", "SEV3 and SEV4 are handled in office hours."),
        ("Paging", "A SEV1 pages the on-call engineer and the incident commander."),
        ("First five minutes", "Acknowledge the page within five minutes."),
        ("Status page", "Post on the status page within 15 minutes of a SEV1."),
        ("Rollback", "Roll back the last deploy first if it went out in the last hour."),
        ("Escalation", "Escalate to the head of engineering after 30 minutes without a fix."),
        ("Customer updates", "Update affected customers every 30 minutes."),
        ("Closing", "The incident commander declares the incident resolved."),
        ("Postmortem", "Write the postmortem within five working days."),
    ),
    "Annual report 2025.pdf": (
        ("Letter from the CEO", "2025 was the year we doubled our enterprise customers."),
        ("Revenue", "Revenue for 2025 was 18.4 million EUR, up 31 percent."),
        ("First quarter", "Q1 2025 revenue was 4.0 million EUR."),
        ("Second quarter", "Q2 2025 revenue was 4.4 million EUR."),
        ("Third quarter", "Q3 2025 revenue was 4.7 million EUR."),
        ("Fourth quarter", "Q4 2025 revenue was 5.3 million EUR."),
        ("Customers", "We ended the year with 1,240 paying customers."),
        ("People", "Headcount grew from 96 to 128."),
        ("Markets", "Germany became our largest market after the Czech Republic."),
        ("Product", "We shipped single sign-on and the new reporting module."),
        ("Outlook", "For 2026 we plan revenue of 24 million EUR."),
    ),
    "Master services agreement Cobalt Cloud.docx": (
        ("Parties", "This agreement is between our company and Cobalt Cloud s.r.o."),
        ("Services", "Cobalt Cloud provides hosting as described in each order form."),
        ("Term", "The agreement runs for three years from 1 February 2026."),
        ("Fees", "Fees are set out in the order forms."),
        ("Payment terms", "Invoices are payable within 30 days of receipt."),
        ("Service levels", "Cobalt Cloud guarantees 99.9 percent monthly availability."),
        ("Service credits", "Each 0.1 percent below the guarantee earns a 5 percent credit."),
        ("Confidentiality", "Confidential information stays confidential for five years."),
        ("Data protection", "Personal data is processed under the data processing agreement."),
        ("Liability", "Liability is capped at the fees paid in the previous twelve months."),
        ("Termination", "Either party may terminate with 90 days written notice."),
        ("Governing law", "This agreement is governed by Czech law."),
    ),
    "Brand guidelines.pdf": (
        ("Our brand", "We sound clear, warm and direct."),
        ("Logo", "Keep clear space around the logo equal to the height of the letter o."),
        ("Logo misuse", "Never stretch, rotate or recolour the logo."),
        ("Colours", "The primary colour is Harbour Blue, #1F4E79."),
        ("Secondary colours", "Secondary colours are Sand #E8DCC4 and Coral #F26B5B."),
        ("Typography", "Headings use Inter Bold; body text uses Inter Regular at 16 px."),
        ("Photography", "Photos show real customers at work, in natural light."),
        ("Icons", "Icons are line icons, 2 px stroke, rounded corners."),
        ("Writing", "Write in plain English and use sentence case for headings."),
    ),
    "Privacy policy.md": (
        ("Who we are", "We are the controller of the personal data described here."),
        ("What we collect", "We collect account, billing and usage data."),
        ("Why", "We use the data to provide the service and to bill for it."),
        ("Retention", "Account data is deleted 90 days after the account is closed."),
        ("Sharing", "We share data only with the processors listed in the annex."),
        ("Your rights", "You may ask for a copy of your data at privacy@example.org."),
        ("Cookies", "We use only the cookies the service needs to work."),
    ),
}


def generate() -> Library:
    rng = random.Random(SEED)
    used: set[str] = set()
    documents: list[Document] = []
    for folder, (owners, area, names) in _TREE.items():
        for name in names:
            kind = name.rsplit(".", 1)[1]
            text = _text(rng, name, area)
            low, high = _SIZES[kind]
            if kind in ("md", "txt"):  # the text and its markup: links, tables, images
                size = min(high, max(low, int(len(text.encode()) * rng.uniform(1.0, 6.0))))
            else:  # log-uniform, and at least what the text takes
                size = int(low * (high / low) ** rng.random())
                size = max(size, len(text.encode()) * 3)
            documents.append(
                Document(
                    document_id=_new_id(rng, used),
                    name=name,
                    folder=folder,
                    type=kind,
                    size_bytes=size,
                    owner=rng.choice(owners),
                    modified_on=_modified(rng, name),
                    version=rng.choice((1, 1, 1, 2, 2, 3, 4, 5, 7)),
                    shares=_shares(rng, owners),
                    text=text,
                )
            )
    # The biggest file in the store: the spring campaign's ad creatives are a 48 MB deck.
    documents = [
        _resized(d, 48 * MB + 321 * KB) if d.name == "Spring 2026 ad creatives.pptx" else d
        for d in documents
    ]
    folders = sorted({f for d in _TREE for f in _ancestors(d)})
    return Library(PEOPLE, tuple(folders), tuple(documents))


def _resized(document: Document, size_bytes: int) -> Document:
    fields = {**document.__dict__, "size_bytes": size_bytes}
    return Document(**fields)


def _ancestors(folder: str) -> list[str]:
    found = [folder]
    while folder != "/":
        folder = parent(folder)
        found.append(folder)
    return found


_ID_LETTERS = "abcdefghjkmnpqrstuvwxyz"
_ID_DIGITS = "23456789"


def _new_id(rng: random.Random, used: set[str]) -> str:
    """doc_ and six letters and digits, at least one of each (never a counting run)."""
    while True:
        body = [rng.choice(_ID_LETTERS + _ID_DIGITS) for _ in range(6)]
        body[rng.randrange(6)] = rng.choice(_ID_DIGITS)
        body[rng.randrange(6)] = rng.choice(_ID_LETTERS)
        found = "doc_" + "".join(body)
        if found not in used:
            used.add(found)
            return found


def _modified(rng: random.Random, name: str) -> datetime.date:
    """A day in the year up to TODAY; near the end of the period a name's quarter or month names."""
    stem = name.rsplit(".", 1)[0]
    end: datetime.date | None = None
    for q in (1, 2, 3, 4):
        if f"Q{q} 2026" in stem:
            end = datetime.date(2026, 3 * q, 28) + datetime.timedelta(days=5)
        if f"Q{q} 2025" in stem or "2025" in stem.split():
            end = datetime.date(2026, 1, 10)
    for m, month in enumerate(_MONTHS, 1):
        if f"{month} 2026" in stem:
            end = datetime.date(2026, m, 28) + datetime.timedelta(days=6)
    if stem.startswith("Weekly sync "):
        day = FIRST_DAY
        while day.isoformat() not in stem:
            day += datetime.timedelta(days=1)
        return day + datetime.timedelta(days=rng.randrange(2))
    if end is not None:
        return min(TODAY, end - datetime.timedelta(days=rng.randrange(12)))
    return FIRST_DAY + datetime.timedelta(days=rng.randrange(365))


def _shares(rng: random.Random, owners: tuple[str, ...]) -> tuple[Share, ...]:
    others = [p.email for p in PEOPLE if p.email not in owners] + list(GUESTS)
    chosen = rng.sample(others, rng.choice((0, 0, 1, 1, 2, 3)))
    return tuple(Share(email, rng.choice(("viewer", "viewer", "editor"))) for email in chosen)


def _text(rng: random.Random, name: str, area: str) -> str:
    stem = name.rsplit(".", 1)[0]
    bank = _AREA_SENTENCES[area]
    sections = _LONG.get(name)
    if sections is None:
        paragraphs = [
            " ".join(rng.sample(bank, min(len(bank), rng.randint(2, 4))))
            for _ in range(rng.randint(1, 4))
        ]
        return f"{stem}\n\n" + "\n\n".join(paragraphs)
    out = [stem]
    for number, (heading, fact) in enumerate(sections, 1):
        padding = [" ".join(rng.sample(bank, min(len(bank), rng.randint(3, 4)))) for _ in range(4)]
        out.append(f"{number}. {heading}\n{fact} " + "\n\n".join(padding))
    return "\n\n".join(out)


__all__ = [
    "FIRST_DAY",
    "GUESTS",
    "KB",
    "MB",
    "PART_CHARS",
    "PEOPLE",
    "ROLES",
    "TODAY",
    "TYPES",
    "Document",
    "Library",
    "Person",
    "Share",
    "generate",
    "join",
    "parent",
    "parts",
    "searchable",
    "size_label",
    "within",
]
