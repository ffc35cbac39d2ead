"""The documents server on drivable: a small document store with folders.

Seven tools: search_documents, list_folder and get_document read (paged; a long text a part at a
time); move_document (expected_version), share_document (keyed: the invitation goes out once)
and the two-step delete_document and delete_folder (whose preview says how many documents go)
change. Every value is read through `drivable.kinds`; every write goes through the effect store's
database, so a change commits with its receipt and its spent confirm token.

`make_contract(store)` builds the contract on a prepared `Store`; `serve()` opens the store the
environment names (store.py) and builds it.
"""

from __future__ import annotations

import json

from drivable.contract import DELETE, READ_ONLY, UPDATE, Call, Contract, Effects, Summary, ToolError
from drivable.contract.envelope import Issue, Repair
from drivable.contract.paging import Pager
from drivable.effects import Transaction, Updated, VersionConflict
from drivable.eval.corpus.documents.data import TYPES, join, parts, size_label
from drivable.eval.corpus.documents.domain import (
    FILTERS,
    facet,
    filters_of,
    folder_gone,
    not_found,
    reread,
    row_of,
    share_id,
)
from drivable.eval.corpus.documents.models import (
    CURSOR_LIFETIME_S,
    NAME,
    VERSION,
    DeleteFolderInput,
    DeleteFolderOutput,
    DeleteInput,
    DeleteOutput,
    DocumentDetail,
    FolderRow,
    GetInput,
    GetOutput,
    ListInput,
    ListOutput,
    MoveInput,
    MoveOutput,
    SearchInput,
    SearchOutput,
    ShareInput,
    ShareOutput,
    ShareRow,
)
from drivable.eval.corpus.documents.store import Store, query_words
from drivable.kinds.text_folding import words


