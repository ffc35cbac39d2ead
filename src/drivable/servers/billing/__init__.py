"""The billing reference server (`server.contract`); importing any part of it declares all of it."""

from drivable.servers.billing import (
    resources,
    writes,
)  # declare on `server.contract`, after its reads

__all__ = ["resources", "writes"]
