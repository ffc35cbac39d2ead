"""The API reference (docs/api.md) is generated from the source: stale when the source changes,
and every name a user imports has a docstring (a class's or function's own, or the string literal
after a constant's or an alias's assignment)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import drivable
from drivable import apiref

ROOT = Path(__file__).resolve().parents[1]


def test_docs_api_is_the_generated_page() -> None:
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert page == apiref.markdown(), "regenerate: python -m drivable.apiref > docs/api.md"


def test_every_public_name_has_a_docstring() -> None:
    assert apiref.undocumented() == []


def test_every_name_a_user_imports_has_a_section() -> None:
    page = apiref.markdown()
    exported = [*drivable.__all__]
    for module, names in apiref.ENTRY_POINTS:
        exported += names or __import__(module, fromlist=["__all__"]).__all__
    headings = {line.split(" ", 1)[1] for line in page.splitlines() if line.startswith("#")}
    assert [name for name in exported if f"`{name}`" not in headings] == []
    assert sorted(drivable.__all__) == sorted(drivable._OWNERS)


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in ("apiref_owner", "apiref_front"):
        sys.modules.pop(name, None)


def test_a_docstring_is_found_where_the_source_gives_it(modules: Path) -> None:
    (modules / "apiref_owner.py").write_text(
        textwrap.dedent(
            '''
            from typing import Annotated

            Said = Annotated[str, "kind"]
            """An alias with its docstring."""
            Silent = Annotated[str, "kind"]
            LIMIT = 3  # a comment is not a docstring

            class Thing:
                """A thing.

                More about the thing."""

                size: int = 1
                """How big."""

                def grow(self, by: int) -> None:
                    """Grow by `by`."""

            def bare(x: int) -> int:
                return x
            '''
        ),
        encoding="utf-8",
    )
    (modules / "apiref_front.py").write_text(
        "from apiref_owner import Said, Silent, Thing, bare\n", encoding="utf-8"
    )
    said, silent = apiref.find("apiref_front", "Said"), apiref.find("apiref_front", "Silent")
    assert (said.module, said.doc) == ("apiref_owner", "An alias with its docstring.")
    assert silent.doc is None
    assert apiref.find("apiref_owner", "LIMIT").doc is None
    assert apiref.find("apiref_front", "bare").doc is None
    thing = apiref.find("apiref_front", "Thing")
    assert apiref.first_paragraph(thing.doc) == "A thing."
    assert apiref.signature(thing) == "class Thing"
    assert apiref.members(thing) == [
        "- `size: int = 1`: How big.",
        "- `def grow(by: int) -> None`: Grow by `by`.",
    ]
