"""What every route reads of a request: its JSON body (with limits on its size and its
time), the reader's language, and a bearer token."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.requests import Request

from backalley.cards import N_
from backalley.i18n import LANGUAGES, translator
from backalley.server import protocol
from backalley.server.settings import TableError

BODY_WAIT = 10.0  #: seconds a request's body has to arrive


async def body(request: Request) -> dict[str, Any]:
    """The request's JSON object: refused before it is read if it says it is too long, and
    if it does not come within BODY_WAIT seconds."""
    too_large = TableError(
        "too_large", N_("a request may hold {limit} bytes"), limit=protocol.MAX_FRAME
    )
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > protocol.MAX_FRAME:
        raise too_large
    body = b""
    try:
        async with asyncio.timeout(BODY_WAIT):
            async for chunk in request.stream():
                body += chunk
                if len(body) > protocol.MAX_FRAME:
                    raise too_large
    except TimeoutError:
        raise too_slow() from None
    try:
        data = protocol.strict_loads(body or b"{}")
    except (ValueError, RecursionError):
        raise TableError("bad_json", N_("the request must be one JSON object")) from None
    if not isinstance(data, dict) or not protocol.is_text(json.dumps(data, ensure_ascii=False)):
        raise TableError("bad_json", N_("the request must be one JSON object"))
    return data


def too_slow() -> TableError:
    """The refusal of a request whose body did not come within BODY_WAIT seconds."""
    return TableError(
        "too_slow", N_("the request's body did not come within {seconds} s"), seconds=int(BODY_WAIT)
    )


def catalog_of(request: Request) -> Any:
    wanted = request.headers.get("accept-language", "")
    for part in wanted.split(","):
        code = part.split(";")[0].strip().split("-")[0].lower()
        if code in LANGUAGES:
            return translator(code)
    return translator("en")


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else None


__all__ = ["BODY_WAIT", "bearer", "body", "catalog_of", "too_slow"]
