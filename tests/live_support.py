"""The server in the test's own process: its app on uvicorn, in a thread, on a free port of
loopback, with the protocols ``backalley serve`` uses. It starts in milliseconds (no
interpreter to start, nothing to import), and its bots think in threads of this process;
a test that is about the process boundary (a kill, a restart) uses server_support's
subprocess instead."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from backalley.cli.serve import uvicorn_config
from backalley.server.app import create_app
from backalley.server.bots import BotPool

#: The limits of a server under test: tables and guesses far faster than a person's.
GENEROUS = {
    "tables_per_minute": 100_000,
    "guesses_per_minute": 100_000,
    "sign_ups_per_hour": 100_000,
}


@dataclass
class Live:
    """A server running in this process: its address and database (as :class:`Server`
    has them; it prints nothing, so ``output`` stays empty)."""

    base: str
    url: str
    output: list[str] = field(default_factory=list)


@contextlib.contextmanager
def running(url: str, **options: Any) -> Iterator[Live]:
    """:func:`live`, as a :class:`Live`."""
    with live(url, **options) as base:
        yield Live(base, url)


@contextlib.contextmanager
def running_daily(url: str, secret: str, **options: Any) -> Iterator[Live]:
    """:func:`running`, its daily deals dealt from ``secret`` (``BACKALLEY_DAILY_SECRET``,
    which the server reads as it starts): the same cards for the test as for the server."""
    os.environ["BACKALLEY_DAILY_SECRET"] = secret
    try:
        with running(url, **options) as held:
            yield held
    finally:
        del os.environ["BACKALLEY_DAILY_SECRET"]


@contextlib.contextmanager
def live(url: str, **options: Any) -> Iterator[str]:
    """A running server on the database ``url``: its base address (``http://127.0.0.1:P``).
    ``options`` go to :func:`create_app` (the generous limits unless given; a pool of
    threads, not warmed up, unless ``pool`` and ``warm_up`` are given), but
    ``connections_per_address``, uvicorn's (100,000 unless given)."""
    import uvicorn

    threads = ThreadPoolExecutor(4, thread_name_prefix="bots")
    per_address = options.pop("connections_per_address", 100_000)
    pool = options.pop("pool", None) or BotPool(2, executor=threads)
    warm_up = options.pop("warm_up", False)
    app = create_app(url, warm_up=warm_up, pool=pool, **(GENEROUS | options))
    server = uvicorn.Server(uvicorn_config(app, per_address))
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        threads.shutdown(cancel_futures=True)
        listener.close()
