"""`python -m drivable` runs the command line."""

from drivable.cli import main

main()
