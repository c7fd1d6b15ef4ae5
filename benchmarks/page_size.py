"""How much the browser page weighs: its own JavaScript and CSS, and what a visit transfers.

    python benchmarks/page_size.py

First every file of ``src/backalley/web`` that a page may load (its modules and its style
sheet), raw and compressed at level 9 as the server sends it; the target is under 60 KB for
the page that loads the most (the table's). Then real visits: one ``backalley serve``
(SQLite in a temporary folder), Debian's Chromium driven by Playwright, the home page and a
table's page each opened twice in a browser context of its own (nothing kept from before
the first visit), as a player comes back. For each visit, the bytes that crossed the
network (Chromium's own count, headers included) for the page, its JS and CSS and the
rest, and which modules the page loaded. The target for a second visit is at most 5 KB of
JS and CSS together (they are kept under the release's address; only the page is asked
again).
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from rich.console import Console
from rich.table import Table

from backalley.server.assets import Assets
from backalley.server.client import create_table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser_support import CHROMIUM, DESKTOP
from server_support import Server, database

WEB = Path(__file__).resolve().parent.parent / "src" / "backalley" / "web"
TARGET = 60_000
SECOND_VISIT = 5_000  #: bytes of JS and CSS a second visit may transfer


def files_table() -> int:
    """Print the files, raw and gzipped: their gzipped total."""
    files = sorted(WEB.glob("*.js")) + sorted(WEB.glob("*.css"))
    table = Table(title="The browser page's own JavaScript and CSS")
    for column in ("file", "bytes", "gzip"):
        table.add_column(column, justify="right" if column != "file" else "left")
    raw = packed = 0
    for path in files:
        data = path.read_bytes()
        size = len(gzip.compress(data, 9))
        raw, packed = raw + len(data), packed + size
        table.add_row(path.name, f"{len(data):,}", f"{size:,}")
    table.add_row("together", f"{raw:,}", f"{packed:,}", style="bold")
    Console().print(table)
    print(f"every file together, gzipped: {packed / 1000:.1f} KB (no page loads them all)")
    return packed


class Wire:
    """What crossed the network for one page, from Chromium's DevTools events."""

    def __init__(self, page: Any) -> None:
        self.urls: dict[str, str] = {}
        self.kinds: dict[str, str] = {}
        self.bytes: dict[str, float] = defaultdict(float)
        session = page.context.new_cdp_session(page)
        session.send("Network.enable")
        session.on("Network.responseReceived", self._response)
        session.on("Network.loadingFinished", self._finished)

    def _response(self, event: dict[str, Any]) -> None:
        self.urls[event["requestId"]] = event["response"]["url"]
        self.kinds[event["requestId"]] = event.get("type", "Other")

    def _finished(self, event: dict[str, Any]) -> None:
        self.bytes[event["requestId"]] += event["encodedDataLength"]

    def split(self) -> dict[str, float]:
        """The bytes by kind: the page, its JS and CSS, the rest (its API calls)."""
        kinds: dict[str, float] = defaultdict(float)
        for request, size in self.bytes.items():
            url = self.urls.get(request, "")
            if url.endswith((".js", ".css")):
                kinds["js and css"] += size
            elif self.kinds.get(request) == "Document":
                kinds["page"] += size
            else:
                kinds["the rest"] += size
        return kinds

    def modules(self) -> list[str]:
        return sorted({u.rsplit("/", 1)[1] for u in self.urls.values() if u.endswith(".js")})


def visits(base: str) -> list[tuple[str, int, dict[str, float], list[str]]]:
    """The home page and a table's page, each visited twice: what each visit transferred."""
    table = create_table(base, {"hand_sizes": [3, 2]})
    invite = table["invites"][0]["url"]
    found = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, url, ready in (("home", base + "/", "#main h1, #main h2"),
                                 ("table", invite, "#main input, .felt")):  # fmt: skip
            context = browser.new_context(viewport=DESKTOP)  # nothing kept from before
            for visit in (1, 2):
                page = context.new_page()
                wire = Wire(page)
                page.goto(url, wait_until="networkidle")
                page.wait_for_selector(ready)
                found.append((name, visit, wire.split(), wire.modules()))
                page.close()
            context.close()
        browser.close()
    return found


def main() -> None:
    files_table()
    with tempfile.TemporaryDirectory() as folder:
        server = Server.start(database("sqlite", Path(folder)))
        try:
            seen = visits(server.base)
        finally:
            server.stop()
    table = Table(title="What a visit transferred (bytes over the network, headers included)")
    for column in ("page", "visit", "the page", "js and css", "the rest", "modules"):
        table.add_column(column, justify="left" if column == "page" else "right")
    for name, visit, kinds, modules in seen:
        table.add_row(name, f"{visit}", f"{kinds['page']:,.0f}", f"{kinds['js and css']:,.0f}",
                      f"{kinds['the rest']:,.0f}", f"{len(modules)}")  # fmt: skip
    Console().print(table)
    for name, visit, _, modules in seen:
        if visit == 1:
            print(f"the {name} page loads {len(modules)} modules: {' '.join(modules)}")
    assets = Assets()
    for name, visit, _, modules in seen:
        if visit == 1:
            size = sum(len(assets.files[m].gzipped) for m in [*modules, "style.css"])
            print(f"the {name} page's JS and CSS, gzipped: {size / 1000:.1f} KB "
                  f"({size / TARGET:.2f} of the {TARGET // 1000} KB target)")  # fmt: skip
    second = max(kinds["js and css"] for _, visit, kinds, _ in seen if visit == 2)
    print(f"a second visit's JS and CSS: at most {second:,.0f} bytes "
          f"(target at most {SECOND_VISIT:,})")  # fmt: skip


if __name__ == "__main__":
    main()