def make_contract(store: Store) -> Contract:
    """The documents contract on a prepared store (`await store.prepare()` first)."""
    if not store.secret:
        raise RuntimeError("prepare the store before building the contract")
    contract = Contract(
        NAME,
        version=VERSION,
        title="Documents",
        summary=Summary(
            text=(
                "A document store with folders. Find documents with search_documents (words, "
                "folder, owner, type, modified dates, size) or browse with list_folder; read one "
                "with get_document; move or rename, share and delete with the other tools. Call "
                "search_documents first."
            ),
            does=[
                "search documents by words, folder, owner, type, modified date and size",
                "list a folder's folders and documents",
                "read a document's details and its text, a part at a time",
                "move or rename a document",
                "share a document with a person as viewer or editor",
                "delete a document or a folder, after a dry run",
            ],
            does_not=[
                "upload or edit a document's content",
                "create folders",
                "restore deleted documents",
            ],
        ),
    )
    contract.use_effects(store.store, store.secret)
    pager = Pager(secret=store.secret, lifetime_s=CURSOR_LIFETIME_S)

    @contract.tool(
        description=(
            "Find documents by words in their name or text, folder, owner, type, modified date "
            "and size; words in the name rank first, then the newest. Use it first, to get the "
            "document_id other tools take. An empty page under filters names the search that "
            "would find some."
        ),
        effects=READ_ONLY,
        errors=["invalid_cursor", "cursor_expired"],
        examples=[{"query": "<the user's words>", "type": "<file type>"}],
        more=(
            "Every filter is optional and they combine. folder includes the folders below it. "
            "Sizes are binary (1 MB = 1024 KB); min_size and max_size are inclusive, and so are "
            "modified_from and modified_to (a bare year or month covers all of it). Pass "
            "next_cursor back as cursor for the next page."
        ),
    )
    async def search_documents(args: SearchInput, call: Call) -> SearchOutput:
        start = pager.offset(call, args)
        filters = filters_of(args.query, args.model_dump(mode="json"))
        async with store.using(None) as tx:
            rows, total = await store.search(tx, filters, start, args.limit)
            if not rows and start == 0:
                await call.relax(
                    args,
                    FILTERS,
                    count=lambda kept: store.count(tx, filters_of(kept.get("query"), kept)),
                    facet=lambda name, kept: facet(
                        store, tx, filters_of(kept.get("query"), kept), name
                    ),
                    noun="document",
                    query="query",
                )
        page = pager.page(call, args, start, len(rows), start + len(rows) < total)
        return SearchOutput(
            results=[row_of(r) for r in rows],
            total=total,
            has_more=page.has_more,
            next_cursor=page.next_cursor,
        )

    @contract.tool(
        description=(
            "List a folder's folders and its documents, a page at a time, by name, newest, "
            "oldest, largest or smallest first. Use it to browse; omit folder for the top. If "
            "the folder does not exist, the error names the folders there are."
        ),
        effects=READ_ONLY,
        errors=["not_found", "invalid_cursor", "cursor_expired"],
        examples=[{"folder": "<folder path>", "sort": "<order>"}],
        more="Pass next_cursor back as cursor for the next page of documents.",
    )
    async def list_folder(args: ListInput, call: Call) -> ListOutput:
        start = pager.offset(call, args)
        async with store.using(None) as tx:
            if not await store.folder_exists(tx, args.folder):
                raise folder_gone(args.folder)
            folders = await store.subfolders(tx, args.folder)
            rows, total = await store.listing(tx, args.folder, args.sort, start, args.limit)
        page = pager.page(call, args, start, len(rows), start + len(rows) < total)
        return ListOutput(
            folder=args.folder,
            folders=[FolderRow(folder=f, documents=d, folders=s) for f, d, s in folders],
            documents=[row_of(r) for r in rows],
            total_documents=total,
            has_more=page.has_more,
            next_cursor=page.next_cursor,
        )

    @contract.tool(
        description=(
            "Read a document's details (path, owner, version, who it is shared with) and its "
            "text, a part at a time: next_call reads the next part, `find` jumps to the part with "
            "given words. Use it to read or quote a document; an unknown id is not found, with "
            "the search to make. "
            'Example: {"document_id": "<document_id of a search result>"}.'
        ),
        effects=READ_ONLY,
        errors=["not_found"],
        more=(
            "A text is cut into parts of at most 2000 characters, at paragraph ends. find looks "
            "for every word in any case, from part on; without a part that has them it shows "
            "part and says so."
        ),
    )
    async def get_document(args: GetInput, call: Call) -> GetOutput:
        async with store.using(None) as tx:
            found = await store.document(tx, args.document_id)
            if found is None:
                raise not_found(args.document_id)
            row, text = found
            shares = await store.shares(tx, row.document_id)
            owner_name = await store.person(tx, row.owner) or row.owner
        cut = parts(text)
        if args.part > len(cut):
            raise ToolError(
                "invalid_arguments",
                f"{row.name} has {len(cut)} part{'s' if len(cut) > 1 else ''}; there is no part "
                f"{args.part}.",
                hint=f"Call get_document with part 1 to {len(cut)}; part {len(cut)} is the last.",
                issues=[
                    Issue(
                        "part",
                        "out_of_range",
                        f"The text has {len(cut)} parts.",
                        received=args.part,
                        expected=f"1 to {len(cut)}",
                        has_received=True,
                    )
                ],
            )
        shown = args.part
        if args.find:
            wanted = query_words(args.find)
            having = [i for i in range(args.part, len(cut) + 1) if _has(cut[i - 1], wanted)]
            if having:
                shown = having[0]
            else:
                again = {"document_id": row.document_id}
                call.warn(
                    "no_hits",
                    f"No part of {row.name} from part {args.part} on has every word of "
                    f"{args.find!r}; this is part {args.part}. Next call: get_document "
                    f"{json.dumps(again)}",
                    "find",
                )
        if shown < len(cut):
            following = {"document_id": row.document_id, "part": shown + 1}
            call.follow("get_document", following)
        return GetOutput(
            document=DocumentDetail(
                **row_of(row).model_dump(),
                path=join(row.folder, row.name),
                size_bytes=row.size_bytes,
                owner_name=owner_name,
                shared_with=[ShareRow(email=e, role=r) for e, r in shares],
            ),
            part=shown,
            parts=len(cut),
            text=cut[shown - 1],
        )

    @contract.tool(
        description=(
            "Move a document to another folder, rename it, or both. Use it when the user asks to "
            "move, file or rename a document; expected_version is the version a search returned "
            "(a stale one is refused with the re-read). "
            'Example: {"document_id": "<document_id of a search result>", "expected_version": '
            '"<its version>", "folder": "<folder path>"}.'
        ),
        effects=UPDATE,
        errors=["not_found", "conflict", "state_conflict"],
        more=(
            "A document keeps its extension when the new name has none. A name another "
            "document in the target folder has is state_conflict. Resending a move that already "
            "happened answers unchanged."
        ),
    )
    async def move_document(args: MoveInput, call: Call) -> MoveOutput:
        async with store.using(call.transaction) as tx:
            found = await store.document(tx, args.document_id)
            if found is None:
                raise not_found(args.document_id)
            row = found[0]
            if args.folder is not None and not await store.folder_exists(tx, args.folder):
                raise folder_gone(args.folder)
            folder = args.folder or row.folder
            name = (
                row.name
                if args.new_name is None
                else _with_extension(args.new_name.strip(), row.type)
            )
            if args.new_name is not None and name != args.new_name.strip():
                call.note(f"Kept the document's extension: the name is {name!r}.")
            if (folder, name) == (row.folder, row.name):
                return MoveOutput(
                    status="unchanged",
                    document=row_of(row),
                    summary=f"{row.name} is already in {row.folder} under that name.",
                )
            taken = await store.name_taken(tx, folder, name, row.document_id)
            if taken is not None:
                raise ToolError(
                    "state_conflict",
                    f"{folder} already has a document named {name} ({taken}).",
                    hint="Ask the user for another name, or list the folder with list_folder "
                    "(the call in `repair`) to see the names taken.",
                    repair=Repair("list_folder", {"folder": folder}, "see_the_names_taken"),
                )
            outcome = await tx.compare_and_set(
                "docs_documents",
                key={"document_id": row.document_id},
                expected_version=args.expected_version,
                values={"folder": folder, "name": name},
                reread_tool="get_document",
                reread_arguments={"document_id": row.document_id},
            )
            if isinstance(outcome, VersionConflict):
                raise ToolError(
                    "conflict",
                    f"{row.name} is at version {row.version}, not {args.expected_version}: it "
                    "changed since it was read.",
                    hint="Re-read it with get_document (the call in `repair`), check the move "
                    "still makes sense, and resend with its version as expected_version.",
                    issues=[
                        Issue(
                            "expected_version",
                            "out_of_range",
                            f"The current version is {row.version}.",
                            received=args.expected_version,
                            expected=str(row.version),
                            has_received=True,
                        )
                    ],
                    repair=reread(row.document_id),
                    details={"current_version": row.version},
                )
            assert isinstance(outcome, Updated)
            fresh = await store.document(tx, row.document_id)
            assert fresh is not None
        moved, renamed = folder != row.folder, name != row.name
        status = "moved_and_renamed" if moved and renamed else "moved" if moved else "renamed"
        return MoveOutput(
            status=status,
            document=row_of(fresh[0]),
            summary=f"{join(row.folder, row.name)} is now {join(folder, name)}.",
        )

    @contract.tool(
        description=(
            "Share a document by email as viewer (reads it) or editor (can change it); the "
            "person gets an invitation. Use it when the user gives someone access. "
            'Example: {"document_id": "<document_id of a search result>", "email": "<their '
            'email>", "role": "<viewer or editor>", "idempotency_key": "<a key you generate>"}.'
        ),
        effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=True),
        errors=["not_found"],
        more=(
            "Sharing again with the same role changes nothing; with the other role it changes "
            "the role. The invitation email goes out once per idempotency_key."
        ),
    )
    async def share_document(args: ShareInput, call: Call) -> ShareOutput:
        async with store.using(call.transaction) as tx:
            found = await store.document(tx, args.document_id)
            if found is None:
                raise not_found(args.document_id)
            row = found[0]
            held = await store.holder(tx, row.document_id, args.email)
            # the address as the store has it when its mailbox holds the document already
            email = held[1] if held else args.email
            if held and held[0] == "owner":
                status, summary = "owner", f"{email} owns {row.name}; nothing to share."
            elif held and held[0] == args.role:
                status = "already_shared"
                summary = f"{row.name} was already shared with {email} as {args.role}."
            else:
                await tx.upsert(
                    "docs_shares",
                    key={"document_id": row.document_id, "email": email},
                    values={"role": args.role},
                )
                status = "role_changed" if held else "shared"
                summary = f"Shared {row.name} with {email} as {args.role}."
            if status != "owner":
                # the share the result reports: a delete of its document is said on a replay
                tx.made("share", share_id(row.document_id, email))
            after = await store.shares(tx, row.document_id)
        return ShareOutput(
            status=status,
            document_id=row.document_id,
            email=email,
            role=args.role,
            shared_with=[ShareRow(email=e, role=r) for e, r in after],
            summary=summary,
        )

    @contract.tool(
        description=(
            "Delete one document for good, after a dry run that shows it. Use it only when the "
            'user asks to delete a document. Example: {"document_id": "<document_id of a search '
            'result>", "dry_run": true}.'
        ),
        effects=DELETE,
        errors=["not_found"],
        more="A deleted document cannot be restored.",
    )
    async def delete_document(args: DeleteInput, call: Call) -> DeleteOutput:
        async with store.using(call.transaction) as tx:
            found = await store.document(tx, args.document_id)
            if found is None:
                raise not_found(args.document_id)
            row = found[0]
            where = join(row.folder, row.name)
            if args.dry_run:
                return DeleteOutput(
                    status="would_delete",
                    document_id=row.document_id,
                    path=where,
                    summary=f"Would delete {where} ({size_label(row.size_bytes)}).",
                )
            await _undo_shares(tx, await store.delete_document(tx, row.document_id))
        return DeleteOutput(
            status="deleted", document_id=row.document_id, path=where, summary=f"Deleted {where}."
        )

    @contract.tool(
        description=(
            "Delete a folder and everything in it for good, after a dry run that says how many "
            "documents would go. Use it only when the user asks to delete a folder."
        ),
        effects=DELETE,
        errors=["not_found", "state_conflict"],
        examples=[{"folder": "<folder path>", "dry_run": True}],
        more="The top folder cannot be deleted. Deleted documents cannot be restored.",
    )
    async def delete_folder(args: DeleteFolderInput, call: Call) -> DeleteFolderOutput:
        if args.folder == "/":
            raise ToolError(
                "state_conflict",
                "The top folder cannot be deleted.",
                hint="Ask the user which folder to delete; list_folder (the call in `repair`) "
                "shows the folders.",
                repair=Repair("list_folder", {}, "see_the_folders"),
            )
        async with store.using(call.transaction) as tx:
            if not await store.folder_exists(tx, args.folder):
                raise folder_gone(args.folder)
            documents, folders, size = await store.subtree(tx, args.folder)
            what = (
                f"{args.folder} and everything in it: {documents} document"
                f"{'' if documents == 1 else 's'} in {folders + 1} folder"
                f"{'' if folders == 0 else 's'} ({size_label(size)})"
            )
            if not args.dry_run:
                await _undo_shares(tx, await store.delete_folder(tx, args.folder))
        return DeleteFolderOutput(
            status="would_delete" if args.dry_run else "deleted",
            folder=args.folder,
            documents=documents,
            folders=folders,
            size=size_label(size),
            summary=f"Would delete {what}." if args.dry_run else f"Deleted {what}.",
        )

    return contract


async def _undo_shares(tx: Transaction, shares: list[tuple[str, str]]) -> None:
    """A replay of a share of a deleted document says it was deleted since."""
    for document_id, email in shares:
        await tx.undo("share", share_id(document_id, email))


def _has(text: str, wanted: tuple[str, ...]) -> bool:
    folded = words(text)
    return all(w in folded for w in wanted)


def _with_extension(name: str, kind: str) -> str:
    """A new name ends in the document's own extension: added when missing, and in place of
    another type's (renaming converts nothing)."""
    stem, dot, ext = name.rpartition(".")
    if dot and ext.lower() in TYPES:
        name = stem
    return f"{name}.{kind}"


def serve() -> Contract:
    """The contract on the store the environment names, else on a scratch store of its own."""
    store = Store()
    store.prepare_blocking()
    return make_contract(store)


__all__ = ["make_contract", "serve"]
