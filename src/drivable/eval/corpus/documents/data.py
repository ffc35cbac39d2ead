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

from drivable.eval.corpus.documents.texts import AREA_SENTENCES, LONG
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
    bank = AREA_SENTENCES[area]
    sections = LONG.get(name)
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
