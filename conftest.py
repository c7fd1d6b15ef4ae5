"""Doctests of the compiled modules are collected from their sources, which pytest will not
import over the compiled extension: when compiled, they run in the plain-Python pass instead
(``BACKALLEY_PURE=1``, see scripts/test.sh)."""

from collections.abc import Iterator

import pytest

import backalley
from backalley.i18n import use_language

collect_ignore: list[str] = (
    [
        "src/backalley/cards.py",
        "src/backalley/rules.py",
        "src/backalley/engine.py",
    ]
    if backalley.COMPILED
    else []
)
# The adapters to Stable-Baselines3 and RLlib import them, and torch, in seconds: each test
# process collects every module, so their examples run in the one process that runs their
# tests instead (tests/test_env_sb3.py, tests/test_env_rllib.py).
collect_ignore += ["src/backalley/env/sb3.py", "src/backalley/env/rllib.py"]


def pytest_terminal_summary(terminalreporter):  # type: ignore[no-untyped-def]
    """How many page states axe-core checked (tests/test_web_a11y.py), added up over the
    workers."""
    checked = [
        value
        for report in terminalreporter.stats.get("passed", [])
        for name, value in report.user_properties
        if name == "axe_checked"
    ]
    if checked:
        terminalreporter.write_line(
            f"axe-core: {sum(checked)} page states checked ({len(checked)} runs of sizes and "
            "languages), none with a serious or critical violation"
        )


@pytest.fixture(autouse=True)
def _english_after_each_test() -> Iterator[None]:
    """A test that switches the messages' language (``backalley --lang es`` in process) does
    not leave it switched for the next test on the same worker."""
    yield
    use_language("en")
