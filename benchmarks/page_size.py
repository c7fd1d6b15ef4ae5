"""How much the browser page's own JavaScript and CSS weigh, raw and gzip-compressed.

    python benchmarks/page_size.py

Every file of ``src/backalley/web`` that the page loads (its modules and its style sheet),
each compressed on its own at level 9 as a server would send it; the target is under 60 KB
together.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from rich.console import Console
from rich.table import Table

WEB = Path(__file__).resolve().parent.parent / "src" / "backalley" / "web"
TARGET = 60_000


def main() -> None:
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
    share = packed / TARGET
    print(f"gzip together: {packed / 1000:.1f} KB, {share:.2f} of the {TARGET // 1000} KB target")


if __name__ == "__main__":
    main()
