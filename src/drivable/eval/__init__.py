"""drivable.eval."""
