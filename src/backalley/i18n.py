"""Translations of every string a player reads (gettext catalogs compiled with Babel).

The catalogs live in ``backalley/locale/<lang>/LC_MESSAGES/backalley.po`` (sources) and
``.mo`` (compiled); English is the source language. The language comes from ``--lang``, or
else from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` or ``LANG``, as gettext does.

The engine never translates (it does no I/O): it marks its messages with ``N_`` and every
error of the package (:class:`~backalley.cards.BackAlleyError`) carries its template and
parameters, which :func:`explain` renders in the reader's language.
"""

from __future__ import annotations

import functools
import gettext as _gettext
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from backalley.cards import BackAlleyError
    from backalley.rules import Ruleset

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "backalley"
LANGUAGES = ("en", "es", "nl", "ro", "tr")

_translations: _gettext.NullTranslations = _gettext.NullTranslations()
_language = "en"


def use_language(language: str | None = None) -> str:
    """Switch every later message to ``language`` (or the environment's); returns the one used."""
    global _translations, _language
    wanted = [language] if language else _environment_languages()
    for lang in wanted:
        code = lang.split(".")[0].split("_")[0].lower()
        if code == "en":
            break
        if code in LANGUAGES:
            _translations = translator(code)
            _language = code
            return code
    _translations = translator("en")
    _language = "en"
    return "en"


def language() -> str:
    """The code of the language in use: ``en``, ``es``, ``nl``, ``ro`` or ``tr``."""
    return _language


def _environment_languages() -> list[str]:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return value.split(":")
    return []


def _(message: str) -> str:
    """The translation of ``message`` in the language in use."""
    return _translations.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The translation of a message whose form depends on ``count``."""
    return _translations.ngettext(singular, plural, count)


def trump_name(trump: int | None, lone_joker: int | None = None) -> str:
    """``trump ♥``, ``no trump``, or ``only BJ is trump`` (a lone joker, D8), in the reader's
    language."""
    from backalley.cards import SUIT_SYMBOLS, card_name

    if trump is None and lone_joker is not None:
        return _("only {card} is trump").format(card=card_name(lone_joker))
    return _("no trump") if trump is None else _("trump {suit}").format(suit=SUIT_SYMBOLS[trump])


def side_name(rules: Ruleset, side: int) -> str:
    """A side as the score sheet names it: ``side 0 (seats 0 & 2)``, or ``seat 1`` when a
    player is a side alone (``classic3``)."""
    seats = rules.seats_of(side)
    if len(seats) == 1:
        return _("seat {seat}").format(seat=seats[0])
    return _("side {side} (seats {a} & {b})").format(side=side, a=seats[0], b=seats[1])


def explain(error: BackAlleyError) -> str:
    """An error of the package in the reader's language, led by its rule id when it has one
    (an engine refusal: ``"P3: …"``)."""
    return explain_in(error, _translations)


@functools.cache
def translator(language: str | None) -> _gettext.NullTranslations:
    """The catalog of ``language`` (``en`` or an unknown code: the English source), for a reader
    whose language is not the process's — a connection to the server."""
    code = (language or "en").split("-")[0].split("_")[0].lower()
    if code not in LANGUAGES or code == "en":
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])


def explain_in(error: BackAlleyError, catalog: _gettext.NullTranslations) -> str:
    """:func:`explain` in the language of ``catalog``."""
    params = {k: catalog.gettext(v) if isinstance(v, str) else v for k, v in error.params.items()}
    message = catalog.gettext(error.template).format(**params)
    return message if error.rule is None else f"{error.rule}: {message}"
