"""The browser client's files as a page fetches them.

Each file is read and compressed once, at the server's start. The page (``index.html``) names
them under an address that holds the release, ``/static/<release>/app.js``, the release being a
digest of every file: such an answer never changes, so the browser keeps it a year and a second
visit fetches nothing but the page, which it always revalidates (an empty ``304``). A new
release is a new address, seen at the next load. The modules import each other by relative
paths, so they all stay under the release's address.

``protocol.js`` is written here from :mod:`backalley.server.protocol` (its close codes), so that
the client and the server read them from one source.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from backalley.server import protocol

WEB = Path(__file__).resolve().parent.parent / "web"  #: the browser client's files
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
FOREVER = "public, max-age=31536000, immutable"  #: an answer under the release's address
REVALIDATE = "no-cache"  #: the page, and a file under no release: asked again every time


def protocol_module() -> str:
    """``protocol.js``: the close codes of :mod:`~backalley.server.protocol`, by name."""
    codes = {
        name.removeprefix("CLOSE_"): value
        for name, value in vars(protocol).items()
        if name.startswith("CLOSE_") and isinstance(value, int)
    }
    return (
        "// Written by the server from backalley/server/protocol.py: the WebSocket close codes.\n"
        f"export const CLOSE = Object.freeze({json.dumps(codes, indent=2)});\n"
    )


@dataclass(frozen=True)
class Asset:
    """One file: as it is, gzipped, its media type and its entity tag."""

    body: bytes
    gzipped: bytes
    media: str
    etag: str

    @classmethod
    def of(cls, name: str, body: bytes) -> Asset:
        digest = hashlib.sha256(body).hexdigest()[:16]
        media = TYPES[Path(name).suffix]
        return cls(body, gzip.compress(body, 9, mtime=0), media, f'W/"{digest}"')

    def response(self, request: Request, cache: str) -> Response:
        """This file as ``request`` may take it (gzipped if it asks so), or ``304`` when it
        holds this version already."""
        headers = {"cache-control": cache, "etag": self.etag, "vary": "accept-encoding"}
        if self.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if accepts_gzip(request.headers.get("accept-encoding", "")):
            headers["content-encoding"] = "gzip"
            return Response(self.gzipped, headers=headers, media_type=self.media)
        return Response(self.body, headers=headers, media_type=self.media)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip``, ``*``, not at ``q=0``)."""
    for part in accept_encoding.split(","):
        coding, _, weight = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            quality = weight.strip().removeprefix("q=")
            try:
                return not weight or float(quality) > 0
            except ValueError:
                return False
    return False


class Assets:
    """The client's files, from ``folder``, and the page that names them by release."""

    def __init__(self, folder: Path = WEB) -> None:
        bodies = {
            path.name: path.read_bytes()
            for path in sorted(folder.iterdir())
            if path.is_file() and path.suffix in TYPES
        }
        bodies["protocol.js"] = protocol_module().encode()
        digest = hashlib.sha256()
        for name, body in sorted(bodies.items()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.release = digest.hexdigest()[:12]
        page = bodies.pop("index.html").replace(b'"/static/', f'"/static/{self.release}/'.encode())
        self.page = Asset.of("index.html", page)
        self.files = {name: Asset.of(name, body) for name, body in bodies.items()}

    async def index(self, request: Request) -> Response:
        """The page: one for every route, which reads its route from the address."""
        return self.page.response(request, REVALIDATE)

    async def released(self, request: Request) -> Response:
        """A file under a release's address: kept a year. An address of another release (a
        page loaded before this node was updated) is answered with this release's file,
        not to be kept."""
        asset = self._file(request)
        current = request.path_params["release"] == self.release
        return asset.response(request, FOREVER if current else REVALIDATE)

    async def plain(self, request: Request) -> Response:
        """A file under no release (``/static/app.js``): revalidated every time."""
        return self._file(request).response(request, REVALIDATE)

    def _file(self, request: Request) -> Asset:
        asset = self.files.get(request.path_params["name"])
        if asset is None:
            raise HTTPException(404)
        return asset


__all__ = ["FOREVER", "REVALIDATE", "WEB", "Asset", "Assets", "accepts_gzip", "protocol_module"]
