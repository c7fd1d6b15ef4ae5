"""Write src/backalley/web/glyphs.js: the outlines of the letters and digits the cards show
(A K Q J 10 9 … 2, B and L for the Bloopers, BIG and LITTLE), from DejaVu Sans Bold as
matplotlib ships it, as SVG path data.

The cards draw their indices as paths, not text: a card button's visible text would
otherwise be "KK" (two corners) where its name says "K♠, king of spades", which WCAG's
"label in name" refuses, and an SVG's text would depend on the reader's fonts. Run it again
only to change the letters: ``.venv/bin/python scripts/card_glyphs.py`` (matplotlib and its
fontTools come with the test extra)."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
from fontTools.pens.svgPathPen import SVGPathPen
from fontTools.pens.transformPen import TransformPen
from fontTools.ttLib import TTFont

LETTERS = "AKQJ1098765432BLIGTE"
EM = 100  #: the glyphs' em, in path units
OUT = Path(__file__).resolve().parent.parent / "src" / "backalley" / "web" / "glyphs.js"


def main() -> None:
    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
    font = TTFont(path)
    scale = EM / font["head"].unitsPerEm
    cmap = font.getBestCmap()
    glyphs = font.getGlyphSet()
    shapes = {}
    for letter in LETTERS:
        name = cmap[ord(letter)]
        pen = SVGPathPen(glyphs, ntos=lambda n: f"{round(n, 1):g}")
        glyphs[name].draw(TransformPen(pen, (scale, 0, 0, -scale, 0, 0)))  # y down, as SVG
        shapes[letter] = [round(glyphs[name].width * scale, 1), pen.getCommands()]
    OUT.write_text(
        "// The letters and digits of the cards' indices as SVG paths (em 100, baseline at 0,\n"
        "// y down), from DejaVu Sans Bold: written by scripts/card_glyphs.py.\n"
        "// DejaVu fonts: Bitstream Vera Fonts Copyright (c) 2003 by Bitstream, Inc.; DejaVu\n"
        "// changes are in the public domain. See LICENSE-DejaVu.txt beside this file.\n"
        f"export const GLYPHS = {json.dumps(shapes, separators=(',', ':'))};\n",
        encoding="utf-8",
    )
    print(f"{OUT}: {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
