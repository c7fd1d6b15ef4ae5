"""The arena's deal sets played on a Ray cluster instead of this machine's processes.

Each Ray task plays a few deal sets with :func:`backalley.arena.play_pair`, as a process of
``--jobs`` would; the results come back in deal-set order, so a match on Ray plays the same
games as one here (with ``repeatable`` bots, the very same). Every node needs this version
of backalley installed with its ``ray`` extra; a task that runs another version is refused.
A task whose worker dies is run again by Ray, from the same seed, so no deal set is lost or
counted twice.
"""

from __future__ import annotations

import importlib
import socket
from collections.abc import Iterator
from typing import Any

from backalley.arena import GameResult, play_pair
from backalley.cards import N_, BackAlleyError
from backalley.rules import Ruleset

_NO_CLUSTER = N_("no Ray cluster answers at {address} ({reason}): start one with ray start --head")
_NOT_RAY = N_(
    "{address} answers, but not as a Ray cluster does (another server holds that port?): "
    "start Ray's head on a free port with ray start --head --port PORT"
)
#: HTTP/2's client preface and an empty SETTINGS frame: Ray's head (gRPC) answers a SETTINGS
#: frame of its own, another server (Redis, a web server) something else or nothing.
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_SETTINGS = 4

#: Deal sets a task: enough to outweigh a task's cost on Ray, few enough to share them out.
SETS_A_TASK = 4


class RayError(BackAlleyError, ValueError):
    """Ray is not installed, or no cluster answers at the address given."""

    def __init__(self, template: str, **params: Any) -> None:
        super().__init__(None, template, **params)


class Played:
    """The nodes that played a match's deal sets, as Ray names them."""

    def __init__(self) -> None:
        self.nodes: set[str] = set()


def play_pairs_on_ray(
    address: str,
    bot_a: str,
    bot_b: str,
    rules: Ruleset,
    seed: int,
    pairs: range,
    repeatable: bool,
    played: Played | None = None,
) -> Iterator[list[GameResult]]:
    """Every deal set of ``pairs``, in order, played by tasks on the cluster at ``address``
    (``auto``: the one ``ray start`` began on this machine).

    :raises RayError: without Ray, or without a cluster at ``address``.
    """
    from backalley import __version__

    ray = connect(address)
    try:
        task = ray.remote(num_cpus=1, max_retries=3)(_play_sets)
        spec = (rules.name, rules.options())
        batches = [pairs[i : i + SETS_A_TASK] for i in range(0, len(pairs), SETS_A_TASK)]
        refs = [task.remote(bot_a, bot_b, spec, seed, list(batch), repeatable) for batch in batches]
        for ref in refs:
            version, node, results = ray.get(ref)
            if version != __version__:
                raise RayError(
                    N_("a Ray node runs backalley {theirs}, this is {ours}: install the same"),
                    theirs=version,
                    ours=__version__,
                )
            if played is not None:
                played.nodes.add(node)
            yield from results
    finally:
        ray.shutdown()


def connect(address: str) -> Any:
    """Ray, connected to the cluster at ``address`` (``auto``: the one ``ray start`` began on
    this machine; ``local``: a new one in this process).

    :raises RayError: without Ray, or without a cluster at ``address``.
    """
    try:
        ray = importlib.import_module("ray")
    except ImportError:
        raise RayError(N_("--ray needs an optional part: pip install 'backalley[ray]'")) from None
    host, _colon, port = address.rpartition(":")
    if host and port.isdigit():  # Ray itself would keep trying for minutes
        try:
            speaks = _speaks_http2(host, int(port))
        except OSError as error:
            raise RayError(
                _NO_CLUSTER,
                address=address,
                reason=error.strerror or type(error).__name__,
            ) from None
        if not speaks:
            raise RayError(_NOT_RAY, address=address)
    try:
        ray.init(address=address, log_to_driver=False, logging_level="error")
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise RayError(
            _NO_CLUSTER,
            address=address,
            reason=str(error).splitlines()[0] if str(error) else type(error).__name__,
        ) from None
    return ray


def _speaks_http2(host: str, port: int) -> bool:
    """Does the server at ``host:port`` answer as gRPC servers, Ray's head among them, do (a
    SETTINGS frame)? Asked because Ray, given another server's address, waits for minutes.

    :raises OSError: if nothing accepts a connection there.
    """
    with socket.create_connection((host, port), timeout=5) as connection:
        connection.settimeout(5)
        connection.sendall(_HTTP2_HELLO)
        try:  # a frame's header is 9 bytes; fewer when the server hangs up or says nothing
            header = connection.recv(9, socket.MSG_WAITALL)
        except OSError:
            header = b""
    return len(header) == 9 and header[3] == _SETTINGS


def _play_sets(
    bot_a: str,
    bot_b: str,
    spec: tuple[str, dict[str, Any]],
    seed: int,
    pairs: list[int],
    repeatable: bool,
) -> tuple[str, str, list[list[GameResult]]]:
    """On a Ray worker: this backalley's version, the node's id, and the deal sets' games."""
    import ray

    from backalley import __version__

    rules = Ruleset.preset(spec[0], **spec[1])
    node = ray.get_runtime_context().get_node_id()
    return __version__, node, [play_pair(bot_a, bot_b, rules, seed, p, repeatable) for p in pairs]
