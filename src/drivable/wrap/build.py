"""The wrapped server as an ordinary drivable `Contract`: one tool per upstream tool.

Each tool is declared from the upstream's listing through the declaration API like any other
(`Contract.tool` over a handler taking its input model whole), so everything the runtime does for
a tool it does here: lenient reading with notes, the envelope, receipts in the effect store, dry
runs and confirm tokens, the compact listing and the fingerprint. The handler sends the canonical
arguments upstream and turns the answer into a result or the envelope (`drivable.wrap.failures`).
The connection lives in the contract's lifespan (`drivable.wrap.upstream`).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from mcp import MCPError
from mcp_types import INTERNAL_ERROR, CallToolResult

from drivable.contract import Contract
from drivable.contract.call import Call
from drivable.contract.declare import CONTROL_FIELDS, Preset, check_copyable, examples_in
from drivable.contract.envelope import ToolError, reads_as_error
from drivable.contract.summary import Summary
from drivable.contract.tool import ContractError, check_name
from drivable.target import Target
from drivable.wrap import failures, paging
from drivable.wrap.config import WrapConfig
from drivable.wrap.effects import effects_of
from drivable.wrap.others import declare_others
from drivable.wrap.pages import more_than_a_page
from drivable.wrap.paging import pageable, with_cursor
from drivable.wrap.results import Forwarded, ForwardedPage, forwarded
from drivable.wrap.schema import input_model, stated_forms, to_upstream
from drivable.wrap.upstream import START_TIMEOUT_S, Gone, TimedOut, Upstream

MIN_DESCRIPTION = 40
_EXAMPLE = re.compile(r"\s*\bExample:\s*\{.*?\}\.?(?=\s|$)", re.DOTALL)
_LOOKUP_VERBS = ("list", "search", "find", "read", "get", "open", "query")


class WrapError(ValueError):
    """The upstream's listing or the config cannot be wrapped; the message names the fix."""


@dataclass
class Listing:
    """What the upstream shows: its name, version, instructions, tools, resources, resource
    templates and prompts (wire dicts)."""

    name: str
    version: str
    instructions: str | None
    tools: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    resource_templates: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)


async def read_listing(target: Target, errlog: TextIO | None = None) -> Listing:
    """Connect once and read the upstream's identity and tools."""
    upstream = Upstream(target, errlog=errlog)
    try:
        await upstream.start(START_TIMEOUT_S)
        tools = await upstream.list_tools()
        others = await upstream.list_others()
        client = upstream._client
        info = getattr(client, "server_info", None)
        instructions = getattr(client, "instructions", None)
    finally:
        await upstream.stop()
    return Listing(
        name=str(getattr(info, "name", None) or "wrapped"),
        version=str(getattr(info, "version", None) or "0"),
        instructions=instructions,
        tools=tools,
        **others,
    )


def contract_of(
    listing: Listing, config: WrapConfig, target: Target, errlog: TextIO | None = None
) -> Contract:
    """The drivable contract in front of the upstream that `listing` describes."""
    shown = [t for t in listing.tools if not config.tool(t["name"]).hidden]
    unknown = sorted(set(config.tools) - {t["name"] for t in listing.tools})
    if unknown:
        raise WrapError(
            f"{config.source or 'the config'} names tools the server does not list: "
            f"{', '.join(unknown)}"
        )
    name = config.name or _slug(listing.name)
    contract = Contract(
        name,
        version=listing.version,
        summary=_summary(listing, shown),
        title=listing.name,
        domain_codes=[failures.UPSTREAM_REFUSED],
        lifespan=_lifespan(target, errlog),
    )
    efforts = {
        t["name"]: effects_of(
            t.get("annotations"), config.tool(t["name"]).effects, t["name"], owned_controls(t)
        )
        for t in shown
    }
    listed = {t["name"]: config.tool(t["name"]).rename or t["name"] for t in shown}
    lookups = sorted(
        (listed[n] for n, e in efforts.items() if e.read_only),
        key=lambda n: (not n.lower().startswith(_LOOKUP_VERBS), n),
    )
    finder = failures.finder_of(
        (listed[t["name"]], t.get("inputSchema") or {})
        for t in shown
        if efforts[t["name"]].read_only
    )
    for tool in shown:
        try:
            _declare(
                contract, tool, config, efforts[tool["name"]], listed[tool["name"]], lookups, finder
            )
        except (ContractError, ValueError) as error:
            raise WrapError(f"tool {tool['name']!r}: {error}") from None
    try:
        declare_others(
            contract,
            listing.resources,
            listing.resource_templates,
            listing.prompts,
            config.timeout_s,
        )
    except (ContractError, ValueError) as error:
        raise WrapError(f"the server's resources or prompts: {error}") from None
    return contract


