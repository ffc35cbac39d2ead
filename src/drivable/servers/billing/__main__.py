"""`python -m drivable.servers.billing`: serve billing over stdio (store from the environment)."""

from __future__ import annotations

from drivable.serve import run_stdio
from drivable.servers.billing.server import contract

if __name__ == "__main__":
    run_stdio(contract)
