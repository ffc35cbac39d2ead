"""Count tokens offline: `bpe-openai` embeds the o200k vocabulary, so nothing downloads at run time."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

ENCODING = "o200k_base"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai  # type: ignore[import-untyped]

    return bpe_openai.get_encoding(ENCODING)


def count_text(text: str) -> int:
    return len(_encoding().encode(text))


def count_json(value: Any) -> int:
    """Tokens of the compact JSON serialization, the way a host injects it."""
    return count_text(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
