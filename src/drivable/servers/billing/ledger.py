"""The billing ledger: business tables in the effect store's own database.

Invoices, lines, payments and refunds live in the same database as the idempotency receipts and
the spent confirm tokens (SQLite by default, PostgreSQL with `--store postgresql://...`), so a
refund, its receipt and its spent token commit in one transaction. Every statement goes through
`drivable.effects.Transaction` (`?` placeholders on both databases).

The store URL comes from the argument, else `DRIVABLE_STORE` (what `drivable serve --store` sets, so
the flag wins), else `DRIVABLE_BILLING_STORE`, else a SQLite file in the user's cache directory. The tables are
created and the generated data loaded on first use, once, whichever process gets there first.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from drivable import settings
from drivable.contract.paging import Pager
from drivable.effects import Transaction, open_store
from drivable.effects.seeded import SeededData
from drivable.servers.billing.data import DATA_VERSION, Dataset, folded, generate
from drivable.servers.billing.models import CURSOR_LIFETIME_S

_SEED_LOCK = 0x62696C6C  # "bill": the advisory lock that lets one process load the data

SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS billing_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS billing_customers (
        customer_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
        country TEXT NOT NULL, currency TEXT NOT NULL, folded_name TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS billing_invoices (
        invoice_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, currency TEXT NOT NULL,
        state TEXT NOT NULL, issued_on TEXT NOT NULL, due_on TEXT NOT NULL, memo TEXT,
        total_cents BIGINT NOT NULL, paid_cents BIGINT NOT NULL, refunded_cents BIGINT NOT NULL,
        version INTEGER NOT NULL, void_reason TEXT)""",
    "CREATE INDEX IF NOT EXISTS billing_invoices_customer ON billing_invoices (customer_id)",
    "CREATE INDEX IF NOT EXISTS billing_invoices_issued ON billing_invoices (issued_on)",
    """CREATE TABLE IF NOT EXISTS billing_lines (
        invoice_id TEXT NOT NULL, position INTEGER NOT NULL, description TEXT NOT NULL,
        quantity INTEGER NOT NULL, unit_cents BIGINT NOT NULL, amount_cents BIGINT NOT NULL,
        PRIMARY KEY (invoice_id, position))""",
    """CREATE TABLE IF NOT EXISTS billing_payments (
        payment_id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents BIGINT NOT NULL,
        paid_on TEXT NOT NULL, method TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS billing_payments_invoice ON billing_payments (invoice_id)",
    """CREATE TABLE IF NOT EXISTS billing_refunds (
        refund_id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents BIGINT NOT NULL,
        reason TEXT NOT NULL, refunded_on TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS billing_refunds_invoice ON billing_refunds (invoice_id)",
)

INVOICE_COLUMNS = (
    "i.invoice_id, i.customer_id, c.name, i.currency, i.state, i.issued_on, i.due_on, i.memo, "
    "i.total_cents, i.paid_cents, i.refunded_cents, i.version"
)


def default_url() -> str:
    configured = settings.from_environment("store") or settings.BILLING_STORE.get()
    if configured:
        return configured
    return f"sqlite:///{settings.user_cache() / 'drivable' / 'billing.sqlite'}"


@dataclass(frozen=True)
class InvoiceRecord:
    invoice_id: str
    customer_id: str
    customer_name: str
    currency: str
    state: str
    issued_on: str
    due_on: str
    memo: str | None
    total_cents: int
    paid_cents: int
    refunded_cents: int
    version: int

    @property
    def refundable_cents(self) -> int:
        return self.paid_cents - self.refunded_cents

    @property
    def balance_due_cents(self) -> int:
        return 0 if self.state == "void" else max(0, self.total_cents - self.paid_cents)

    @classmethod
    def of(cls, row: Sequence[Any]) -> InvoiceRecord:
        return cls(
            str(row[0]),
            str(row[1]),
            str(row[2]),
            str(row[3]),
            str(row[4]),
            str(row[5]),
            str(row[6]),
            row[7],
            int(row[8]),
            int(row[9]),
            int(row[10]),
            int(row[11]),
        )


