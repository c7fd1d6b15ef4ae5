"""``backalley play`` in a real terminal: tmux runs it, keys are sent, the screen is read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from backalley.record import verify


def test_a_whole_game_in_tmux_to_the_final_score_sheet(tmp_path):
    tmux = shutil.which("tmux")
    assert tmux, "scripts/test.sh installs tmux"
    save = tmp_path / "game.json"
    program = Path(sys.executable).with_name("backalley")
    name = f"backalley-{os.getpid()}"
    command = (
        f"{program} play --option hand_sizes=2,1 --partner easy --opponents easy --seed 1 "
        f"--pace 0 --save {save}; sleep 30"
    )
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    env["NO_COLOR"] = "1"  # a terminal without colour: the game must still read
    env.pop("TMUX", None)

    def tmux_do(*args: str) -> str:
        done = subprocess.run([tmux, *args], env=env, capture_output=True, text=True, check=True)
        return done.stdout

    tmux_do("new-session", "-d", "-s", name, "-x", "110", "-y", "34", command)
    try:
        screen = ""
        for _ in range(600):  # the first run on a machine compiles the solver first
            time.sleep(0.5)
            screen = tmux_do("capture-pane", "-p", "-t", name)
            if "Your bid" in screen or "thinking" in screen:
                break
        for _ in range(400):
            time.sleep(0.15)
            screen = tmux_do("capture-pane", "-p", "-t", name)
            if "The game is over" in screen and "Continue" not in screen:
                break
            if "Continue" in screen or "Your card" in screen:
                tmux_do("send-keys", "-t", name, "Enter")
            elif "Your bid" in screen:
                tmux_do("send-keys", "-t", name, "b")
        assert "The game is over" in screen, screen[-1500:]
        sheet = [line for line in screen.splitlines() if " = " in line]
        assert len(sheet) == 2, screen  # one row a deal on the score sheet
        tmux_do("send-keys", "-t", name, "Escape")
        time.sleep(1.0)
        after = tmux_do("capture-pane", "-p", "-t", name)
        assert "Traceback" not in after and "The game is saved in" in after, after
    finally:
        subprocess.run([tmux, "kill-session", "-t", name], env=env, capture_output=True)
    assert verify(save.read_text()).exit_code == 0


def test_ctrl_c_and_a_closed_terminal_leave_a_resumable_save(tmp_path):
    tmux = shutil.which("tmux")
    assert tmux
    save = tmp_path / "game.json"
    program = Path(sys.executable).with_name("backalley")
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    env.pop("TMUX", None)

    def tmux_do(*args: str) -> str:
        done = subprocess.run([tmux, *args], env=env, capture_output=True, text=True)
        return done.stdout

    def wait_for(name: str, text: str) -> str:
        for _ in range(600):
            time.sleep(0.2)
            screen = tmux_do("capture-pane", "-p", "-t", name)
            if text in screen:
                return screen
        raise AssertionError(f"{text!r} never appeared")

    name = f"backalley-c-{os.getpid()}"
    start = f"{program} play --partner easy --opponents easy --seed 4 --pace 0 --save {save}"
    tmux_do("new-session", "-d", "-s", name, "-x", "110", "-y", "34", start + "; sleep 30")
    try:
        wait_for(name, "Your")
        tmux_do("send-keys", "-t", name, "C-c")
        screen = wait_for(name, "The game is saved in")
        assert "Traceback" not in screen
    finally:
        subprocess.run([tmux, "kill-session", "-t", name], env=env, capture_output=True)
    first = json.loads(save.read_text())
    assert verify(first).exit_code == 0
    name = f"backalley-h-{os.getpid()}"
    resume = f"{program} play --resume {save} --pace 0"
    tmux_do("new-session", "-d", "-s", name, "-x", "110", "-y", "34", resume)
    try:
        wait_for(name, "Your")
    finally:  # the terminal closes with the game open
        subprocess.run([tmux, "kill-session", "-t", name], env=env, capture_output=True)
    time.sleep(0.5)
    again = json.loads(save.read_text())
    assert verify(again).exit_code == 0 and again["deals"][0] == first["deals"][0]
