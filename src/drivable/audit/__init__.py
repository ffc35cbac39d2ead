"""drivable.audit."""