@dataclass(frozen=True)
class Filters:
    customer_id: str | None = None
    state: str | None = None
    currency: str | None = None
    date_from: str | None = None
    date_to: str | None = None

    def active(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @staticmethod
    def column(name: str) -> str:
        """The invoice column a filter reads (both date bounds read the issue date)."""
        return "issued_on" if name in ("date_from", "date_to") else name

    def where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for name, value in self.active().items():
            if name == "date_from":
                clauses.append("i.issued_on >= ?")
            elif name == "date_to":
                clauses.append("i.issued_on <= ?")
            else:
                clauses.append(f"i.{name} = ?")  # names are this dataclass's own fields
            params.append(value)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


class Ledger(SeededData):
    """The billing data in one store; `prepare()` before serving (creates and loads once)."""

    schema = SCHEMA
    meta_table = "billing_meta"
    seed_lock = _SEED_LOCK
    data_version = DATA_VERSION

    def __init__(
        self, url: str | None = None, *, customers: int = 120, invoices: int = 1200
    ) -> None:
        self.url = url or default_url()
        super().__init__(open_store(self.url))
        self._size = (customers, invoices)

    @functools.cached_property
    def pager(self) -> Pager:
        """The cursors of the paged tools, signed with the store's shared secret."""
        if not self.secret:
            raise RuntimeError("prepare the ledger before paging through it")
        return Pager(secret=self.secret, lifetime_s=CURSOR_LIFETIME_S)

    # -- setting up ------------------------------------------------------------------------

    async def load(self, tx: Transaction) -> None:
        await _load(tx, generate(*self._size))

    # -- reading ---------------------------------------------------------------------------

    async def invoice(self, tx: Transaction, invoice_id: str) -> InvoiceRecord | None:
        row = (
            await tx.execute(
                f"SELECT {INVOICE_COLUMNS} FROM billing_invoices i "
                "JOIN billing_customers c ON c.customer_id = i.customer_id "
                "WHERE i.invoice_id = ?",
                (invoice_id,),
            )
        ).first()
        return InvoiceRecord.of(row) if row is not None else None

    async def find(
        self, tx: Transaction, filters: Filters, offset: int, limit: int
    ) -> tuple[list[InvoiceRecord], int]:
        where, params = filters.where()
        rows = await tx.execute(
            f"SELECT {INVOICE_COLUMNS} FROM billing_invoices i "
            f"JOIN billing_customers c ON c.customer_id = i.customer_id{where} "
            "ORDER BY i.issued_on DESC, i.invoice_id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        total = await self.count(tx, filters)
        return [InvoiceRecord.of(r) for r in rows.rows], total

    async def count(self, tx: Transaction, filters: Filters) -> int:
        where, params = filters.where()
        got = (await tx.execute(f"SELECT COUNT(*) FROM billing_invoices i{where}", params)).first()
        return int(got[0]) if got else 0

    async def values(self, tx: Transaction, filters: Filters, name: str) -> list[tuple[str, int]]:
        """Each value of filter `name`'s column among the invoices `filters` keep, with how many
        have it (what an empty page names as the values that would have matched)."""
        if name not in Filters.__dataclass_fields__:
            raise ValueError(f"no filter {name!r}")
        column = f"i.{Filters.column(name)}"  # a dataclass field's own column, never input
        where, params = filters.where()
        rows = await tx.execute(
            f"SELECT {column}, COUNT(*) FROM billing_invoices i{where} GROUP BY {column}", params
        )
        return [(str(r[0]), int(r[1])) for r in rows.rows]

    async def lines(self, tx: Transaction, invoice_ids: Sequence[str]) -> dict[str, list[Any]]:
        if not invoice_ids:
            return {}
        marks = ", ".join("?" for _ in invoice_ids)
        rows = await tx.execute(
            "SELECT invoice_id, position, description, quantity, unit_cents, amount_cents "
            f"FROM billing_lines WHERE invoice_id IN ({marks}) ORDER BY invoice_id, position",
            list(invoice_ids),
        )
        out: dict[str, list[Any]] = {}
        for row in rows.rows:
            out.setdefault(str(row[0]), []).append(row[1:])
        return out

    async def payments(self, tx: Transaction, invoice_id: str) -> list[tuple[Any, ...]]:
        rows = await tx.execute(
            "SELECT payment_id, amount_cents, paid_on, method FROM billing_payments "
            "WHERE invoice_id = ? ORDER BY paid_on, payment_id",
            (invoice_id,),
        )
        return rows.rows

    async def refunds(self, tx: Transaction, invoice_id: str) -> list[tuple[Any, ...]]:
        rows = await tx.execute(
            "SELECT refund_id, amount_cents, reason, refunded_on FROM billing_refunds "
            "WHERE invoice_id = ? ORDER BY refunded_on, refund_id",
            (invoice_id,),
        )
        return rows.rows

    async def customer(self, tx: Transaction, customer_id: str) -> tuple[Any, ...] | None:
        return (
            await tx.execute(
                "SELECT customer_id, name, email, country, currency FROM billing_customers "
                "WHERE customer_id = ?",
                (customer_id,),
            )
        ).first()

    async def customers(
        self, tx: Transaction, name: str | None, offset: int, limit: int
    ) -> list[tuple[Any, ...]]:
        where, params = "", []
        if name:
            # Part of the name, any case, with or without accents; % and _ are literal.
            pattern = folded(name).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where, params = " WHERE folded_name LIKE ? ESCAPE '\\'", [f"%{pattern}%"]
        rows = await tx.execute(
            "SELECT customer_id, name, email, country, currency FROM billing_customers"
            f"{where} ORDER BY customer_id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return rows.rows

    async def invoice_ids(self, tx: Transaction, prefix: str, limit: int = 50) -> list[str]:
        """Invoice ids starting with `prefix` (completion), in order."""
        rows = await tx.execute(
            "SELECT invoice_id FROM billing_invoices WHERE substr(invoice_id, 1, ?) = ? "
            "ORDER BY invoice_id LIMIT ?",
            (len(prefix), prefix, limit),
        )
        return [str(r[0]) for r in rows.rows]

    async def close(self) -> None:
        await self.store.close()


async def _load(tx: Transaction, data: Dataset) -> None:
    await _insert_many(
        tx,
        "billing_customers (customer_id, name, email, country, currency, folded_name)",
        [
            (c.customer_id, c.name, c.email, c.country, c.currency, folded(c.name))
            for c in data.customers
        ],
    )
    await _insert_many(
        tx,
        "billing_invoices (invoice_id, customer_id, currency, state, issued_on, due_on, memo, "
        "total_cents, paid_cents, refunded_cents, version)",
        [
            (
                i.invoice_id,
                i.customer_id,
                i.currency,
                i.state,
                i.issued_on,
                i.due_on,
                i.memo,
                i.total_cents,
                i.paid_cents,
                i.refunded_cents,
                1,
            )
            for i in data.invoices
        ],
    )
    await _insert_many(
        tx,
        "billing_lines (invoice_id, position, description, quantity, unit_cents, amount_cents)",
        [
            (i.invoice_id, li.position, li.description, li.quantity, li.unit_cents, li.amount_cents)
            for i in data.invoices
            for li in i.lines
        ],
    )
    await _insert_many(
        tx,
        "billing_payments (payment_id, invoice_id, amount_cents, paid_on, method)",
        [
            (p.payment_id, i.invoice_id, p.amount_cents, p.paid_on, p.method)
            for i in data.invoices
            for p in i.payments
        ],
    )
    await _insert_many(
        tx,
        "billing_refunds (refund_id, invoice_id, amount_cents, reason, refunded_on)",
        [
            (r.refund_id, i.invoice_id, r.amount_cents, r.reason, r.refunded_on)
            for i in data.invoices
            for r in i.refunds
        ],
    )


async def _insert_many(tx: Transaction, target: str, rows: list[tuple[Any, ...]]) -> None:
    """Multi-row INSERTs (a few hundred rows a statement: one round trip each)."""
    if not rows:
        return
    width = len(rows[0])
    batch = max(1, 900 // width)  # stays under SQLite's bound-parameter limit
    one = "(" + ", ".join("?" for _ in range(width)) + ")"
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        await tx.execute(
            f"INSERT INTO {target} VALUES {', '.join(one for _ in chunk)}",
            [value for row in chunk for value in row],
        )
