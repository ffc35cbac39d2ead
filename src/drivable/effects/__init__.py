"""drivable.effects."""
