"""list_courts reads a group of countries as the group: "EU" lists the Union's own courts (and the
European courts it always includes), with a note saying what EU is, instead of a refusal a model
resends (docs/kinds.md, "Countries")."""

from __future__ import annotations

from drivable.contract import Contract
from drivable.servers.caselaw.courts import COURTS


async def test_eu_lists_the_european_courts(caselaw: Contract) -> None:
    out = await caselaw.call("list_courts", {"country": "EU", "detail": "summary"})
    assert not out.is_error, out.structured
    listed = {row["court"] for row in out.structured["courts"]}
    assert listed == {c.value for c in COURTS if c.country in ("EU", "COE")}
    assert any("European Union" in note for note in out.structured["notes"])
