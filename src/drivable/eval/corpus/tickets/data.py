"""The tracker's data: four projects, twelve people, 300 tickets with comments, generated.

Deterministic (one seeded `random.Random`): the same `DATA_VERSION` always gives the same rows, so
the workflows, the tests and both servers (the drivable one and its naive twin) name the same
tickets. Times are UTC, to the minute, between `START` and the tracker's fixed today, `TODAY`.
Plain data only: nothing here reads a caller's value.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field

DATA_VERSION = "tickets-1"
SEED = 2026_038

# The tracker's clock: the data is "now" on this day, whenever the server runs.
TODAY = datetime.date(2026, 11, 16)
START = datetime.date(2026, 7, 1)

STATUSES = ("open", "in_progress", "in_review", "closed")
PRIORITIES = ("urgent", "high", "normal", "low")
LABELS = (
    "bug",
    "feature",
    "ui",
    "backend",
    "performance",
    "security",
    "docs",
    "crash",
    "regression",
    "customer",
    "tech-debt",
)


@dataclass(frozen=True)
class Project:
    key: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Person:
    email: str
    name: str

    @property
    def first_name(self) -> str:
        return self.name.split()[0]


@dataclass(frozen=True)
class Comment:
    comment_id: str
    ticket_id: str
    author: str  # an email
    body: str
    created_at: str


@dataclass
class Ticket:
    ticket_id: str
    project: str
    number: int
    title: str
    description: str
    status: str
    priority: str
    assignee: str | None  # an email
    reporter: str  # an email
    labels: tuple[str, ...]
    created_at: str
    updated_at: str
    version: int
    comments: list[Comment] = field(default_factory=list)


@dataclass(frozen=True)
class Dataset:
    projects: tuple[Project, ...]
    people: tuple[Person, ...]
    tickets: tuple[Ticket, ...]

    def person(self, email: str | None) -> Person | None:
        return next((p for p in (*self.people, API_USER) if p.email == email), None)


PROJECTS = (
    Project("MOB", "Mobile App", ("mobile", "mobile application")),
    Project("WEB", "Web Shop", ("webshop", "e-shop", "eshop", "shop", "website")),
    Project("API", "Public API", ()),
    Project("OPS", "Infrastructure", ("infra", "ops", "devops", "operations")),
)

PEOPLE = (
    Person("jana.novakova@example.com", "Jana Nováková"),
    Person("petr.dvorak@example.com", "Petr Dvořák"),
    Person("tomas.cerny@example.com", "Tomáš Černý"),
    Person("tomas.kucera@example.com", "Tomáš Kučera"),
    Person("lucie.prochazkova@example.com", "Lucie Procházková"),
    Person("martin.horak@example.com", "Martin Horák"),
    Person("zuzana.simkova@example.com", "Zuzana Šimková"),
    Person("juergen.weiss@example.com", "Jürgen Weiß"),
    Person("anna.mueller@example.com", "Anna Müller"),
    Person("ondrej.vesely@example.com", "Ondřej Veselý"),
    Person("eva.kralova@example.com", "Eva Králová"),
    Person("lukas.pokorny@example.com", "Lukáš Pokorný"),
)

# Who the tracker's API acts as: the author of every ticket and comment made through a tool.
API_USER = Person("assistant@example.com", "Assistant")

NAMES = {p.email: p.name for p in (*PEOPLE, API_USER)}

_TEAMS = {
    "MOB": ("tomas.cerny", "lucie.prochazkova", "ondrej.vesely", "zuzana.simkova"),
    "WEB": ("jana.novakova", "tomas.kucera", "anna.mueller", "eva.kralova"),
    "API": ("petr.dvorak", "juergen.weiss", "jana.novakova", "lukas.pokorny"),
    "OPS": ("martin.horak", "lukas.pokorny", "petr.dvorak"),
}
_SIZES = {"MOB": 90, "WEB": 80, "API": 70, "OPS": 60}

# (title template, labels every such ticket has, how likely it is urgent or high)
_TEMPLATES: dict[str, tuple[tuple[str, tuple[str, ...], float], ...]] = {
    "MOB": (
        ("Crash when opening {screen} on {platform}", ("bug", "crash"), 0.7),
        ("{screen} screen freezes after rotating the device", ("bug", "ui"), 0.4),
        ("Push notifications arrive twice on {platform}", ("bug",), 0.3),
        ("Add dark mode to {screen}", ("feature", "ui"), 0.1),
        ("Login with Apple ID fails after update", ("bug",), 0.6),
        ("Offline mode loses unsaved {thing}", ("bug",), 0.5),
        ("Battery drain while syncing {thing}", ("performance",), 0.3),
        ("Button labels cut off in Czech translation on {screen}", ("bug", "ui"), 0.1),
        ("Support biometric login on {platform}", ("feature", "security"), 0.2),
        ("Slow start-up on older {platform} devices", ("performance",), 0.3),
        ("Deep links to {screen} open the home screen", ("bug",), 0.3),
        ("Add share button to {screen}", ("feature", "ui"), 0.1),
        ("Store screenshots for release 4.{minor}", ("docs",), 0.1),
        ("Token refresh logs users out on {platform}", ("bug", "security"), 0.6),
        ("Upgrade the navigation library", ("tech-debt",), 0.1),
    ),
    "WEB": (
        ("Checkout button does nothing in {browser}", ("bug", "ui"), 0.7),
        ("Product images load slowly on the {page} page", ("performance",), 0.3),
        ("Cookie banner covers the {page} page footer", ("bug", "ui"), 0.2),
        ("Add filter by {attribute} to the category page", ("feature", "ui"), 0.1),
        ("Wrong VAT shown for {nation} customers", ("bug", "backend"), 0.6),
        ("Password reset e-mail not delivered to {domain} addresses", ("bug", "backend"), 0.5),
        ("Search returns no results for words with diacritics", ("bug", "backend"), 0.4),
        ("Cart total not updated after removing an item", ("bug", "ui"), 0.4),
        ("Translate the {page} page to {language}", ("feature",), 0.1),
        ("Broken link to the terms on the {page} page", ("bug",), 0.1),
        ("Improve the Lighthouse score of the {page} page", ("performance",), 0.1),
        ("Discount code {code} applied twice", ("bug", "backend"), 0.5),
        ("Script injection in the product review form", ("bug", "security"), 0.9),
        ("Sort by price ignores sale prices", ("bug",), 0.3),
    ),
    "API": (
        ("GET /v2/{resource} returns 500 when {param} is empty", ("bug", "backend"), 0.6),
        ("Rate limit headers missing on /v2/{resource}", ("bug", "backend"), 0.2),
        ("Document paging of /v2/{resource}", ("docs",), 0.1),
        ("Add a webhook for {event}", ("feature", "backend"), 0.2),
        ("OAuth token expires too early", ("bug", "security"), 0.5),
        ("Slow response on /v2/{resource} with large pages", ("performance", "backend"), 0.4),
        ("Deprecate /v1/{resource}", ("tech-debt",), 0.1),
        ("Wrong time zone in {resource} timestamps", ("bug", "backend"), 0.3),
        ("POST /v2/{resource} accepts a reused idempotency key", ("bug", "backend"), 0.5),
        ("OpenAPI spec out of date for /v2/{resource}", ("docs",), 0.1),
        ("CORS preflight fails for /v2/{resource}", ("bug",), 0.4),
    ),
    "OPS": (
        ("Disk almost full on {host}", ("backend",), 0.7),
        ("Renew the TLS certificate for {site}", ("security",), 0.6),
        ("Upgrade PostgreSQL on {host} to 17", ("tech-debt", "backend"), 0.2),
        ("Nightly backup of {host} failed", ("backend",), 0.7),
        ("Tune the {metric} alerts", ("tech-debt",), 0.1),
        ("Move {service} to the new Kubernetes cluster", ("backend",), 0.2),
        ("CI pipeline for {service} takes over 30 minutes", ("performance",), 0.2),
        ("Rotate the secrets of {service}", ("security",), 0.4),
        ("Monitor the queue length of {service}", ("backend",), 0.2),
        ("VPN access for a new colleague", (), 0.1),
        ("Staging out of sync with production", ("backend",), 0.3),
        ("Log retention of {service} too long", ("security",), 0.3),
    ),
}
_SLOTS: dict[str, tuple[str, ...]] = {
    "screen": ("Settings", "Profile", "Orders", "Cart", "Search", "Checkout", "Home"),
    "platform": ("Android 15", "Android 14", "iOS 18", "iOS 17", "iPadOS 18"),
    "thing": ("drafts", "photos", "orders", "notes"),
    "minor": ("12", "13", "14"),
    "browser": ("Safari", "Firefox", "Chrome on Android", "Edge"),
    "page": ("product", "category", "cart", "account", "home"),
    "attribute": ("colour", "size", "brand", "price"),
    "nation": ("Slovak", "German", "Austrian", "Polish"),
    "domain": ("seznam.cz", "gmail.com", "outlook.com"),
    "language": ("German", "Slovak", "Polish"),
    "code": ("AUTUMN25", "WELCOME10", "BLACKFRIDAY"),
    "resource": ("orders", "customers", "invoices", "products", "shipments", "refunds"),
    "param": ("cursor", "status", "date_from", "customer_id"),
    "event": ("order.paid", "order.shipped", "refund.created", "customer.updated"),
    "host": ("db-01", "db-02", "web-03", "build-01", "cache-01"),
    "site": ("shop.example.com", "api.example.com", "status.example.com"),
    "metric": ("CPU", "memory", "latency", "error rate"),
    "service": ("checkout", "search", "notifications", "payments", "mobile-backend"),
}
_BUG_TEXT = (
    "Steps: {step}. Expected it to work as before; it does not. Seen on build {build}.",
    "Reported by a customer through support. {step}, then it happens every time.",
    "Happens about one time in five. {step}. No error in the logs we checked.",
)
_OTHER_TEXT = (
    "We want this before the end of the quarter. Details in the planning notes.",
    "Small change, but customers have asked for it more than once.",
    "Needed for the next release; see the roadmap.",
)
_STEPS = (
    "Sign in, open the page, wait ten seconds",
    "Add two items, remove one",
    "Switch the language to Czech and reload",
    "Turn on airplane mode and back off",
    "Call the endpoint with the example request from the docs",
)
_COMMENTS = (
    "Reproduced on build {build}.",
    "Could be related to {other}.",
    "Fix is in review: PR #{pr}.",
    "A customer reports it again today.",
    "Moved to the next sprint.",
    "Works for me; can you attach the logs?",
    "Deployed to staging, please verify.",
    "I will take a look this week.",
)
_CLOSING = ("Verified on production, closing.", "Duplicate of an older ticket, closing.")


def _stamp(day: datetime.date, minute: int) -> str:
    when = datetime.datetime.combine(day, datetime.time()) + datetime.timedelta(minutes=minute)
    return when.strftime("%Y-%m-%dT%H:%M:00Z")


def now_stamp() -> str:
    """The tracker's "now": TODAY at the current UTC time of day, to the minute."""
    clock = datetime.datetime.now(datetime.UTC)
    return _stamp(TODAY, clock.hour * 60 + clock.minute)


