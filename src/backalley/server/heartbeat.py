"""A node's heartbeat, through Redis: every second it says the node is up, with its public
tables for the lobby, and tells which of the other nodes stopped saying so (their tunnels
end, their tables are read ahead). The lobby of every node is read from those snapshots."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

from backalley.cards import N_

if TYPE_CHECKING:
    from backalley.server.cluster import Cluster

log = logging.getLogger("backalley.server")

ALIVE = 3  #: seconds a node's heartbeat key outlives its last beat
BEAT = 1.0  #: seconds between heartbeats (and lobby snapshots)
PARTIAL = N_("tables held by the other servers cannot be listed just now")


class Heartbeat:
    """One node's heartbeat, and its reading of the others'."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.stopped = False  #: drained: no more heartbeats

    async def nodes(self) -> set[str]:
        """The nodes up now: those with a heartbeat in Redis, else those holding a lease."""
        cluster = self.cluster
        nodes = {cluster.node}
        try:
            async for key in cluster.redis.scan_iter(match=f"{cluster.prefix}:alive:*", count=1000):
                nodes.add(key.decode().rsplit(":", 1)[1])
        except Exception:
            nodes |= await asyncio.to_thread(cluster.leases.live_nodes)
        return nodes

    async def run(self) -> None:
        """Say this node is up, with its public tables for the lobby; end the tunnels of the
        nodes whose heartbeat stopped. A heartbeat Redis does not take says it is away; the
        next it takes, that it is back (and for ALIVE seconds after, no node is taken for
        gone: their heartbeats may not be back in Redis yet)."""
        cluster = self.cluster
        while not self.stopped:
            try:
                lobby = json.dumps(cluster.tables.lobby()).encode()
                try:
                    async with cluster.redis.pipeline(transaction=False) as pipe:
                        pipe.set(cluster.key("alive"), cluster.token, ex=ALIVE)
                        pipe.set(cluster.key("lobby"), lobby, ex=ALIVE)
                        await pipe.execute()
                except Exception as error:
                    cluster.unreachable(error)
                    raise
                cluster.answered()
                peers = sorted((cluster.relay.peers() | set(cluster.relay.dead)) - {cluster.node})
                if peers and not cluster.settling():
                    alive = await cluster.redis.mget([cluster.key("alive", p) for p in peers])
                    for peer, beat in zip(peers, alive, strict=True):
                        if beat is not None:
                            cluster.relay.dead.pop(peer, None)
                        elif peer not in cluster.relay.dead:
                            log.warning("node %s: node %s is gone", cluster.node, peer)
                            cluster.relay.gone(peer)
            except Exception as error:
                log.debug("node %s: no heartbeat: %s", cluster.node, error)
            await asyncio.sleep(BEAT)

    async def lobby(self, here: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        """The lobby of every node: ``here`` (this node's) with the others' snapshots; said
        to be partial when Redis is out of reach."""
        cluster = self.cluster
        merged = {key: list(entries) for key, entries in here.items()}
        seen = {entry["id"] for entries in merged.values() for entry in entries}
        if not cluster.available:  # not worth a timeout: said at once
            return {**merged, "partial": PARTIAL}
        try:
            pattern = f"{cluster.prefix}:lobby:*"
            keys = [k async for k in cluster.redis.scan_iter(match=pattern, count=1000)]
            keys = [k for k in keys if k.decode() != cluster.key("lobby")]
            snapshots = await cluster.redis.mget(keys) if keys else []
        except Exception:
            return {**merged, "partial": PARTIAL}
        for snapshot in snapshots:
            if snapshot is None:
                continue
            for key, entries in json.loads(snapshot).items():
                fresh = [e for e in entries if e["id"] not in seen]
                seen |= {e["id"] for e in fresh}
                merged.setdefault(key, []).extend(fresh)
        return merged


__all__ = ["ALIVE", "BEAT", "PARTIAL", "Heartbeat"]
