"""What `serve --http` says on stderr: one startup line naming the URL, and the supervisor's
worker restarts in words that name the setting to change (uvicorn logs them at info level only,
which `serve` keeps quiet)."""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

_DIED = re.compile(r"Child process \[(\d+)\] died")
_FAILED = re.compile(r"Child process \[(\d+)\] failed to start")


class WorkerNotices(logging.Filter):
    """Pass warnings and errors; turn uvicorn's notes about dead or hung workers into warnings
    that say what happened and which setting to change; drop the other info lines."""

    timeout_s: int = 60

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        died = _DIED.search(text)
        if died:
            record.msg = (
                f"drivable serve: worker {died.group(1)} died or did not answer the health check "
                f"within {self.timeout_s} s (a slow import of the contract?) and was restarted; raise worker_timeout (--worker-timeout, DRIVABLE_WORKER_TIMEOUT) if "
                "the contract takes longer to import"
            )
            record.args = ()
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            return True
        failed = _FAILED.search(text)
        if failed:
            record.msg = (
                f"drivable serve: worker {failed.group(1)} failed to start (the error is above); "
                "stopping"
            )
            record.args = ()
            return True
        return record.levelno >= logging.WARNING


def log_config(timeout_s: int) -> dict[str, Any]:
    """A uvicorn `log_config`: warnings and the worker notices on stderr, nothing else."""
    WorkerNotices.timeout_s = timeout_s
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"workers": {"()": WorkerNotices}},
        "formatters": {"plain": {"format": "%(message)s"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "plain",
                "filters": ["workers"],
            }
        },
        "loggers": {
            "uvicorn.error": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


def startup_line(name: str, url: str, *, workers: int, store: str | None) -> None:
    where = f", receipts in {store}" if store else ""
    plural = "s" if workers != 1 else ""
    print(
        f"drivable serve: {name} at {url} ({workers} worker{plural}{where})",
        file=sys.stderr,
        flush=True,
    )
