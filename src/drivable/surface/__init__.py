"""drivable.surface."""
