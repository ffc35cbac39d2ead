"""documents: a small document store with folders (search, list, read, move, share, delete)."""
