"""Generated billing data: customers, invoices with lines, payments and refunds.

Deterministic (one seeded `random.Random`): the same `DATA_VERSION` and size always give the same
rows, so tests, docs and benchmarks can name them. Money is in integer minor units of an ISO 4217
currency (every currency here has two minor digits); dates are ISO calendar dates.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field

from drivable.kinds.money import major
from drivable.kinds.text_folding import bare

DATA_VERSION = "billing-1"
SEED = 2026_002

CURRENCIES = ("CZK", "EUR", "GBP", "USD")

INVOICE_STATES = ("open", "paid", "partially_refunded", "refunded", "void")
REFUND_REASONS = ("requested_by_customer", "duplicate", "failed_delivery", "disputed")

COUNTRIES = {  # country -> currency
    "CZ": "CZK",
    "SK": "EUR",
    "DE": "EUR",
    "AT": "EUR",
    "NL": "EUR",
    "FR": "EUR",
    "GB": "GBP",
    "US": "USD",
}

_FIRST = (
    "Novák", "Svoboda", "Dvořák", "Černý", "Procházka", "Kučera", "Veselý", "Horák",
    "Müller", "Schmidt", "Weber", "Fischer", "Dubois", "Martin", "de Vries", "Smith",
    "Jones", "Taylor", "Brown", "Wilson", "Baker", "Moreau", "Bauer", "Wagner",
)  # fmt: skip
_KIND = (
    "Consulting", "Logistics", "Print", "Software", "Studio", "Trading", "Engineering",
    "Foods", "Legal", "Design", "Analytics", "Systems", "Media", "Energy",
)  # fmt: skip
_FORM = {
    "CZ": "s.r.o.", "SK": "s.r.o.", "DE": "GmbH", "AT": "GmbH", "NL": "B.V.", "FR": "SAS",
    "GB": "Ltd", "US": "LLC",
}  # fmt: skip
_CATALOG = (
    ("Support plan, monthly", 4_900),
    ("Consulting hour", 12_000),
    ("Software licence, seat", 2_500),
    ("Onboarding workshop", 85_000),
    ("Hosting, monthly", 1_990),
    ("Data migration", 150_000),
    ("Printed brochures, 100 pcs", 7_500),
    ("Travel expenses", 23_000),
    ("Translation, page", 1_800),
    ("Security audit", 240_000),
    ("Training day", 64_000),
    ("Hardware token", 3_900),
)
_METHODS = ("card", "bank_transfer", "sepa_debit")

START = datetime.date(2025, 1, 6)
END = datetime.date(2026, 11, 20)
FIRST_CUSTOMER = 1001
FIRST_INVOICE = 30001


@dataclass(frozen=True)
class Customer:
    customer_id: str
    name: str
    email: str
    country: str
    currency: str


@dataclass(frozen=True)
class Line:
    position: int
    description: str
    quantity: int
    unit_cents: int

    @property
    def amount_cents(self) -> int:
        return self.quantity * self.unit_cents


@dataclass(frozen=True)
class Payment:
    payment_id: str
    amount_cents: int
    paid_on: str
    method: str


@dataclass(frozen=True)
class Refund:
    refund_id: str
    amount_cents: int
    reason: str
    refunded_on: str


@dataclass
class Invoice:
    invoice_id: str
    customer_id: str
    currency: str
    state: str
    issued_on: str
    due_on: str
    memo: str | None
    lines: list[Line]
    payments: list[Payment] = field(default_factory=list)
    refunds: list[Refund] = field(default_factory=list)

    @property
    def total_cents(self) -> int:
        return sum(line.amount_cents for line in self.lines)

    @property
    def paid_cents(self) -> int:
        return sum(p.amount_cents for p in self.payments)

    @property
    def refunded_cents(self) -> int:
        return sum(r.amount_cents for r in self.refunds)


@dataclass(frozen=True)
class Dataset:
    customers: list[Customer]
    invoices: list[Invoice]


def folded(text: str) -> str:
    """Text as name search compares it: accents dropped, case folded ('Černý' -> 'cerny')."""
    return bare(text)


def money(cents: int, currency: str) -> str:
    """(4200, 'EUR') -> '42.00 EUR': ISO code after the amount, a dot, no grouping (locale-free).

    Written by the money kind, which takes each currency's exponent from CLDR."""
    return major(cents, currency)


def generate(customers: int = 120, invoices: int = 1200) -> Dataset:
    rng = random.Random(SEED)
    people: list[Customer] = []
    for i in range(customers):
        country = rng.choice(list(COUNTRIES))
        name = f"{rng.choice(_FIRST)} {rng.choice(_KIND)} {_FORM[country]}"
        slug = "".join(c for c in bare(name.split()[0]) if c.isascii() and c.isalpha()) or "co"
        cid = f"cus_{FIRST_CUSTOMER + i}"
        people.append(
            Customer(cid, name, f"billing@{slug}{i}.example", country, COUNTRIES[country])
        )
    span = (END - START).days
    bills: list[Invoice] = []
    for i in range(invoices):
        who = people[rng.randrange(len(people))]
        issued = START + datetime.timedelta(days=rng.randrange(span))
        due = issued + datetime.timedelta(days=rng.choice((14, 14, 30)))
        lines = []
        for position in range(1, rng.randint(1, 5) + 1):
            description, price = rng.choice(_CATALOG)
            scale = 25 if who.currency == "CZK" else 1  # prices in CZK are ~25x the euro figure
            lines.append(Line(position, description, rng.randint(1, 6), price * scale))
        invoice = Invoice(
            invoice_id=f"inv_{FIRST_INVOICE + i}",
            customer_id=who.customer_id,
            currency=who.currency,
            state="open",
            issued_on=issued.isoformat(),
            due_on=due.isoformat(),
            memo=rng.choice((None, None, f"PO {rng.randint(1000, 9999)}", "Thank you!")),
            lines=lines,
        )
        roll = rng.random()
        if roll < 0.25 or due >= END:
            pass  # open: issued, not paid yet
        elif roll < 0.33:
            invoice.state = "void"
        else:
            paid_on = issued + datetime.timedelta(days=rng.randint(1, 20))
            invoice.payments.append(
                Payment(
                    f"pay_{FIRST_INVOICE + i}",
                    invoice.total_cents,
                    paid_on.isoformat(),
                    rng.choice(_METHODS),
                )
            )
            invoice.state = "paid"
            if roll > 0.92:
                refunded_on = (paid_on + datetime.timedelta(days=rng.randint(1, 30))).isoformat()
                part = invoice.total_cents if roll > 0.97 else invoice.total_cents // 4
                invoice.refunds.append(
                    Refund(
                        f"rf_{FIRST_INVOICE + i}",
                        part,
                        rng.choice(REFUND_REASONS),
                        refunded_on,
                    )
                )
                invoice.state = "refunded" if part == invoice.total_cents else "partially_refunded"
        bills.append(invoice)
    return Dataset(people, bills)
