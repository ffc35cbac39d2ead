"""drivable.reliability: prove, with numbers, that a served contract keeps working under hostile
input, load and faults, and lets no one in where they don't belong.

Everything here drives real processes on loopback only (127.0.0.1): uvicorn servers started by
`drivable serve`, the official SDK client, real SQLite files and a real PostgreSQL. Every loop is
bounded in count and in time; every process started is stopped in a `finally`.

- `schema`: hypothesis strategies from a tool's advertised input schema, and hostile values;
- `checks`: what every answer must satisfy (no internal_error, no substrate leak, named fields);
- `processes`: start and stop served contracts and a private PostgreSQL, sample their memory;
- `fuzz`, `load`, `faults`, `access`, `canary`: the five campaigns;
- `report`: the Markdown page `drivable reliability run` writes (`docs/reliability.md`);
- `probe`: a small contract with keyed and two-step effects on a configurable store, the target
  of the fault and access campaigns.
"""
