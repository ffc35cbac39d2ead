"""tickets: an issue tracker for four projects (data, store, models, the drivable server)."""
