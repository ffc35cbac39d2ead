"""The checklist rules drivable cannot decide from the wire: a reviewer answers a question."""
