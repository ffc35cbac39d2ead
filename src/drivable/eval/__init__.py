"""drivable.eval: drive an agent through real workflows over the real wire, and score every step.

Split so each part can change alone: `workflow` (the task), `agents` (who decides), `solver` (the loop
over a real MCP client), `scorer` (the verdict), `trace` (every call, rejected payloads whole),
`report` (tables, confidence intervals, before/after, the gate).
"""
