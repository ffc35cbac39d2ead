"""drivable.servers: the reference servers, by name (`drivable serve caselaw`).

Each name maps to the import path of its module-level contract, so the serve command's
several HTTP workers can each import it (`MODULE:ATTR`, as `drivable serve` takes).
"""

from __future__ import annotations

REFERENCE_SERVERS: dict[str, str] = {
    "caselaw": "drivable.servers.caselaw.server:contract",
    "billing": "drivable.servers.billing.server:contract",
}


def import_path(name_or_path: str) -> str:
    """The `MODULE:ATTR` of a reference server's name; any other value is returned unchanged."""
    return REFERENCE_SERVERS.get(name_or_path.strip().casefold(), name_or_path)


__all__ = ["REFERENCE_SERVERS", "import_path"]
