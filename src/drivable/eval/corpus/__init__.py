"""The eval corpus: domains each served by a drivable server and a naive twin over the same data."""
