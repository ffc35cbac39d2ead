"""`drivable wrap --http --workers N`: every worker process serves the contract the parent read.

The parent reads the upstream's listing once (a server that does not start fails there, in one
line) and hands it down: the listing in a file of a private directory (it is what any client of
the upstream is shown, and may be larger than a variable holds), the target and the config's path
in the environment (a stdio upstream's variables and an HTTP upstream's bearer token never touch
the disk). Each worker builds the same contract from them (`contract`, the factory `run_http`
imports) and keeps its own connection to the upstream in its lifespan: a stdio upstream runs once
per worker, so one that keeps its state in memory shows each worker its own (docs/wrap.md).
Receipts, tokens and cursors live in the store the workers share.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from drivable import settings
from drivable.contract import Contract
from drivable.target import Target
from drivable.wrap.build import Listing, contract_of
from drivable.wrap.config import load

FACTORY = f"{__name__}:contract"


def hand_down(listing: Listing, target: Target, config: Path | None) -> Path:
    """Set what `contract` reads in every worker; the directory the caller removes at the end."""
    if target.server is not None:
        raise ValueError("several workers need a command or a URL to wrap, not a server object")
    kept = Path(tempfile.mkdtemp(prefix="drivable-wrap-"))  # mode 0700
    (kept / "listing.json").write_text(json.dumps(asdict(listing)), encoding="utf-8")
    settings.WRAP_LISTING.hand_down(str(kept / "listing.json"))
    settings.WRAP_TARGET.hand_down(
        json.dumps(
            {
                "command": list(target.command),
                "url": target.url,
                "env": dict(target.env),
                "bearer_token": target.bearer_token,
                "mode": target.mode,
                "cwd": target.cwd,
            }
        )
    )
    settings.WRAP_CONFIG.hand_down(str(config.resolve()) if config is not None else "")
    return kept


def contract() -> Contract:
    """The wrapped contract of this worker, built from what the parent handed down."""
    listing = Listing(**json.loads(Path(settings.WRAP_LISTING.require()).read_text("utf-8")))
    given = json.loads(settings.WRAP_TARGET.require())
    target = Target(**{**given, "command": tuple(given["command"])})
    path = settings.WRAP_CONFIG.get()
    return contract_of(listing, load(Path(path) if path else None), target, sys.stderr)
