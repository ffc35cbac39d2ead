"""The naive notes server (drivable.eval.baselines.notes), importable from the tests and runnable
as a script for stdio."""

from __future__ import annotations

from drivable.eval.baselines.notes import server

__all__ = ["server"]

if __name__ == "__main__":
    server.run()
