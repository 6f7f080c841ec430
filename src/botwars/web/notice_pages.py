"""The page a turn-notice confirmation link opens (issue 25 item 6), over
:class:`botwars.server.notices.NoticeService` (``app.state.notices``); mounted by
:func:`botwars.web.install_web`.

- ``GET /notices/confirm?token=T`` — says which address the link is for and offers two buttons:
  "Yes, mail me turn notices" and "No, never mail me". Opening the page changes nothing (mail
  scanners open links); only a button does.
- ``POST /notices/confirm?token=T&agree=1`` (or ``agree=0``) — the button's answer
  (:meth:`NoticeService.answer`), then a page saying what was recorded.

A link that is not valid answers 404 with a page saying so.
"""

from __future__ import annotations

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse

from botwars.server.manager import ApiError
from botwars.web.rendering import page, refused_page


def install_notice_pages(app: FastAPI) -> None:
    """Mount the confirmation page on ``app`` (a server app with ``app.state.notices``)."""
    svc = getattr(app.state, "notices", None)
    if svc is None:
        return

    def refused(request: Request, exc: ApiError) -> HTMLResponse:
        return refused_page(request, exc, "This link is not valid",
                            message="This confirmation link is not valid. Copy the whole link from the mail "
                                    "into the address bar; if it still fails, nothing will be mailed to you.")

    @app.get("/notices/confirm", response_class=HTMLResponse, include_in_schema=False)
    def confirm_page(request: Request, token: str = Query("", max_length=128)) -> HTMLResponse:
        try:
            found = svc.lookup(token)
        except ApiError as exc:
            return refused(request, exc)
        return page("notice_confirm.html", address=found["address"], status=found["status"], token=token,
                    answered=False)

    @app.post("/notices/confirm", response_class=HTMLResponse, include_in_schema=False)
    def confirm_answer(request: Request, token: str = Query("", max_length=128),
                       agree: bool = Query(...)) -> HTMLResponse:
        try:
            done = svc.answer(token, agree)
        except ApiError as exc:
            return refused(request, exc)
        return page("notice_confirm.html", address=done["address"], status=done["status"], token=token,
                    answered=True)
