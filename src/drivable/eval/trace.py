"""The eval trace: JSONL, one record per call.

Eval fixtures are synthetic, so a call the schema rejected before the handler ran is kept WHOLE: its
raw arguments and the full rejection envelope (seed rule 2: a pass rate without the rejected payloads
cannot say whether the model or the contract failed). Other calls keep their arguments and a bounded
excerpt of the result. Production telemetry never does this; only the eval does.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import IO, Any

from drivable.eval.turns import Observation

EXCERPT_CHARS = 600


def record(
    obs: Observation,
    *,
    run: str,
    workflow: str,
    agent: str,
    trial: int,
    seq: int,
    step: str | None,
    attempt: int | None,
    forced: bool,
    rejected_by_schema: bool,
    latency_ms: float,
    model: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "run": run,
        "workflow": workflow,
        "agent": agent,
        "trial": trial,
        "seq": seq,
        "step": step,
        "attempt": attempt,
        "tool": obs.call.tool,
        "arguments": obs.call.arguments,
        "is_error": obs.is_error,
        "forced": forced,
        "rejected_by_schema": rejected_by_schema,
        "latency_ms": round(latency_ms, 3),
    }
    if model is not None:
        out["model"] = model  # the model's side of the turn that made this call
    envelope = obs.envelope()
    if rejected_by_schema or forced:
        out["envelope"] = envelope
        out["result_text"] = obs.text  # whole
    else:
        if envelope is not None:
            out["envelope"] = envelope
        out["result_excerpt"] = obs.text[:EXCERPT_CHARS]
        out["result_chars"] = len(obs.text)
    return out


class TraceWriter:
    """Appends records to a JSONL file (thread- and task-safe; trials run concurrently)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._fh: IO[str] | None = None
        self._lock = threading.Lock()
        self.records: list[dict[str, Any]] = []

    def __enter__(self) -> TraceWriter:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("w", encoding="utf-8")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def write(self, rec: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(rec)
            if self._fh is not None:
                self._fh.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")
                self._fh.flush()


def read(path: str | Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
