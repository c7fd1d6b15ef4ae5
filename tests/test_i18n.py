"""Message catalogs: complete, placeholders intact, compiled catalogs current."""

from __future__ import annotations

import gettext
import re

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from backalley.engine import IllegalAction
from backalley.i18n import LANGUAGES, LOCALE_DIR, explain, use_language
from support import deal, game_of, play

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"\{[^}]*\}")


def catalog(lang: str):
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "backalley.po", "rb") as f:
        return read_po(f)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(lang):
    with open(LOCALE_DIR / "backalley.pot", "rb") as f:
        template = {m.id for m in read_po(f) if m.id}
    po = catalog(lang)
    assert {m.id for m in po if m.id} >= template
    for message in po:
        if not message.id:
            continue
        ids = forms(message.id)  # a plural message has a form per number, each translated
        assert "fuzzy" not in message.flags, message.id
        for string in forms(message.string):
            assert string, message.id
            assert set(PLACEHOLDER.findall(string)) == set(PLACEHOLDER.findall(ids[-1]))


def forms(text) -> list[str]:
    """A message's strings: one, or one per plural form."""
    return [text] if isinstance(text, str) else list(text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalog_matches_its_source(lang):
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "backalley.mo", "rb") as f:
        compiled = {tuple(forms(m.id)): forms(m.string) for m in read_mo(f) if m.id}
    source = {tuple(forms(m.id)): forms(m.string) for m in catalog(lang) if m.id}
    assert compiled == source, "run scripts/i18n.sh compile"


def test_engine_refusals_are_shown_in_the_players_language():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass pass")
    with pytest.raises(IllegalAction) as caught:
        game.play("AS")
    try:
        assert use_language("es") == "es"
        spanish = explain(caught.value)
        assert spanish.startswith("P2: ") and "AS" in spanish and "mano" in spanish
    finally:
        use_language("en")
    assert explain(caught.value) == "P2: AS is not in your hand"


def test_unknown_language_falls_back_to_english():
    assert use_language("xx") == "en"
    assert isinstance(gettext.NullTranslations(), gettext.NullTranslations)


def test_the_template_holds_every_marked_string_of_the_code(tmp_path):
    """The catalogs are made from backalley.pot: a string marked in the code but missing from
    it would never be translated (run scripts/i18n.sh update)."""
    import subprocess
    import sys
    from pathlib import Path

    fresh = tmp_path / "fresh.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    root = Path(__file__).parent.parent
    args = ["extract", "-F", "babel.cfg", "-k", "N_", "-k", "_", "-k", "ngettext:1,2"]
    args += ["--no-location", "-o", str(fresh), "src/backalley"]
    subprocess.run([pybabel, *args], cwd=root, check=True, capture_output=True)
    from backalley.server.app import web_messages

    with open(fresh, "rb") as f:
        marked = {m.id for m in read_po(f) if m.id}
    marked |= set(web_messages())  # the browser page's t("…") strings (scripts/web_messages.py)
    with open(LOCALE_DIR / "backalley.pot", "rb") as f:
        template = {m.id for m in read_po(f) if m.id}
    assert marked == template, "run scripts/i18n.sh update"
