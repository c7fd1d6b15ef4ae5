"""The arena's games a second on a Ray cluster of two local nodes, one CPU each, against one
process on one CPU: the same match (repeatable bots, one seed) played both ways.

    python benchmarks/arena_ray.py [--bots expert,hard] [--games 40]
        [--hand-sizes 7,6,5,4,3,2,1,2,3,4,5,6,7] [--address HOST:PORT]

Starts the two nodes with ``ray start`` as docs/env.md does (``pip install -e '.[ray]'``),
and stops them afterwards; or, with ``--address``, uses the cluster already there and leaves
it running. On a 2-core machine the speed-up is at most two.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path

from backalley.arena import run_match
from backalley.rules import Ruleset

RAY = str(Path(sys.executable).parent / "ray")


def start_two_nodes() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    quiet = {"check": True, "capture_output": True}
    subprocess.run([RAY, "start", "--head", "--port", str(port), "--num-cpus", "1",
                    "--include-dashboard", "false", "--disable-usage-stats"], **quiet)  # fmt: skip
    subprocess.run([RAY, "start", "--address", f"127.0.0.1:{port}", "--num-cpus", "1",
                    "--disable-usage-stats"], **quiet)  # fmt: skip
    return f"127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="expert,hard")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--hand-sizes", default="7,6,5,4,3,2,1,2,3,4,5,6,7")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--address", help="a running cluster's head (default: start two nodes)")
    args = parser.parse_args()
    bot_a, bot_b = args.bots.split(",")
    rules = Ruleset.preset("standard", hand_sizes=[int(x) for x in args.hand_sizes.split(",")])
    address = args.address or start_two_nodes()
    try:
        timings = {}
        for way, ray in (("one process, one CPU", None), ("Ray, two nodes of one CPU", address)):
            start = time.perf_counter()
            report = run_match(bot_a, bot_b, rules, args.games, args.seed, 1,
                               repeatable=True, ray=ray)  # fmt: skip
            timings[way] = (time.perf_counter() - start, report)
        (one, first), (two, second) = timings.values()
        assert [r.record for r in first.results] == [r.record for r in second.results]
        print(f"{bot_a} vs {bot_b}, {first.games} games of {args.hand_sizes} cards, the same "
              "games both ways\n")  # fmt: skip
        print("| where | seconds | games a second |\n|---|---:|---:|")
        for way, (seconds, report) in timings.items():
            print(f"| {way} | {seconds:.1f} | {report.games / seconds:.2f} |")
        print(f"\nspeed-up: {one / two:.2f}×")
    finally:
        if not args.address:
            subprocess.run([RAY, "stop", "--force"], capture_output=True)


if __name__ == "__main__":
    main()
