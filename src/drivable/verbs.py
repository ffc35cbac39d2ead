"""The verbs a tool name leads with: one vocabulary for the runtime and the auditor.

`READ_VERBS` and `MUTATING_VERBS` are what the auditor reads a name's effect from; `LEADING` is
what the runtime accepts as the verb of a `verb_noun` name (both sets, less the words that lead
names without being verbs). An author adds verbs of their own domain with `Contract(verbs=...)`.
"""

from __future__ import annotations

from collections.abc import Iterable

READ_VERBS = frozenset(
    {
        "get", "list", "search", "find", "read", "describe", "query", "fetch", "show", "lookup",
        "look", "count", "check", "validate", "preview", "explain", "inspect", "view", "browse",
        "summarize", "summarise", "status", "resolve", "diff", "compare", "estimate", "calculate",
        "compute", "convert", "format", "parse", "render", "export", "download", "echo", "ping",
        "whoami", "retrieve", "tell", "current",
    }
)  # fmt: skip
MUTATING_VERBS = frozenset(
    {
        "create", "add", "insert", "new", "make", "post", "put", "patch", "update", "edit", "set",
        "modify", "change", "write", "save", "store", "upload", "delete", "remove", "destroy",
        "drop", "purge", "clear", "erase", "archive", "unarchive", "restore", "move", "rename",
        "copy", "send", "publish", "notify", "email", "message", "reply", "forward", "invite",
        "assign", "unassign", "approve", "reject", "cancel", "close", "open", "reopen", "merge",
        "commit", "push", "pay", "charge", "refund", "void", "transfer", "order", "book", "buy",
        "purchase", "sell", "submit", "execute", "run", "start", "stop", "kill", "restart",
        "deploy", "trigger", "enable", "disable", "grant", "revoke", "reset", "import", "sync",
        "apply", "mark", "tag", "untag", "label", "lock", "unlock", "share", "link", "unlink",
        "register", "unregister", "subscribe", "unsubscribe", "schedule", "checkout", "init",
        "clone", "stage", "unstage", "toggle", "switch", "flip", "increment", "decrement",
        "upsert", "replace", "overwrite", "attach", "detach", "pin", "unpin", "star", "like",
        "follow", "unfollow", "mute", "unmute", "ban", "block", "unblock",
    }
)  # fmt: skip
# The mutating verbs that destroy what they act on: a name, or an action/mode enum member, led by
# one of these is destructive (the auditor's reading, and the wrapper's for a tool it is not told
# the effects of).
DESTRUCTIVE_VERBS = MUTATING_VERBS & frozenset(
    {
        "delete", "remove", "destroy", "drop", "purge", "clear", "erase", "revoke", "kill",
        "reset", "cancel", "void", "unlink", "unregister",
    }
)  # fmt: skip
# Words tool names lead with that name no action ("current_time", "status_of_x", "new_note").
NOT_VERBS = frozenset({"current", "status", "whoami", "new"})
LEADING = (READ_VERBS | MUTATING_VERBS) - NOT_VERBS


def leading(own: Iterable[str] = ()) -> frozenset[str]:
    """LEADING and a domain's own verbs, each one lowercase word as it leads a tool name."""
    verbs = frozenset(own)
    for verb in sorted(verbs):
        if not verb.isascii() or not verb.isalpha() or not verb.islower():
            raise ValueError(f"verb {verb!r}: one lowercase word, as it leads a tool name")
    return LEADING | verbs
