"""``backalley play`` in a real terminal: tmux runs it, keys are sent, the screen is read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from backalley.record import verify

PROGRAM = Path(sys.executable).with_name("backalley")


def terminal_env(*, colour: bool = True) -> dict[str, str]:
    """The environment of a UTF-8 terminal outside any tmux (``colour=False``: no colour)."""
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    if not colour:
        env["NO_COLOR"] = "1"
    env.pop("TMUX", None)
    return env


def tmux_do(env: dict[str, str], *args: str, check: bool = False) -> str:
    """Run a tmux command; its standard output."""
    tmux = shutil.which("tmux")
    assert tmux, "scripts/test.sh installs tmux"
    done = subprocess.run([tmux, *args], env=env, capture_output=True, text=True, check=check)
    return done.stdout


@contextmanager
def tmux_session(
    name: str, command: str, env: dict[str, str], *, check: bool = False
) -> Iterator[str]:
    """A 110 × 34 tmux session ``name`` running ``command``, killed on the way out."""
    tmux_do(env, "new-session", "-d", "-s", name, "-x", "110", "-y", "34", command, check=check)
    try:
        yield name
    finally:
        tmux_do(env, "kill-session", "-t", name)


def test_a_whole_game_in_tmux_to_the_final_score_sheet(tmp_path):
    save = tmp_path / "game.json"
    command = (
        f"{PROGRAM} play --option hand_sizes=2,1 --partner easy --opponents easy --seed 1 "
        f"--pace 0 --save {save}; sleep 30"
    )
    env = terminal_env(colour=False)  # a terminal without colour: the game must still read

    def tmux(*args: str) -> str:
        return tmux_do(env, *args, check=True)

    with tmux_session(f"backalley-{os.getpid()}", command, env, check=True) as name:
        screen = ""
        for _ in range(600):  # the first run on a machine compiles the solver first
            time.sleep(0.5)
            screen = tmux("capture-pane", "-p", "-t", name)
            if "Your bid" in screen or "thinking" in screen:
                break
        for _ in range(400):
            time.sleep(0.15)
            screen = tmux("capture-pane", "-p", "-t", name)
            if "The game is over" in screen and "Continue" not in screen:
                break
            if "Continue" in screen or "Your card" in screen:
                tmux("send-keys", "-t", name, "Enter")
            elif "Your bid" in screen:
                tmux("send-keys", "-t", name, "b")
        assert "The game is over" in screen, screen[-1500:]
        sheet = [line for line in screen.splitlines() if " = " in line]
        assert len(sheet) == 2, screen  # one row a deal on the score sheet
        tmux("send-keys", "-t", name, "Escape")
        time.sleep(1.0)
        after = tmux("capture-pane", "-p", "-t", name)
        assert "Traceback" not in after and "The game is saved in" in after, after
    assert verify(save.read_text()).exit_code == 0


def test_ctrl_c_and_a_closed_terminal_leave_a_resumable_save(tmp_path):
    save = tmp_path / "game.json"
    env = terminal_env()

    def wait_for(name: str, text: str) -> str:
        for _ in range(600):
            time.sleep(0.2)
            screen = tmux_do(env, "capture-pane", "-p", "-t", name)
            if text in screen:
                return screen
        raise AssertionError(f"{text!r} never appeared")

    start = f"{PROGRAM} play --partner easy --opponents easy --seed 4 --pace 0 --save {save}"
    with tmux_session(f"backalley-c-{os.getpid()}", start + "; sleep 30", env) as name:
        wait_for(name, "Your")
        tmux_do(env, "send-keys", "-t", name, "C-c")
        screen = wait_for(name, "The game is saved in")
        assert "Traceback" not in screen
    first = json.loads(save.read_text())
    assert verify(first).exit_code == 0
    resume = f"{PROGRAM} play --resume {save} --pace 0"
    with tmux_session(f"backalley-h-{os.getpid()}", resume, env) as name:
        wait_for(name, "Your")
    # the terminal closed with the game open
    time.sleep(0.5)
    again = json.loads(save.read_text())
    assert verify(again).exit_code == 0 and again["deals"][0] == first["deals"][0]
