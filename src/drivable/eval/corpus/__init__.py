"""The eval corpus: more domains, each a drivable server and a naive twin over the same data."""
