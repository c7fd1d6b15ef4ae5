"""A Ray cluster of two nodes on this machine, as docs/env.md starts one, for the tests that
need Ray: one at a time on the machine, whichever test process asks (``ray stop`` stops
every Ray of the machine, so a second cluster would be stopped under the first's tests)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
HEAD = ("start", "--head", "--port", "{port}", "--num-cpus", "1")
NODE = ("start", "--address", "{head}", "--num-cpus", "1")
QUIET = ("--include-dashboard", "false", "--disable-usage-stats")
LOCK = Path(tempfile.gettempdir()) / "backalley-tests-ray.lock"
# Ray turns on token authentication when ~/.ray holds a token (a ray.init() of this machine
# writes one), and then a second node started by ray start is refused by the head.
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
# A task on each node: both nodes have a worker up before the tests time anything on them.
BOTH_UP = """
import sys, time, ray
ray.init(address=sys.argv[1], log_to_driver=False, logging_level="error")
@ray.remote(num_cpus=1)
def node():
    time.sleep(0.5)
    return ray.get_runtime_context().get_node_id()
deadline = time.monotonic() + 60
while len(set(ray.get([node.remote() for _ in range(4)]))) < 2 and time.monotonic() < deadline:
    pass
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ray(*args: str) -> None:
    subprocess.run(
        [str(BIN / "ray"), *args], check=True, capture_output=True, timeout=180, env=os.environ
    )


@contextlib.contextmanager
def alone() -> Iterator[None]:
    """Ray on this machine for this test process alone, until the block ends."""
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A head node and a second node on this machine, one CPU each: the head's address."""
    with alone():
        port = free_port()
        head = f"127.0.0.1:{port}"
        ray(*(w.format(port=port) for w in HEAD), *QUIET)
        try:
            ray(*(w.format(head=head) for w in NODE), QUIET[-1])
            subprocess.run([sys.executable, "-c", BOTH_UP, head], check=True, timeout=120)
            yield head
        finally:
            ray("stop", "--force")
