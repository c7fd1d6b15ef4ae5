"""docs/deploy.md's nginx configuration, run as written (ports and certificate aside) in
front of two nodes on PostgreSQL and Redis: a game played through ``wss://`` to its end, the
node holding the table killed on the way."""

from __future__ import annotations

import asyncio
import re
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from backalley.server.client import create_table, take_seat
from backalley.server.client import request as http
from server_support import (
    REDIS,
    REDIS_MISSING,
    Server,
    assert_verified_finished,
    database,
    free_port,
    run,
    stored_log,
    wait_for_port,
)
from test_cluster import Roamer, _check_log

pytestmark = pytest.mark.cluster

DOC = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"


def _nginx_site() -> str:
    """The configuration docs/deploy.md gives for nginx."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- deploy:nginx -->\n```nginx\n(.*?)```", text, re.S)
    assert found, "docs/deploy.md lost its nginx configuration"
    return found.group(1)


@pytest.fixture
def proxy(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, list[Server]]]:
    """Two nodes behind nginx with TLS, as docs/deploy.md sets them up: the proxy's address
    and the nodes."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)  # fmt: skip
    if nginx is None:
        pytest.skip("no nginx: scripts/test.sh installs Debian's")
    if not REDIS:
        pytest.skip(REDIS_MISSING)
    url = database("postgres", tmp_path, request)
    ports = [free_port(), free_port()]
    nodes = [Server.start(url, port=p, redis=REDIS, node_id=f"n{p}") for p in ports]
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    tls, plain = free_port(), free_port()
    site = (
        _nginx_site()
        .replace("127.0.0.1:8001", f"127.0.0.1:{ports[0]}")
        .replace("127.0.0.1:8002", f"127.0.0.1:{ports[1]}")
        .replace("listen 443 ssl;", f"listen 127.0.0.1:{tls} ssl;")
        .replace("listen 80;", f"listen 127.0.0.1:{plain};")
        .replace("/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert))
        .replace("/etc/letsencrypt/live/play.example.org/privkey.pem", str(key))
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"daemon off;\nuser root;\npid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
        f"events {{}}\nhttp {{\n  access_log off;\n  client_body_temp_path {tmp_path}/body;\n"
        f"  proxy_temp_path {tmp_path}/proxy;\n{site}\n}}\n"
    )
    server = subprocess.Popen([nginx, "-c", str(conf), "-p", str(tmp_path)])
    wait_for_port(tls, server, lambda: (tmp_path / "error.log").read_text())
    yield f"https://localhost:{tls}", nodes
    server.terminate()
    server.wait(10)
    for node in nodes:
        node.stop()


def test_a_game_through_nginx_with_tls_outlives_the_node_holding_its_table(
    proxy: tuple[str, list[Server]],
) -> None:
    base, nodes = proxy
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    owner = nodes[0]
    table = create_table(owner.base, {"hand_sizes": [4, 3, 2], "pace": 0})
    tokens = [take_seat(nodes[s % 2].base, table, s, f"P{s}") for s in range(4)]
    players = [Roamer([base], table["id"], token=tokens[s], seed=s, ssl=context)
               for s in range(4)]  # fmt: skip
    before: list[object] = []

    async def kill_mid_game() -> None:
        while sum(len(p.acked) for p in players) < 8:
            await asyncio.sleep(0.02)
        before.extend(await asyncio.to_thread(stored_log, owner.url, table["id"]))
        owner.kill()

    async def scenario() -> None:
        await asyncio.gather(kill_mid_game(), *(p.run() for p in players))

    run(scenario())
    assert all(p.over for p in players)
    assert sum(p.sessions for p in players) > 4  # some came back through the proxy
    path = f"/api/tables/{table['id']}/record"
    assert_verified_finished(http(nodes[1].base, "GET", path, token=table["watch"]["code"])[1])
    _check_log(owner.url, table["id"], before, players)  # type: ignore[arg-type]
    # The page itself, through the proxy, over TLS.
    import urllib.request

    with urllib.request.urlopen(base + "/", context=context, timeout=10) as page:
        assert page.status == 200 and b"<html" in page.read().lower()
