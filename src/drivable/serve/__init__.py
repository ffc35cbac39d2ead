"""drivable.serve: run a contract over stdio or streamable HTTP, in both protocol eras."""

from drivable.serve.mount import build_server, compute_fingerprint
from drivable.serve.stdio import run_stdio

__all__ = ["build_server", "compute_fingerprint", "run_stdio"]
