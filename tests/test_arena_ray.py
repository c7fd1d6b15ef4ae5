"""The arena on a Ray cluster of two nodes started here as docs/env.md starts them: the same
games as in one process, played on both nodes, and a clear error where no cluster is."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import ray_support
from ray_support import BIN, HEAD, NODE, free_port
from support import needs

needs("ray", reason="the ray extra: pip install -e '.[ray]'")

cluster = ray_support.cluster

pytestmark = pytest.mark.ray


def ray_section_commands() -> list[str]:
    """The shell commands of docs/env.md's section on Ray, comments and installs left out."""
    import re

    text = (Path(__file__).parent.parent / "docs" / "env.md").read_text(encoding="utf-8")
    section = text.split("## Beyond one machine", 1)[1].split("\n## ", 1)[0]
    lines = [c.split("#")[0].strip() for b in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
             for c in b.splitlines()]  # fmt: skip
    return [c for c in lines if c and not c.startswith("pip install")]


def test_the_env_page_ray_commands_run_on_the_two_nodes(cluster: str, tmp_path: Path) -> None:
    """Each command of the page's section on Ray: the nodes started as the fixture starts them,
    the match and the benchmark run against them with smoke settings (seconds, not minutes)."""
    commands = ray_section_commands()
    assert commands[:2] == [
        "ray " + " ".join(HEAD).format(port=6379),
        "ray " + " ".join(NODE).format(head="HEAD:6379"),
    ]
    assert commands[-2] == "ray stop"  # the fixture's teardown (--force: a test must not hang)
    match, benchmark = commands[2], commands[-1]
    assert match.startswith("backalley arena ") and match.endswith(" --ray HEAD:6379")
    # a few games: that a match spreads over both nodes is the next test's to show
    words = match.replace("--games 400", "--games 8").replace("HEAD:6379", cluster).split()
    done = subprocess.run([str(BIN / "backalley"), *words[1:], "--out", "match"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Played on 1 Ray node" in done.stdout and len(list((tmp_path / "match").iterdir())) == 8
    assert benchmark.startswith("python benchmarks/arena_ray.py ")
    words = benchmark.replace("--games 40", "--games 4").split()[1:]
    words[words.index("--hand-sizes") + 1] = "3,2,1"
    root = Path(__file__).parent.parent
    done = subprocess.run([sys.executable, *words, "--address", cluster],
                          capture_output=True, text=True, timeout=300, cwd=root)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "| Ray, two nodes of one CPU |" in done.stdout and "speed-up:" in done.stdout


def arena(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    return subprocess.run(
        [str(BIN / "backalley"), "arena", "heuristic", "easy", "--option", "hand_sizes=3,2,1",
         "--games", "32", "--seed", "5", "--repeatable", *args],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp,
    )  # fmt: skip


def test_the_arena_on_two_ray_nodes_plays_the_games_of_one_process(
    cluster: str, tmp_path: Path
) -> None:
    on_ray = arena(tmp_path, "--ray", cluster, "--out", "ray")
    assert on_ray.returncode == 0, on_ray.stderr
    assert "Played on 2 Ray nodes" in on_ray.stdout
    here = arena(tmp_path, "--out", "here")
    assert here.returncode == 0, here.stderr
    records = sorted(p.name for p in (tmp_path / "here").iterdir())
    assert len(records) == 32
    assert records == sorted(p.name for p in (tmp_path / "ray").iterdir())
    for name in records:
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "here" / name).read_text()
    # The table's figures are the same too (the lines after the title, before Ray's line).
    assert on_ray.stdout.splitlines()[:9] == here.stdout.splitlines()[:9]


def test_no_cluster_at_the_address_is_said_at_once_and_plays_nothing(tmp_path: Path) -> None:
    result = arena(tmp_path, "--ray", f"127.0.0.1:{free_port()}", "--out", "none")
    assert result.returncode == 2
    assert "no Ray cluster answers at 127.0.0.1:" in result.stderr
    assert not (tmp_path / "none").exists() or not any((tmp_path / "none").iterdir())


def test_another_server_at_the_address_is_said_at_once_and_plays_nothing(tmp_path: Path) -> None:
    """A server that is not Ray's head (here one that answers as Redis does, which also
    listens on 6379 by default) is named at once: Ray itself would wait for minutes."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(64)
            connection.sendall(b"-ERR unknown command 'PRI'\r\n")

    server = threading.Thread(target=answer, daemon=True)
    server.start()
    with listener:
        result = arena(tmp_path, "--ray", f"127.0.0.1:{port}", "--out", "none")
    server.join(timeout=5)
    assert result.returncode == 2, result.stderr
    assert f"127.0.0.1:{port} answers, but not as a Ray cluster does" in result.stderr
    assert not (tmp_path / "none").exists() or not any((tmp_path / "none").iterdir())


def test_jobs_and_ray_together_are_refused(tmp_path: Path) -> None:
    result = arena(tmp_path, "--ray", "auto", "--jobs", "2")
    assert result.returncode == 2 and "--jobs and --ray" in result.stderr
