"""Dynamic probes: the calls models really make, and what a good server answers to each.

`plan` builds the calls, `call` sends one, `successes`, `rejections` and `leaks` read the answers,
`tools` drives a run over every tool the safety rules allow, `lists` probes lists and resources.
"""

from drivable.audit.probes.call import UNKNOWN_PROPERTY, ProbeCall, call_raw
from drivable.audit.probes.lists import probe_lists, probe_resources
from drivable.audit.probes.state import ProbeState
from drivable.audit.probes.tools import first_safe_tool, probe_tools

__all__ = [
    "UNKNOWN_PROPERTY",
    "ProbeCall",
    "ProbeState",
    "call_raw",
    "first_safe_tool",
    "probe_lists",
    "probe_resources",
    "probe_tools",
]
