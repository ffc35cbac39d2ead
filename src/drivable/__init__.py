"""drivable: make MCP servers drivable by language models, and measure that they are.

What an author writes a server with is one namespace (`__all__`), docs/runtime.md shows it whole:

    from drivable import READ_ONLY, Call, Contract, Output, Paged, Summary

Each name is imported on its first use (`__getattr__`), so that `import drivable`, and with it
`drivable --help`, costs no more than the interpreter's start (benchmarks/bench_cli.py).
"""

TYPE_CHECKING = False  # `typing` itself is an import the command line does without
if TYPE_CHECKING:
    from drivable.contract.call import Call, Principal
    from drivable.contract.codes import Code, Recovery, WarningCode
    from drivable.contract.content import Text
    from drivable.contract.declaration import MAX_INLINE_BYTES
    from drivable.contract.declare import CREATE, DELETE, UPDATE, Confirmed, Keyed
    from drivable.contract.durable import ConfirmToken, DryRun, IdempotencyKey
    from drivable.contract.envelope import Issue, Repair, ToolError
    from drivable.contract.facade import Contract
    from drivable.contract.output import Output
    from drivable.contract.paged import Page, Paged
    from drivable.contract.summary import Summary
    from drivable.contract.tool import READ_ONLY, ContractError, Deprecation, Effects
    from drivable.kinds import Kind, KindModel
    from drivable.kinds.country import Country
    from drivable.kinds.date import Date, DateFrom, DateTo
    from drivable.kinds.datetime import Moment
    from drivable.kinds.email import Email
    from drivable.kinds.filter import Filter
    from drivable.kinds.identifier import Id, IdOf
    from drivable.kinds.integer import PageSize
    from drivable.kinds.locale import Locale
    from drivable.kinds.money import Money
    from drivable.kinds.string_list import StringList
    from drivable.kinds.time import TimeOfDay
    from drivable.kinds.time_range import TimeRange
    from drivable.kinds.timezone import TimeZone
    from drivable.kinds.uuid import Uuid

__version__ = "0.1.0"

# name -> the module that owns it (one owner per name; the namespace only points at it)
_OWNERS = {
    "Call": "drivable.contract.call",
    "Principal": "drivable.contract.call",
    "Code": "drivable.contract.codes",
    "Recovery": "drivable.contract.codes",
    "WarningCode": "drivable.contract.codes",
    "Text": "drivable.contract.content",
    "MAX_INLINE_BYTES": "drivable.contract.declaration",
    "CREATE": "drivable.contract.declare",
    "DELETE": "drivable.contract.declare",
    "UPDATE": "drivable.contract.declare",
    "Confirmed": "drivable.contract.declare",
    "Keyed": "drivable.contract.declare",
    "ConfirmToken": "drivable.contract.durable",
    "DryRun": "drivable.contract.durable",
    "IdempotencyKey": "drivable.contract.durable",
    "Issue": "drivable.contract.envelope",
    "Repair": "drivable.contract.envelope",
    "ToolError": "drivable.contract.envelope",
    "Contract": "drivable.contract.facade",
    "Output": "drivable.contract.output",
    "Page": "drivable.contract.paged",
    "Paged": "drivable.contract.paged",
    "Summary": "drivable.contract.summary",
    "READ_ONLY": "drivable.contract.tool",
    "ContractError": "drivable.contract.tool",
    "Deprecation": "drivable.contract.tool",
    "Effects": "drivable.contract.tool",
    "Kind": "drivable.kinds",
    "KindModel": "drivable.kinds",
    "Country": "drivable.kinds.country",
    "Date": "drivable.kinds.date",
    "DateFrom": "drivable.kinds.date",
    "DateTo": "drivable.kinds.date",
    "Moment": "drivable.kinds.datetime",
    "Email": "drivable.kinds.email",
    "Filter": "drivable.kinds.filter",
    "Id": "drivable.kinds.identifier",
    "IdOf": "drivable.kinds.identifier",
    "PageSize": "drivable.kinds.integer",
    "Locale": "drivable.kinds.locale",
    "Money": "drivable.kinds.money",
    "StringList": "drivable.kinds.string_list",
    "TimeOfDay": "drivable.kinds.time",
    "TimeRange": "drivable.kinds.time_range",
    "TimeZone": "drivable.kinds.timezone",
    "Uuid": "drivable.kinds.uuid",
}

__all__ = [
    "CREATE",
    "DELETE",
    "MAX_INLINE_BYTES",
    "READ_ONLY",
    "UPDATE",
    "Call",
    "Code",
    "ConfirmToken",
    "Confirmed",
    "Contract",
    "ContractError",
    "Country",
    "Date",
    "DateFrom",
    "DateTo",
    "Deprecation",
    "DryRun",
    "Effects",
    "Email",
    "Filter",
    "Id",
    "IdOf",
    "IdempotencyKey",
    "Issue",
    "Keyed",
    "Kind",
    "KindModel",
    "Locale",
    "Moment",
    "Money",
    "Output",
    "Page",
    "PageSize",
    "Paged",
    "Principal",
    "Recovery",
    "Repair",
    "StringList",
    "Summary",
    "Text",
    "TimeOfDay",
    "TimeRange",
    "TimeZone",
    "ToolError",
    "Uuid",
    "WarningCode",
]


def __getattr__(name: str) -> object:
    owner = _OWNERS.get(name)
    if owner is None:
        raise AttributeError(f"module 'drivable' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(owner), name)
    globals()[name] = value  # the next lookup is a plain one
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