def _declare(
    contract: Contract,
    tool: Mapping[str, Any],
    config: WrapConfig,
    effects: Preset,
    name: str,
    lookups: Sequence[str],
    finder: failures.Finder | None = None,
) -> None:
    upstream_name = tool["name"]
    settings = config.tool(upstream_name)
    schema: dict[str, Any] = dict(tool.get("inputSchema") or {"type": "object"})
    owned = owned_controls(tool)
    # a control field the upstream declares is the wrapper's mechanism's, its value passed on
    taken = owned & set(effects.adds)
    model = input_model(
        upstream_name,
        _without(schema, taken),
        hidden=settings.hidden_arguments,
        kinds=settings.kinds,
    )
    properties = set(schema.get("properties") or {})
    controls = {f for f in CONTROL_FIELDS if f not in owned}
    keyed = "idempotency_key" in effects.adds
    paged = pageable(effects, properties)
    if paged:
        model = with_cursor(model)
        controls.add(paging.CURSOR)
    output = ForwardedPage if paged else Forwarded
    timeout_s = config.timeout_s
    others = [n for n in lookups if n != name]
    # where the upstream refuses a value whose form the schema states, that form is the repair;
    # a destructive call's next step is its dry run, never the call itself
    forms = {
        prop: form
        for prop, form in stated_forms(schema).items()
        if prop not in settings.kinds and prop not in settings.hidden_arguments
    }
    if effects.destructive:
        forms = {}

    def page(answer: CallToolResult, args: Any, call: Call, ref: str, start: int) -> Forwarded:
        cut, token = paging.page_of(forwarded(answer), args, call.tool, ref, start)
        call.attach(*cut.blocks)
        return ForwardedPage(
            result=cut.result, text=cut.text, has_more=token is not None, next_cursor=token
        )

    async def forward(args: Any, call: Call, upstream: Upstream) -> Forwarded:
        unissued: ToolError | None = None
        if paged and getattr(args, paging.CURSOR, None) is not None:
            try:
                kept, start, ref = await paging.kept(contract, call, args)
            except ToolError as refused:
                if refused.code != "invalid_cursor":
                    raise
                unissued = refused  # refused only if the answer has pages (decision 0058)
            else:
                return page(kept, args, call, ref, start)
        read = args.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude=controls)
        sent = to_upstream(read, schema, schema)
        if effects.destructive and "dry_run" in owned:
            sent["dry_run"] = bool(args.dry_run)  # never the upstream's own default
        if effects.destructive and args.dry_run and "dry_run" not in owned:
            return Forwarded(would_send=sent)
        if effects.destructive and "confirm_token" in owned and not args.dry_run:
            sent = await relay_token(upstream, sent)
        answer = await ask(upstream, sent)
        text = failures.text_of(answer.content)
        # an error returned as a success is an error (decision 0026): the same reading as the eval's
        if answer.is_error or reads_as_error([text], answer.structured_content):
            raise failures.refusal(
                text, tool=name, lookups=others, sent=sent, finder=finder, forms=forms
            )
        whole = forwarded(answer)
        if effects.destructive and args.dry_run:
            # the upstream's own dry run, beside what the confirmed call sends
            would_send = {
                **{k: v for k, v in sent.items() if k != "confirm_token"},
                "dry_run": False,
            }
            return Forwarded(result=whole.result, text=whole.text, would_send=would_send)
        if paged and more_than_a_page(whole):
            if unissued is not None:
                raise unissued
            kept_as = await paging.keep(contract, call, answer)
            if kept_as is not None:  # else the store is down: the answer whole, nothing lost
                return page(answer, args, call, kept_as, 0)
        if unissued is not None:
            call.note(paging.SET_ASIDE)
        call.attach(*whole.blocks)
        return output(result=whole.result, text=whole.text)

    async def relay_token(upstream: Upstream, sent: dict[str, Any]) -> dict[str, Any]:
        """The confirmed call with the upstream's own confirm token (the wrapper's means nothing
        upstream): the caller confirmed through the wrapper's two steps; the upstream's own dry
        run of the same call issues its token (its first `confirm_token` value). Without a
        `dry_run` of its own there is no safe preview to ask: no token is sent."""
        unconfirmed = {k: v for k, v in sent.items() if k != "confirm_token"}
        if "dry_run" not in owned:
            return unconfirmed
        answer = await ask(upstream, {**unconfirmed, "dry_run": True})
        token = _first(forwarded(answer).result, "confirm_token")
        return {**unconfirmed, "confirm_token": token} if isinstance(token, str) else unconfirmed

    async def ask(upstream: Upstream, sent: dict[str, Any]) -> CallToolResult:
        try:
            return await upstream.call(upstream_name, sent, timeout_s)
        except Gone:
            raise failures.unavailable(name, keyed) from None
        except TimedOut:
            raise failures.timed_out(name, timeout_s, keyed) from None
        except MCPError as error:
            internal = error.error.code == INTERNAL_ERROR
            raise failures.refusal(
                error.error.message,
                tool=name,
                lookups=others,
                sent=sent,
                internal=internal,
                finder=finder,
                forms=forms,
            ) from None

    forward.__name__ = name
    forward.__annotations__ = {
        "args": model,
        "call": Call,
        "upstream": Upstream,
        "return": output,
    }
    allow = None
    try:
        check_name(name, None, contract.verbs)
    except ContractError:
        allow = (
            "The wrapped server names this tool; rename it with "
            f"[tool.drivable.wrap] tools.{upstream_name}.rename."
        )
    annotations = tool.get("annotations") or {}
    contract.tool(
        name=name,
        title=tool.get("title") or annotations.get("title"),
        description=_description(
            settings.description or tool.get("description") or "", name, effects
        ),
        effects=effects,
        errors=("internal_error", *failures.CODES),
        allow_name=allow,
    )(forward)


