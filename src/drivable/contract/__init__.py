"""drivable.contract."""
