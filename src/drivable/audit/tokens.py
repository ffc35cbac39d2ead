"""Count tokens offline: `bpe-openai` embeds the o200k vocabulary, so nothing downloads at run time."""

from __future__ import annotations

import json
import warnings
from functools import lru_cache
from typing import Any

ENCODING = "o200k_base"
# The encoder refuses a single input over 200,000 tokens; catalogs can be larger, so count in
# pieces cut at JSON item boundaries (a cut there changes the count by a token at most).
CHUNK_CHARS = 50_000


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai  # type: ignore[import-untyped]

    with warnings.catch_warnings():  # its loader uses a deprecated importlib.resources call
        warnings.simplefilter("ignore", DeprecationWarning)
        return bpe_openai.get_encoding(ENCODING)


def _pieces(text: str) -> list[str]:
    pieces = []
    start = 0
    while len(text) - start > CHUNK_CHARS:
        cut = text.rfind(",", start + CHUNK_CHARS // 2, start + CHUNK_CHARS)
        cut = cut + 1 if cut > start else start + CHUNK_CHARS
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def count_text(text: str) -> int:
    """Tokens of `text`; special-token spellings in it count as plain text, never as errors."""
    encoding = _encoding()
    return sum(len(encoding.encode_ordinary(piece)) for piece in _pieces(text))


def count_json(value: Any) -> int:
    """Tokens of the compact JSON serialization, the way a host injects it."""
    return count_text(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