def owned_controls(tool: Mapping[str, Any]) -> frozenset[str]:
    """The control fields an upstream tool's input schema declares itself."""
    properties = (tool.get("inputSchema") or {}).get("properties") or {}
    return frozenset(CONTROL_FIELDS) & frozenset(properties)


def _without(schema: dict[str, Any], names: Collection[str]) -> dict[str, Any]:
    """`schema` without the top-level properties `names` (the wrapper declares its own)."""
    if not names:
        return schema
    properties = {k: v for k, v in (schema.get("properties") or {}).items() if k not in names}
    required = [r for r in schema.get("required") or () if r not in names]
    return {**schema, "properties": properties, "required": required}


def _first(value: Any, key: str) -> Any:
    """The first value under `key` in a JSON value, depth first (None: none)."""
    if isinstance(value, Mapping):
        if key in value:
            return value[key]
        items: Any = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = _first(item, key)
        if found is not None:
            return found
    return None


def _description(text: str, name: str, effects: Preset) -> str:
    """The upstream's words (an example call in them that a model would copy as it is, with
    concrete values, is left out: decision 0030), made at least 40 characters by what the
    effects say."""
    for example in examples_in(text):
        try:
            check_copyable(name, example)
        except ContractError:
            text = _EXAMPLE.sub("", text).strip()
            break
    text = text.strip()
    if len(text) < MIN_DESCRIPTION:
        said = (
            "It only reads from the wrapped server; it changes nothing."
            if effects.read_only
            else "It deletes data: a dry run first, then the confirmed call."
            if effects.destructive
            else "It changes data on the wrapped server."
        )
        text = f"{text.rstrip('.')}. {said}" if text else f"{name.replace('_', ' ')}. {said}"
    return text


def _summary(listing: Listing, tools: Sequence[Mapping[str, Any]]) -> Summary:
    text = (listing.instructions or "").strip() or (
        f"{listing.name}'s tools, through drivable's contract."
    )
    does = [str(t.get("title") or t["name"]) for t in tools[:20]] or ["nothing yet"]
    return Summary(text, does=does, does_not=["anything its listed tools do not"])


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return slug or "wrapped"


def _lifespan(target: Target, errlog: TextIO | None) -> Any:
    @asynccontextmanager
    async def open_upstream(contract: Contract) -> AsyncIterator[Upstream]:
        upstream = Upstream(target, errlog=errlog)
        try:
            await upstream.start(START_TIMEOUT_S)
        except Gone:
            await upstream.stop()
            raise RuntimeError("the wrapped server did not start") from None
        try:
            yield upstream
        finally:
            await upstream.stop()

    return open_upstream
