"""`drivable wrap`: drivable's contract in front of any MCP server (docs/wrap.md).

The wrapper reads the upstream's tools, declares one drivable tool for each from its JSON schema
(`schema`), its annotations and the config (`effects`, `config`), and serves that contract with
`drivable.serve` unchanged; each handler forwards the canonical arguments upstream over one
kept-alive SDK client (`upstream`) and answers its results (`results`; a large one page by page,
`pages` and `paging`) or its failures as the envelope (`failures`). The upstream's resources and
prompts are served the same way (`others`). `build` joins them; `suggest` writes a starting
config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from drivable.wrap.build import Listing, WrapError, contract_of, read_listing
from drivable.wrap.config import WrapConfig

if TYPE_CHECKING:
    from drivable.contract import Contract
    from drivable.target import Target

__all__ = ["Listing", "WrapConfig", "WrapError", "contract_of", "read_listing", "wrap"]


async def wrap(
    target: Target, config: WrapConfig | None = None, errlog: TextIO | None = None
) -> Contract:
    """The contract in front of `target` (a `drivable.target.Target`), read from its listing."""
    chosen = config or WrapConfig()
    listing = await read_listing(target, errlog)
    return contract_of(listing, chosen, target, errlog)
