"""The server's gate for untrusted bot uploads (issue 12, item 2 and "Done when").

The league (issue 15, item 4; :mod:`botwars.server.league`) calls
:func:`require_upload_isolation` before it accepts, replaces or plays an uploaded bot: where this machine isolates
bots below the operator's minimum (``BOTWARS_SANDBOX_MIN``, default ``full``; levels in
:data:`botwars.agents.sandbox.LEVELS`), the upload is refused with HTTP 503 and a message naming
the level reached, the one required and why (the same words as ``botwars sandbox check``).
"""

from __future__ import annotations

import os

from botwars.agents import sandbox
from botwars.server.manager import ApiError


def require_upload_isolation(minimum: str | None = None) -> sandbox.Report:
    """Check, before accepting an uploaded bot, that bots are isolated at least at ``minimum``
    (default: ``BOTWARS_SANDBOX_MIN``, else ``full``). Returns the sandbox
    :class:`~botwars.agents.sandbox.Report` (its ``level`` is what the upload will run under).

    Raises :class:`~botwars.server.manager.ApiError` 503 ``sandbox_unavailable`` when the level
    is lower (the message says which level this machine has, which is required and why), and
    503 ``sandbox_misconfigured`` when the configured minimum is not a known level.
    The probe is cached by :func:`botwars.agents.sandbox.probe` (one probe per process).
    """
    try:
        return sandbox.require_level(minimum)
    except sandbox.SandboxUnavailable as exc:
        raise ApiError(503, "sandbox_unavailable", f"uploads are refused: {exc}") from None
    except ValueError as exc:
        raise ApiError(503, "sandbox_misconfigured",
                       f"uploads are refused: BOTWARS_SANDBOX_MIN: {exc}") from None


def uploads_off_reason(minimum: str | None = None) -> str | None:
    """``None`` when uploads are accepted here; else why not, in words for the lobby (issue 25
    item 10): the level this machine isolates bots at, the one uploads need (``minimum``,
    default ``BOTWARS_SANDBOX_MIN``, else ``full``) and what keeps it lower."""
    try:
        sandbox.require_level(minimum)
    except sandbox.SandboxUnavailable:
        report = sandbox.probe()
        need = minimum or os.environ.get("BOTWARS_SANDBOX_MIN", "").strip() or "full"
        why = "; ".join(report.reasons) or "no isolation layer works here"
        return (f"this machine can isolate bots only at level '{report.level}', and uploads need '{need}' "
                f"({why}). The operator can run 'botwars sandbox check' to see what is missing.")
    except ValueError as exc:
        return f"the operator's setting BOTWARS_SANDBOX_MIN is wrong: {exc}."
    return None
