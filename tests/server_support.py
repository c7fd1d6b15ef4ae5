"""A real server for the tests: ``backalley serve`` as a subprocess on loopback, on SQLite in a
temporary folder or on the PostgreSQL server that scripts/test.sh starts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

POSTGRES = os.environ.get("BACKALLEY_TEST_POSTGRES")
POSTGRES_MISSING = os.environ.get(
    "BACKALLEY_TEST_POSTGRES_SKIP",
    "no PostgreSQL server: scripts/test.sh installs and starts one (BACKALLEY_TEST_POSTGRES)",
)


def database(kind: str, folder: Path, request: pytest.FixtureRequest | None = None) -> str:
    """A fresh, empty database of ``kind`` (``sqlite`` or ``postgres``), dropped after the
    test of ``request``."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'server.db'}"
    if not POSTGRES:
        pytest.skip(POSTGRES_MISSING)
    from sqlalchemy import create_engine, text

    name = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()

    def drop() -> None:
        admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()

    if request is not None:
        request.addfinalizer(drop)
    return POSTGRES.rsplit("/", 1)[0] + "/" + name


@dataclass
class Server:
    """A running ``backalley serve`` and what it printed."""

    url: str
    process: subprocess.Popen[str]
    base: str = ""
    output: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, url: str, port: int = 0, tables_per_minute: int = 100_000) -> Server:
        """Start a server; the tests make tables faster than a person would, hence the high
        ``tables_per_minute``."""
        env = dict(os.environ, LANGUAGE="en", PYTHONUNBUFFERED="1")
        process = subprocess.Popen(
            [sys.executable, "-m", "backalley", "serve", "--port", str(port), "--db", url,
             "--workers", "2", "--tables-per-minute", str(tables_per_minute)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )  # fmt: skip
        server = cls(url, process)
        deadline = time.monotonic() + 60
        assert process.stdout is not None
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("the server stopped: " + "".join(server.output))
            server.output.append(line)
            found = re.search(r"at (http://\S+)/", line)
            if found:
                server.base = found.group(1)
                break
        server.output.append(process.stdout.readline())  # the database line
        threading.Thread(target=server._drain, daemon=True).start()
        return server

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    def kill(self) -> None:
        """``SIGKILL``: no chance to tidy up."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