def _working_minute(rng: random.Random) -> int:
    return rng.randint(7 * 60, 18 * 60)


def _email(handle: str) -> str:
    return f"{handle}@example.com"


def _fill(template: str, rng: random.Random) -> str:
    out = template
    for slot, choices in _SLOTS.items():
        token = "{" + slot + "}"
        if token in out:
            out = out.replace(token, rng.choice(choices))
    return out


def _priority(rng: random.Random, pressing: float) -> str:
    roll = rng.random()
    if roll < pressing * 0.3:
        return "urgent"
    if roll < pressing:
        return "high"
    return "normal" if rng.random() < 0.7 else "low"


def _status(rng: random.Random, age_days: int) -> str:
    roll = rng.random()
    if age_days > 60:
        return "closed" if roll < 0.6 else ("open" if roll < 0.8 else "in_progress")
    if roll < 0.4:
        return "open"
    if roll < 0.65:
        return "in_progress"
    return "in_review" if roll < 0.8 else "closed"


def _ticket(
    rng: random.Random, project: str, number: int, ids: list[str], created_day: datetime.date
) -> Ticket:
    template, labels, pressing = rng.choice(_TEMPLATES[project])
    title = _fill(template, rng)
    age = (TODAY - created_day).days
    status = _status(rng, age)
    team = _TEAMS[project]
    assignee = None if status == "open" and rng.random() < 0.3 else _email(rng.choice(team))
    reporter = rng.choice(PEOPLE).email
    extra = [label for label in ("customer", "regression") if rng.random() < 0.12]
    if "bug" not in labels and "regression" in extra:
        extra.remove("regression")
    build = f"4.{rng.randint(9, 14)}.{rng.randint(0, 9)}"
    text = _BUG_TEXT if "bug" in labels else _OTHER_TEXT
    description = rng.choice(text).format(step=rng.choice(_STEPS), build=build)
    ticket_id = f"{project}-{number}"
    created_at = _stamp(created_day, _working_minute(rng))
    ticket = Ticket(
        ticket_id=ticket_id,
        project=project,
        number=number,
        title=title,
        description=description,
        status=status,
        priority=_priority(rng, pressing),
        assignee=assignee,
        reporter=reporter,
        labels=tuple(sorted({*labels, *extra}, key=LABELS.index)),
        created_at=created_at,
        updated_at=created_at,
        version=1,
    )
    day = created_day
    for i in range(rng.choice((0, 0, 1, 1, 2, 3, 4))):
        day = min(TODAY, day + datetime.timedelta(days=rng.randint(0, 12)))
        body = rng.choice(_COMMENTS).format(
            build=build,
            other=rng.choice(ids) if ids else "an older ticket",
            pr=rng.randint(100, 999),
        )
        author = _email(rng.choice(team))
        ticket.comments.append(
            Comment(
                f"{ticket_id}#c{i + 1}", ticket_id, author, body, _stamp(day, _working_minute(rng))
            )
        )
    if status == "closed":
        day = min(TODAY, day + datetime.timedelta(days=rng.randint(0, 10)))
        closer = ticket.assignee or _email(team[0])
        ticket.comments.append(
            Comment(
                f"{ticket_id}#c{len(ticket.comments) + 1}",
                ticket_id,
                closer,
                rng.choice(_CLOSING),
                _stamp(day, _working_minute(rng)),
            )
        )
    changed = max(
        [ticket.created_at, *(c.created_at for c in ticket.comments)],
    )
    if status != "open" or rng.random() < 0.3:
        later = min(TODAY, day + datetime.timedelta(days=rng.randint(0, 5)))
        changed = max(changed, _stamp(later, _working_minute(rng)))
    ticket.updated_at = changed
    ticket.version = 1 + (status != "open") + rng.randint(0, 3)
    return ticket


def generate() -> Dataset:
    """The tracker's data, the same on every call."""
    rng = random.Random(SEED)
    span = (TODAY - START).days + 1
    tickets: list[Ticket] = []
    for project in PROJECTS:
        ids: list[str] = []
        # numbers count up with the day a ticket was created, as a tracker issues them
        days = sorted(
            START + datetime.timedelta(days=rng.randrange(span)) for _ in range(_SIZES[project.key])
        )
        for number, day in enumerate(days, 1):
            ticket = _ticket(rng, project.key, number, ids, day)
            ids.append(ticket.ticket_id)
            tickets.append(ticket)
    return Dataset(PROJECTS, PEOPLE, tuple(tickets))


__all__ = [
    "API_USER",
    "DATA_VERSION",
    "LABELS",
    "NAMES",
    "PEOPLE",
    "PRIORITIES",
    "PROJECTS",
    "STATUSES",
    "TODAY",
    "Comment",
    "Dataset",
    "Person",
    "Project",
    "Ticket",
    "generate",
    "now_stamp",
]
