"""How the server answers a request it refuses or fails: a refusal as an error object with
the status its code calls for (docs/protocol.md, error codes), in the reader's language; a
write the store did not take as ``not_stored``; a client gone mid-request with nothing; any
other failure as ``server_error``, logged in full."""

from __future__ import annotations

import logging

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from backalley.cards import N_
from backalley.i18n import explain_in
from backalley.server import protocol
from backalley.server.limits import wrong_guess
from backalley.server.requests import catalog_of
from backalley.server.settings import TableError
from backalley.server.sockets import NOT_STORED
from backalley.server.store import StoreError

log = logging.getLogger("backalley.server")

_STATUS = {
    "bad_field": 400, "bad_rules": 400, "bad_name": 400, "bad_json": 400, "too_large": 413,
    "no_seat": 404, "no_table": 404, "forbidden": 403, "seat_taken": 409, "not_started": 409,
    "no_daily": 404, "daily_started": 409,
    "no_deal": 404, "deal_running": 409, "no_language": 404, "not_finished": 409,
    "too_many": 429, "too_many_guesses": 429, "ended": 409, "started": 409, "too_slow": 408,
    "recovering": 503, "not_stored": 503, "bad_password": 400, "name_taken": 409,
    "bad_sign_in": 401, "bad_csrf": 403, "signed_out": 401, "no_player": 404, "seated": 409,
    "no_match": 404, "moved": 503, "unreachable": 503, "no_answer": 504, "bad_knowledge": 400,
}  # fmt: skip


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, TableError)
    if exc.code == "forbidden":
        wrong_guess(request)
    answer = protocol.error(exc.code, explain_in(exc, catalog_of(request)), error=exc)
    response = JSONResponse(answer, status_code=_STATUS.get(exc.code, 400))
    if exc.code in ("too_many", "too_many_guesses"):
        response.headers["retry-after"] = str(exc.params["seconds"])
    elif exc.code == "unreachable":  # a node of several, out of reach a moment
        response.headers["retry-after"] = "2"
    return response


async def gone(request: Request, exc: Exception) -> Response:
    """The client left in the middle of its request: nothing was done, and no one reads the
    answer."""
    log.debug("%s %s: the client left before its body came", request.method, request.url.path)
    return Response(status_code=400)


async def not_stored(request: Request, exc: Exception) -> Response:
    log.warning("%s %s: not stored: %s", request.method, request.url.path, exc)
    return await refused(request, TableError("not_stored", NOT_STORED))


async def failed(request: Request, exc: Exception) -> Response:
    log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
    text = catalog_of(request).gettext(N_("the server could not handle this request"))
    return JSONResponse(protocol.error("server_error", text), status_code=500)


#: The app's exception handlers.
HANDLERS = {TableError: refused, StoreError: not_stored, ClientDisconnect: gone, Exception: failed}

__all__ = ["HANDLERS", "refused"]
