"""The caselaw reference server (`server.contract`); importing any part of it declares all of it."""

from drivable.servers.caselaw import (
    analysis,
    resources,
)  # declare on `server.contract`, after its reads

__all__ = ["analysis", "resources"]
