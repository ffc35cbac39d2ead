"""`python -m drivable.servers.caselaw`: serve the caselaw contract over stdio."""

from __future__ import annotations

from drivable.serve import run_stdio
from drivable.servers.caselaw.server import contract

if __name__ == "__main__":
    run_stdio(contract)
