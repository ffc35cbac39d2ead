from __future__ import annotations

# The example server is imported as `tests.contract.example_server` everywhere (one module, one
# contract), and run as a script by the stdio tests.
