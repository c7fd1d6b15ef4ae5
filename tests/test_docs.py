"""The README and docs/: every link resolves inside the repository, the Python examples run,
and every command is shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backalley.cli import build_parser

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of ``page``."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            found.add(slug)
    return found


def test_the_pages_exist():
    names = {page.name for page in PAGES}
    assert {"README.md", "rules.md", "record.md", "solver.md", "architecture.md"} <= names
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_link_resolves_inside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "shared/" not in text
    for target in LINK.findall(text):
        assert not target.startswith(("http:", "https:")) or "github.com" not in target
        if target.startswith(("http:", "https:", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links to {target}, which does not exist"
        assert linked.is_relative_to(ROOT), f"{page.name} links outside the repository"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), f"{page.name}: no heading #{anchor} in {path}"


def python_examples(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)


def test_the_readme_python_examples_run(tmp_path, monkeypatch):
    examples = python_examples(ROOT / "README.md")
    assert examples
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for code in examples:
        exec(compile(code, "README.md", "exec"), namespace)


def test_the_analysis_page_example_runs(monkeypatch):
    monkeypatch.chdir(ROOT)  # it reads an example record of the repository
    for code in python_examples(ROOT / "docs" / "analysis.md"):
        exec(compile(code, "analysis.md", "exec"), {})


def test_the_readme_shows_every_command():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for command in commands:
        assert f"backalley {command}" in text, command


def test_the_bots_page_examples_run_as_written(capsys):
    """docs/bots.md: the Python example prints what the page shows, and the `backalley bot`
    session answers each line as the page shows."""
    import subprocess
    import sys

    page = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    (code,) = python_examples(ROOT / "docs" / "bots.md")
    exec(compile(code, "bots.md", "exec"), {})
    shown = re.search(r"```text\n(.*?)```", page, re.DOTALL)
    assert shown is not None and capsys.readouterr().out == shown.group(1)
    session = re.search(r"```console\n\$ backalley (bot .*?)\n(.*?)```", page, re.DOTALL)
    assert session is not None
    lines = session.group(2).splitlines()
    asked, answers = lines[0::2], lines[1::2]
    done = subprocess.run(
        [sys.executable, "-m", "backalley", *session.group(1).split()],
        input="\n".join(asked) + "\n", capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == answers
