"""drivable.surface: the agent-visible surface of an MCP server, its diff and its fingerprint.

- `drivable.surface.snapshot.canonical(collected)` / `.take(target)`: the canonical, sorted snapshot;
- `drivable.surface.diff.diff(old, new)`: every change, classified breaking / routing / additive /
  cosmetic;
- `drivable.surface.fingerprint.compute(snapshot)`: `<server>@<version>+<hash>` and what it covers.
"""
