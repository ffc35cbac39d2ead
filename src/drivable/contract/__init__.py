"""drivable.contract: declare tools a model can drive, and the one pipeline that calls them."""

from drivable.contract.codes import (
    ERROR_CODES,
    ISSUE_CODES,
    WARNING_CODES,
    Code,
    IssueCode,
    Recovery,
    WarningCode,
)
from drivable.contract.declare import CREATE, DELETE, UPDATE, Preset
from drivable.contract.echo import NextCall
from drivable.contract.envelope import (
    ENVELOPE_META_KEY,
    Envelope,
    Issue,
    Repair,
    ToolError,
    envelope_of,
)
from drivable.contract.facade import (
    MAX_INLINE_BYTES,
    NAMESPACE,
    Call,
    Contract,
    Outcome,
    Principal,
    Summary,
)
from drivable.contract.output import Output
from drivable.contract.tool import READ_ONLY, ContractError, Deprecation, Effects, ToolSpec

__all__ = [
    "CREATE",
    "DELETE",
    "ENVELOPE_META_KEY",
    "ERROR_CODES",
    "ISSUE_CODES",
    "MAX_INLINE_BYTES",
    "NAMESPACE",
    "READ_ONLY",
    "UPDATE",
    "WARNING_CODES",
    "Call",
    "Code",
    "Contract",
    "ContractError",
    "Deprecation",
    "Effects",
    "Envelope",
    "Issue",
    "IssueCode",
    "NextCall",
    "Outcome",
    "Output",
    "Preset",
    "Principal",
    "Recovery",
    "Repair",
    "Summary",
    "ToolError",
    "ToolSpec",
    "WarningCode",
    "envelope_of",
]
