"""Count tokens offline: `bpe-openai` embeds the o200k vocabulary, so nothing downloads at run time.

Its Rust tokenizer is loaded on its own, without the package's Python wrapper: importing the
wrapper decodes all three of its vocabularies in Python (450,000 base64 lines, 3 to 9 s), which
was most of a static audit's time, while the Rust side has the vocabulary built in and counts
the same tokens (ordinary text only: special-token spellings count as plain text). When the
binding cannot be found this way, the public wrapper is used.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, cast

ENCODING = "o200k_base"
# The wrapper's encoder refuses a single input over 200,000 tokens; catalogs can be larger, so
# count in pieces cut at JSON item boundaries (a cut there changes the count by a token at most).
CHUNK_CHARS = 50_000


class _Counter(Protocol):
    def count(self, text: str) -> int: ...


class _Wrapped:
    """The public wrapper's encoding, as a counter."""

    def __init__(self, encoding: Any) -> None:
        self._encoding = encoding

    def count(self, text: str) -> int:
        return sum(len(self._encoding.encode_ordinary(piece)) for piece in _pieces(text))


def _binding() -> Any | None:
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for path in sorted(Path(folder).glob("_bindings*.so")):
            name = "bpe_openai._bindings"
            loader = importlib.machinery.ExtensionFileLoader(name, str(path))
            found = importlib.util.spec_from_file_location(name, path, loader=loader)
            if found is None:
                continue
            module = importlib.util.module_from_spec(found)
            loader.exec_module(module)
            return module
    return None


@lru_cache(maxsize=1)
def _counter() -> _Counter:
    try:
        binding = _binding()
        if binding is not None:
            return cast(_Counter, binding.tokenizer_for_encoding(ENCODING))
    except (ImportError, OSError, AttributeError, ValueError):
        pass
    import bpe_openai  # type: ignore[import-untyped]

    with warnings.catch_warnings():  # its loader uses a deprecated importlib.resources call
        warnings.simplefilter("ignore", DeprecationWarning)
        return _Wrapped(bpe_openai.get_encoding(ENCODING))


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
    return _counter().count(text)


def count_json(value: Any) -> int:
    """Tokens of the compact JSON serialization, the way a host injects it."""
    return count_text(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
