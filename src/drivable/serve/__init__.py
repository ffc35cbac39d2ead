"""drivable.serve."""
