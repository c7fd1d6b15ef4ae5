"""The routes of accounts, profiles and the leaderboard, and the guard every change a session
cookie authorises passes: its CSRF token and its origin (docs/protocol.md, accounts)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from backalley.cards import N_
from backalley.i18n import explain_in
from backalley.server import players, protocol
from backalley.server.accounts import (
    COOKIE,
    CSRF_HEADER,
    DEVICE_COOKIE,
    DEVICE_DAYS,
    FORMER,
    SESSION_DAYS,
    Accounts,
    Session,
    skeleton,
)
from backalley.server.credentials import digest
from backalley.server.limits import Quota, address_of
from backalley.server.requests import body, catalog_of
from backalley.server.settings import TableError

SIGN_INS_PER_MINUTE = 10  #: sign-ins one address may try at once, and then as many a minute
#: Sign-ins to one account name from devices it does not know: so many at once, and then as
#: many an hour (so at most twice as many in any hour), from any number of addresses.
TRIES_PER_NAME = 10
#: Sign-ins from one device to an account it is known to: so many at once, then an hour.
TRIES_PER_DEVICE = 10
SIGN_UPS_PER_HOUR = 10  #: accounts one address may make at once, and then as many an hour
BAD_CSRF = N_("this change must come from the page, with its session's token")


def same_origin(request: HTTPConnection, required: bool = False) -> bool:
    """Whether the request comes from this server's own pages: its ``Origin`` (which every
    browser sends with a POST and a WebSocket) names this host, or there is none and
    ``required`` is false (an HTTP client that is not a browser, which no cookie of a
    victim's rides along with). A WebSocket's seat is opened by the cookie only with this
    host's ``Origin`` (``required``): nothing else tells a page's socket from another's."""
    origin = request.headers.get("origin")
    if origin is None:
        return not required
    return urlsplit(origin).netloc == request.headers.get("host", "")


class CookieGuard:
    """ASGI middleware: a request that changes something and carries a session cookie must
    come from this server's pages and carry the session's CSRF token in ``X-CSRF-Token``;
    else it is refused (403 ``bad_csrf``) before any route sees it. The session found is left
    in ``scope["state"]["session"]`` for the routes."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        accounts: Accounts = request.app.state.accounts
        session = await accounts.session(request.cookies.get(COOKIE))
        scope.setdefault("state", {})["session"] = session
        changes = request.method not in ("GET", "HEAD", "OPTIONS")
        if (
            changes
            and session is not None
            and not (same_origin(request) and session.allows(request.headers.get(CSRF_HEADER)))
        ):
            error = TableError("bad_csrf", BAD_CSRF)
            answer = protocol.error(error.code, explain_in(error, catalog_of(request)))
            await JSONResponse(answer, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def session_of(request: Request) -> Session | None:
    """The request's live session (found by :class:`CookieGuard`), or ``None``."""
    session: Session | None = request.scope.get("state", {}).get("session")
    return session


def account_of(request: Request) -> str | None:
    session = session_of(request)
    return None if session is None else session.account.id


def _signed_in(request: Request) -> Session:
    session = session_of(request)
    if session is None:
        raise TableError("signed_out", N_("sign in first"))
    return session


def _me(session: Session | None) -> dict[str, Any]:
    if session is None:
        return {"account": None, "csrf": None}
    account = {"id": session.account.id, "name": session.account.name}
    return {"account": account, "csrf": session.csrf}


def _with_cookie(
    request: Request, session: Session, cookie: str, device: str, status: int = 200
) -> Response:
    """The answer of a sign-in or a sign-up: the session's cookie, and the device's (which
    the account now knows)."""
    response = JSONResponse(_me(session), status_code=status)
    secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
    response.set_cookie(
        COOKIE, cookie, max_age=SESSION_DAYS * 86400, path="/", httponly=True, samesite="lax",
        secure=secure,
    )  # fmt: skip
    response.set_cookie(
        DEVICE_COOKIE, device, max_age=DEVICE_DAYS * 86400, path="/api/account",
        httponly=True, samesite="strict", secure=secure,
    )  # fmt: skip
    return response


def _signed_out(request: Request) -> Response:
    response = JSONResponse(_me(None))
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
    return response


def _from_pages(request: Request) -> None:
    """Sign-up and sign-in carry no session yet: their origin is checked instead, so that
    another site cannot sign a visitor in to an account of its own."""
    if not same_origin(request):
        raise TableError("bad_csrf", BAD_CSRF)


def _limit(quota: Quota, key: str) -> None:
    quota.refuse(key, "too_many", N_("too many tries: try again in {seconds} s"))


async def sign_up(request: Request) -> Response:
    _from_pages(request)
    data = await body(request)
    _limit(request.app.state.sign_ups, address_of(request))
    accounts: Accounts = request.app.state.accounts
    session, cookie = await accounts.sign_up(data.get("name"), data.get("password"))
    device = await accounts.remember_device(request.cookies.get(DEVICE_COOKIE), session.account)
    return _with_cookie(request, session, cookie, device, status=201)


async def sign_in(request: Request) -> Response:
    """Sign in. Each try spends one of the name's tries, from any address, before the
    password is checked (so that tries sent at once are counted too); a device that signed in
    to the account before spends its own instead, so that a stranger guessing the name
    never locks its owner out (OWASP's device cookies)."""
    _from_pages(request)
    data = await body(request)
    name = data.get("name")
    accounts: Accounts = request.app.state.accounts
    device = request.cookies.get(DEVICE_COOKIE)
    by_device: Quota = request.app.state.device_tries
    key = digest(device).hex() if device else ""
    if device and await accounts.known_device(device, name) and not by_device.wait(key):
        _limit(by_device, key)
    else:
        _limit(request.app.state.sign_ins, address_of(request))
        _limit(request.app.state.name_tries, skeleton(name) if isinstance(name, str) else "")
    session, cookie = await accounts.sign_in(name, data.get("password"))
    device = await accounts.remember_device(device, session.account)
    return _with_cookie(request, session, cookie, device)


async def sign_out(request: Request) -> Response:
    session = session_of(request)
    if session is not None:
        await request.app.state.accounts.sign_out(session)
    return _signed_out(request)


async def sign_out_everywhere(request: Request) -> Response:
    session = _signed_in(request)
    await request.app.state.accounts.sign_out_everywhere(session.account)
    return _signed_out(request)


async def change_password(request: Request) -> Response:
    session = _signed_in(request)
    data = await body(request)
    _limit(request.app.state.sign_ins, address_of(request))
    await request.app.state.accounts.change_password(
        session, data.get("password"), data.get("new_password")
    )
    return JSONResponse(_me(session))


async def delete_account(request: Request) -> Response:
    """Delete the signed-in account: the seats it holds in games not over are left (a bot
    takes each over), its games keep their places under a neutral name."""
    session = _signed_in(request)
    data = await body(request)
    _limit(request.app.state.sign_ins, address_of(request))
    accounts: Accounts = request.app.state.accounts
    await accounts.check(session.account, data.get("password"))
    tables = request.app.state.tables
    held = await _read(request, players.seats_of, session.account.id)
    for entry in held:
        if entry["status"] in ("open", "playing"):  # on whichever node holds the table
            try:
                await tables.call(entry["table"], "leave_seat", None, session.account.id)
            except TableError as error:
                if error.code != "no_table":
                    raise
    await accounts.delete(session.account)
    await tables.rename(session.account.id, FORMER)
    return _signed_out(request)


async def me(request: Request) -> Response:
    """Who is signed in (``account: null``: nobody), and the CSRF token for the changes."""
    return JSONResponse(_me(session_of(request)))


async def my_tables(request: Request) -> Response:
    """The signed-in account's seats, newest first: so a second device finds its games."""
    session = _signed_in(request)
    return JSONResponse({"seats": await _read(request, players.seats_of, session.account.id)})


async def claim_seats(request: Request) -> Response:
    """The guest seats this browser holds (their tokens) now belong to the signed-in account:
    ``{"seats": [{"table", "token"}]}``, answered with the seats claimed and those refused."""
    session = _signed_in(request)
    data = await body(request)
    wanted = data.get("seats")
    if not isinstance(wanted, list) or len(wanted) > 200:
        raise TableError(
            "bad_field", N_("{field} must be {kind}"), field="seats", kind=N_("a list")
        )
    claimed, refused = [], []
    for entry in wanted:
        table_id = entry.get("table") if isinstance(entry, dict) else None
        token = entry.get("token") if isinstance(entry, dict) else None
        if not isinstance(table_id, str) or not isinstance(token, str):
            refused.append(table_id if isinstance(table_id, str) else None)
            continue
        try:  # on whichever node holds the table
            seat = await request.app.state.tables.call(
                table_id, "claim_seat", token, session.account.id
            )
        except TableError:
            refused.append(table_id)
            continue
        claimed.append({"table": table_id, "seat": seat})
    return JSONResponse({"claimed": claimed, "refused": refused})


async def profile(request: Request) -> Response:
    found = await _read(
        request, players.profile, request.path_params["account"][:16], account_of(request)
    )
    if found is None:
        raise TableError("no_player", N_("there is no such player"))
    return JSONResponse(found)


async def leaderboard(request: Request) -> Response:
    return JSONResponse(await _read(request, players.leaderboard))


async def _read(request: Request, query: Any, *args: Any) -> Any:
    """``query(connection, *args)`` on the store, off the event loop."""
    store = request.app.state.tables.store
    return await store.transaction(lambda connection: query(connection, *args))


ROUTES = [
    Route("/api/account", me),
    Route("/api/account/signup", sign_up, methods=["POST"]),
    Route("/api/account/signin", sign_in, methods=["POST"]),
    Route("/api/account/signout", sign_out, methods=["POST"]),
    Route("/api/account/signout-everywhere", sign_out_everywhere, methods=["POST"]),
    Route("/api/account/password", change_password, methods=["POST"]),
    Route("/api/account/delete", delete_account, methods=["POST"]),
    Route("/api/account/seats", my_tables),
    Route("/api/account/claim", claim_seats, methods=["POST"]),
    Route("/api/players/{account}", profile),
    Route("/api/leaderboard", leaderboard),
]

__all__ = ["ROUTES", "CookieGuard", "account_of", "same_origin", "session_of"]
