"""drivable.servers."""
