"""drivable: make MCP servers drivable by language models, and measure that they are."""

__version__ = "0.1.0"
