"""How the campaign drives each server: its profile (how it is served, its liveness call, a load
mix of valid calls, its store) and the legs it is fuzzed on (store, protocol era, transport)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivable import settings
from drivable.reliability import probe
from drivable.reliability.access import READER_TOKEN
from drivable.reliability.processes import PROBE_TARGET, PROBE_VERIFIER

# A token the campaign's servers accept with every scope (billing moves money only with one).
FULL_TOKEN = "drivable-reliability-full-scope-0123"
ENV_VERIFIER = "drivable.serve.auth:env_verifier"


@dataclass(frozen=True)
class Profile:
    """How to drive one server: how it is served, its liveness call and a load mix of valid calls."""

    target: str
    liveness: tuple[str, dict[str, Any]] | None
    mix: tuple[tuple[str, dict[str, Any]], ...]
    verifier: str | None = None
    token: str | None = None
    # The variable naming the server's store: each run gets a fresh SQLite file there.
    store_env: str | None = None
    prepare: Callable[[str], None] | None = None
    exclude: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    postgres: bool = False  # the server also runs on PostgreSQL (its store URL in store_env)
    insecure: bool = False


PROFILES: dict[str, Profile] = {
    "caselaw": Profile(
        "caselaw",
        ("list_courts", {}),
        (
            ("search_decisions", {"query": "náhrada škody", "limit": 5}),
            ("search_decisions", {"court": "Nejvyšší soud", "limit": 5}),
            ("list_courts", {}),
            ("search_decisions", {"date_from": "2020", "limit": 3}),
        ),
    ),
    "probe": Profile(
        PROBE_TARGET,
        ("check_alive", {}),
        (("check_alive", {"echo": "load"}),),
        verifier=PROBE_VERIFIER,
        token=probe.ALICE_TOKEN,
        store_env=probe.STORE_ENV,
        prepare=probe.prepare_store,
    ),
    "billing": Profile(
        "billing",
        ("list_customers", {}),
        (
            ("find_invoices", {"state": "paid", "limit": 10}),
            ("list_customers", {"limit": 10}),
            ("find_invoices", {"date_from": "2026-01-01", "limit": 5}),
            ("get_invoice", {"invoice_id": "inv_30001"}),
        ),
        verifier=ENV_VERIFIER,
        token=FULL_TOKEN,
        store_env="DRIVABLE_BILLING_STORE",
        env=(
            (
                "DRIVABLE_TOKENS",
                json.dumps(
                    {
                        FULL_TOKEN: {
                            "principal": "reliability",
                            "scopes": ["billing:read", "billing:write"],
                        },
                        READER_TOKEN: {"principal": "reader", "scopes": ["billing:read"]},
                    }
                ),
            ),
        ),
        postgres=True,
    ),
}


def generic_profile(target: str) -> Profile:
    """Any contract (`MODULE:ATTR`, served by `drivable serve --insecure` on loopback), any stdio
    server command (`cmd:python my_server.py`), or a running endpoint (`http://...`); tools/list
    is the liveness call, and load has nothing to mix (fuzz only)."""
    return Profile(target, None, (), insecure=":" in target and not target.startswith("cmd:"))


def reference_servers() -> list[str]:
    """The reference servers this checkout has (billing joins caselaw when it lands)."""
    from drivable.servers import REFERENCE_SERVERS

    return sorted(REFERENCE_SERVERS)


def profile_of(name: str) -> Profile:
    if name in PROFILES:
        return PROFILES[name]
    if ":" in name:
        return generic_profile(name)
    raise KeyError(
        f"no reliability profile for {name!r}: name a reference server, a MODULE:ATTR contract, "
        "cmd:COMMAND for a stdio server, or an http:// URL"
    )


@dataclass(frozen=True)
class Leg:
    """One part of a server's fuzzing: its store, protocol era and transport."""

    store: str = "sqlite"
    era: str = "auto"  # auto: 2026-07-28; legacy: the 2025-11-25 handshake
    transport: str = "http"

    def label(self) -> str:
        era = "2026-07-28" if self.era == "auto" else "2025-11-25"
        return f"{self.store}, {era}, {self.transport}"


def legs_of(name: str) -> list[Leg]:
    """Every combination the server runs in: stores (SQLite, and PostgreSQL where it runs on
    it), both eras, HTTP and stdio (stdio on SQLite)."""
    prof = profile_of(name)
    if prof.target.startswith("http://") or prof.target.startswith("https://"):
        return [Leg("-", era, "http") for era in ("auto", "legacy")]
    if prof.target.startswith("cmd:"):
        return [Leg("-", era, "stdio") for era in ("auto", "legacy")]
    stores = (
        ["sqlite", "postgresql"] if prof.postgres and settings.PG.get() != "skip" else ["sqlite"]
    )
    legs = [Leg(store, era, "http") for store in stores for era in ("auto", "legacy")]
    if name in PROFILES:
        legs += [Leg("sqlite", era, "stdio") for era in ("auto", "legacy")]
    return legs
