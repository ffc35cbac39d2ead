"""Token counts for the eval: the auditor's offline o200k tokenizer (nothing downloads at run time)."""

from __future__ import annotations

from drivable.audit.tokens import ENCODING, count_json, count_text

__all__ = ["ENCODING", "count_json", "count_text"]
