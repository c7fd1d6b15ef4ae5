"""``backalley serve``: the game server, until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
from types import FrameType
from typing import Any

from backalley.cli.common import UsageError
from backalley.i18n import _


def cmd_serve(args: argparse.Namespace) -> int:
    """``backalley serve``: the game server, until interrupted."""
    from backalley.server.app import create_app
    from backalley.server.store import default_url, in_memory

    url = args.db or default_url()
    node = None
    if args.redis is not None:
        from sqlalchemy.engine import make_url

        if make_url(url).get_backend_name() != "postgresql":
            raise UsageError(
                _(
                    "several nodes share one PostgreSQL database: with --redis, give "
                    "--db postgresql://user:password@host/database"
                )
            )
        import importlib.util

        if importlib.util.find_spec("redis") is None:
            raise UsageError(
                _("several nodes need the redis package: pip install 'backalley[cluster]'")
            )
        from backalley.server.cluster import default_node_id

        node = args.node_id or default_node_id()
    elif args.node_id is not None:
        raise UsageError(_("--node-id names a node of several: give --redis too"))
    if in_memory(url):
        raise UsageError(
            _(
                "an SQLite database in memory cannot hold a server's tables (each of its "
                "threads would see a database of its own, and a restart would lose every "
                "game): give a file, --db sqlite:///backalley.db"
            )
        )
    try:  # bound before anything starts, so that a port in use is the first thing said
        listener = socket.create_server((args.host, args.port))
        # Each answer goes out at once: the connections accepted inherit TCP_NODELAY (asyncio
        # sets it only on sockets made with IPPROTO_TCP, which create_server's are not), else
        # a response's second write waits on the client's delayed ACK, 40 ms a request.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as error:
        raise UsageError(
            _("cannot listen on {host} port {port}: {reason}").format(
                host=args.host, port=args.port, reason=error.strerror
            )
        ) from None
    port = listener.getsockname()[1]
    host = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    address = f"http://{host}:{port}/"

    def _announce(resumed: int) -> None:
        print(_("backalley server at {address}").format(address=address), flush=True)
        print(
            _("database {url}; {count} unfinished tables resumed").format(
                url=_safe_url(url), count=resumed
            ),
            flush=True,
        )
        if node is not None:
            print(_("node {node} of several, through Redis").format(node=node), flush=True)

    def _solver(stage: str, seconds: float) -> None:
        if stage == "preparing":
            text = _(
                "preparing the solver for the strong bots, claims and reviews; until it is "
                "ready, the strong bots play as medium ones and their games are not rated"
            )
        elif stage == "still":
            text = _(
                "still preparing the solver: {seconds} s (it is compiled once on a "
                "machine, then loaded in a second)"
            ).format(seconds=round(seconds))
        else:
            text = _("the solver is ready, after {seconds} s").format(seconds=round(seconds))
        print(text, flush=True)

    app = create_app(
        url,
        workers=args.workers,
        tables_per_minute=args.tables_per_minute,
        guesses_per_minute=args.guesses_per_minute,
        sign_ins_per_minute=args.sign_ins_per_minute,
        sign_ups_per_hour=args.sign_ups_per_hour,
        on_ready=_announce,
        on_solver=_solver,
        redis=args.redis,
        node=node,
        bot_api=args.bot_api,
    )
    config = uvicorn_config(app, args.connections_per_address, args.forwarded_allow_ips)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stops cleanly, then passes it on
        _server(config, app).run(sockets=[listener])
    print(_("server stopped"), flush=True)
    return 0


def uvicorn_config(app: Any, per_address: int, forwarded_allow_ips: str | None = None) -> Any:
    """uvicorn's settings for the server's ``app``: its guarded protocols (``per_address``
    connections an address), frames of at most 64 KiB, uncompressed."""
    import uvicorn

    from backalley.server.connections import protocols

    return uvicorn.Config(
        app,
        log_level="warning",
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,  # uncompressed: compressing costs CPU on every frame sent
        lifespan="on",
        timeout_graceful_shutdown=5,
        forwarded_allow_ips=forwarded_allow_ips,
        **protocols(per_address),
    )


def _server_class() -> Any:
    import uvicorn

    class DrainingServer(uvicorn.Server):
        """uvicorn's server; a node of several told to stop (SIGTERM) first hands its tables
        over to the other nodes, then stops as uvicorn does."""

        def __init__(self, config: uvicorn.Config, app: Any) -> None:
            super().__init__(config)
            self.app = app
            self.draining: asyncio.Task[None] | None = None
            self.drain_asked = False

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            cluster = getattr(self.app.state, "cluster", None)
            if sig != signal.SIGTERM or cluster is None or self.should_exit:
                super().handle_exit(sig, frame)
                return
            if not self.drain_asked:  # a second SIGTERM while draining changes nothing
                self.drain_asked = True
                loop = asyncio.get_event_loop()
                loop.call_soon_threadsafe(self._drain, cluster)

        def _drain(self, cluster: Any) -> None:
            async def drain() -> None:
                try:
                    await cluster.drain()
                finally:
                    self.should_exit = True

            self.draining = asyncio.ensure_future(drain())

    return DrainingServer


def _server(config: Any, app: Any) -> Any:
    """uvicorn's server for ``app`` (made here so that uvicorn is imported only to serve)."""
    return _server_class()(config, app)


def _safe_url(url: str) -> str:
    """A database URL without its password, to print."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
