"""Fixtures for the surface tests (the helpers live in `surface_helpers`)."""

from __future__ import annotations

from tests.surface.surface_helpers import spec_cmd

__all__ = ["spec_cmd"]
