"""Stage: the caller's credential grants every scope the tool declares."""

from __future__ import annotations

from drivable.contract.call import Principal
from drivable.contract.envelope import Envelope
from drivable.contract.stages.base import Attempt, Refused


def missing_scopes(scopes: tuple[str, ...], principal: Principal) -> list[str]:
    if principal.scopes is None:
        return []
    return [s for s in scopes if s not in principal.scopes]


def check_access(attempt: Attempt) -> None:
    """Refuse with `insufficient_scope`, naming the scopes and where a person grants them."""
    spec = attempt.tool
    missing = missing_scopes(spec.scopes, attempt.principal)
    if not missing:
        return
    url = attempt.contract.settings_url
    where = f" A person can grant them at {url}." if url else ""
    scopes = ", ".join(missing)
    raise Refused(
        Envelope(
            "insufficient_scope",
            f"{spec.name} needs the scopes {scopes}, which this credential lacks.",
            hint=f"Ask the user for a credential with the scopes {scopes}.{where}",
            details={"required_scopes": list(missing)},
        )
    )
