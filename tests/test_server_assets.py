"""The browser client's files over the wire: gzipped when the browser asks, kept a year under
the release's address, the page revalidated every time (an empty 304 when unchanged), a new
release seen at once, and the close codes the client reads written from the server's own."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from backalley.server import protocol
from backalley.server.assets import FOREVER, WEB, Assets, accepts_gzip
from server_support import server  # noqa: F401  (the fixture)

pytestmark = pytest.mark.server


def fetch(base: str, path: str, **headers: str) -> tuple[int, Any, bytes]:
    """Status, headers and body of ``GET path``, as sent (not unzipped)."""
    request = urllib.request.Request(base + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def page_files(base: str) -> list[str]:
    """The addresses of the files the page names."""
    status, _, body = fetch(base, "/")
    assert status == 200
    return re.findall(r'"(/static/[^"]+)"', body.decode())


def test_the_page_names_its_files_under_its_release_and_they_are_kept_a_year(
    server: Any,  # noqa: F811
) -> None:
    files = page_files(server.base)
    release = Assets().release
    assert files == [f"/static/{release}/style.css", f"/static/{release}/app.js"]
    for path in files:
        status, headers, _ = fetch(server.base, path)
        assert status == 200 and headers["cache-control"] == FOREVER, path
    status, headers, _ = fetch(server.base, "/")
    assert headers["cache-control"] == "no-cache"  # the page itself is always asked again


def test_every_file_is_gzipped_when_the_browser_asks_and_only_then(
    server: Any,  # noqa: F811
) -> None:
    release = Assets().release
    for name in [path.name for path in WEB.glob("*.js")] + ["style.css", "protocol.js"]:
        path = f"/static/{release}/{name}"
        status, headers, zipped = fetch(server.base, path, **{"Accept-Encoding": "gzip, br"})
        assert status == 200 and headers["content-encoding"] == "gzip", name
        assert "accept-encoding" in headers["vary"].lower()
        status, headers, plain = fetch(server.base, path, **{"Accept-Encoding": "identity"})
        assert status == 200 and headers["content-encoding"] is None, name
        assert gzip.decompress(zipped) == plain
        if name.endswith(".js") and len(plain) > 2000:
            assert len(zipped) < len(plain) / 2, name
        refused = fetch(server.base, path, **{"Accept-Encoding": "gzip;q=0"})[1]
        assert refused["content-encoding"] is None, name


def test_the_rest_is_gzipped_too_when_long_enough(server: Any) -> None:  # noqa: F811
    status, headers, body = fetch(server.base, "/api/i18n/es", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(body))["lang"] == "es"


def test_a_page_seen_before_comes_back_empty_until_a_new_release(
    server: Any,  # noqa: F811
) -> None:
    status, headers, _ = fetch(server.base, "/t/abc")
    tag = headers["etag"]
    status, headers, body = fetch(server.base, "/t/abc", **{"If-None-Match": tag})
    assert status == 304 and body == b"" and headers["etag"] == tag
    assert fetch(server.base, "/t/abc", **{"If-None-Match": 'W/"other"'})[0] == 200


def test_a_file_changed_is_a_new_release_under_a_new_address(tmp_path: Path) -> None:
    folder = tmp_path / "web"
    shutil.copytree(WEB, folder)
    before = Assets(folder)
    assert Assets(folder).release == before.release  # the same files: the same address
    (folder / "cards.js").write_text((folder / "cards.js").read_text() + "\n// changed\n")
    after = Assets(folder)
    assert after.release != before.release
    assert f"/static/{after.release}/app.js".encode() in after.page.body
    assert before.page.etag != after.page.etag  # the page, revalidated, names the new one


def test_an_old_release_or_an_unknown_file(server: Any) -> None:  # noqa: F811
    status, headers, body = fetch(server.base, "/static/0123456789ab/app.js")
    assert status == 200 and headers["cache-control"] == "no-cache"  # served, not kept
    assert body == (WEB / "app.js").read_bytes()
    assert fetch(server.base, f"/static/{Assets().release}/nothing.js")[0] == 404
    assert fetch(server.base, "/static/../app.py")[0] == 404


def test_the_close_codes_the_client_reads_are_the_servers(server: Any) -> None:  # noqa: F811
    body = fetch(server.base, "/static/protocol.js")[2].decode()
    written = json.loads(re.search(r"Object\.freeze\((\{.*\})\)", body, re.S).group(1))  # type: ignore[union-attr]
    codes = {n[6:]: v for n, v in vars(protocol).items() if n.startswith("CLOSE_")}
    assert written == codes and written["MOVED"] == 1012
    for path in WEB.glob("*.js"):  # and no module holds a copy of its own
        for code in codes.values():
            assert not re.search(rf"\b{code}\b", path.read_text()), (path.name, code)


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("br;q=1.0, gzip;q=0.8", True),
        ("*", True),
        ("GZIP", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0", False),
        ("identity", False),
        ("", False),
        ("br", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_accept_encoding_is_read_as_the_browser_means_it(header: str, takes: bool) -> None:
    assert accepts_gzip(header) is takes
