// Card art: every face and the back as an inline SVG string (viewBox 60×84, 5:7) built from
// four suit paths, a pip layout table and the letters' outlines (glyphs.js: no text, so a card
// shows no text but its name, and needs no font). Suits colour through --suit-S/H/D/C; the
// caller sizes the svg with CSS. No ids or files are referenced, so any number can share a page.
import { GLYPHS } from "./glyphs.js";

const OPEN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 84" class="art" aria-hidden="true" focusable="false">';
const INK = { S: "#1b1b1b", H: "#c0151d", D: "#c0151d", C: "#1b1b1b" };
const RANKS = { T: "10" };
const dot = (x, y, r) => `M${+(x - r).toFixed(2)} ${y}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0-${2 * r} 0`;
const dots = (r, ...xy) => xy.map(([x, y]) => dot(x, y, r)).join("");
// Suit shapes, centred on 0,0 and about 20 units across.
const SUIT = {
  S: "M0-10C-3-5-10-2-10 3c0 3.5 2.5 5 5 5 2 0 3.5-1 4.2-2.5-.2 2.2-1.2 4-2.9 5.5h7.4c-1.7-1.5-2.7-3.3-2.9-5.5.7 1.5 2.2 2.5 4.2 2.5 2.5 0 5-1.5 5-5C10-2 3-5 0-10Z",
  H: "M0 9.5C-4 5.5-10 1.5-10-3.5c0-4 3-6.5 5.7-6.5 2 0 3.6 1.2 4.3 3.2.7-2 2.3-3.2 4.3-3.2 2.7 0 5.7 2.5 5.7 6.5C10 1.5 4 5.5 0 9.5Z",
  D: "M0-10.5Q3-4.5 8 0 3 4.5 0 10.5-3 4.5-8 0-3-4.5 0-10.5Z",
  C: `${dots(4.6, [0, -5], [-5.2, 2], [5.2, 2])}${dot(0, 0, 2.6)}M-.9 2Q-1 8-4 10.5h8Q1 8 .9 2Z`,
};
// Court marks, about 16 units across: a crown, a pearl circlet, a feathered cap.
const MARK = {
  K: "M-8 3-9-6l4.5 4L0-8l4.5 6L9-6 8 3ZM-8 4.5h16V7H-8Z",
  Q: `M-8 6Q0 1 8 6L7 1Q0-3-7 1Z${dots(1.7, [-7, -0.6], [-3.3, -3.1], [0, -5.5], [3.3, -3.1], [7, -0.6])}`,
  J: "M-7 4Q-7-4 1-4Q7-4 7 4ZM-9 4h18v3H-9ZM2-3.5Q6-11 11-10Q7-6 5-3Z",
};
// Pip centres: columns l c r, rows a (top) to i (bottom); pips below the middle are turned.
const X = { l: 22.5, c: 30, r: 37.5 };
const Y = { a: 13.5, b: 23, c: 27.8, d: 32.5, e: 42, f: 51.5, g: 56.2, h: 61, i: 70.5 };
const PIPS = {
  2: "ca ci", 3: "ca ce ci", 4: "la ra li ri", 5: "la ra ce li ri", 6: "la ra le re li ri",
  7: "la ra cc le re li ri", 8: "la ra cc le re cg li ri", 9: "la ra ld rd ce lf rf li ri",
  T: "la ra cb ld rd lf rf ch li ri",
};
// The Little Blooper's jester hat: three floppy points with bells (shine) on a band.
const HAT = ["M-10 8C-12 5-16 3-19 1-17-6-11-9-7-6-4-3-3 3-3 8ZM10 8C12 5 16 3 19 1 17-6 11-9 7-6 4-3 3 3 3 8ZM-11 8h22v4h-22Z",
  `M-4 8C-4-2-3-9 0-14 3-9 4-2 4 8Z${dots(2.3, [-19, 1.5], [0, -14], [19, 1.5])}`];
const cache = new Map();

/** An n-pointed star path centred on 0,0 with outer radius r and inner radius q. */
function starPath(n, r, q) {
  const points = [];
  for (let i = 0; i < 2 * n; i++) {
    const a = (Math.PI * i) / n, d = i % 2 ? q : r;
    points.push(`${+(d * Math.sin(a)).toFixed(1)} ${+(-d * Math.cos(a)).toFixed(1)}`);
  }
  return `M${points.join("L")}Z`;
}
const STAR = starPath(5, 10, 4.2);
const BURST = starPath(14, 10, 6.2);

/** A path placed at x,y, scaled by k, turned upside down if asked. */
function shape(d, x, y, k, turned = false, extra = "") {
  const turn = turned ? " rotate(180)" : "";
  return `<path d="${d}" transform="translate(${x} ${y}) scale(${k})${turn}"${extra}/>`;
}

function cardSVG(body, paper = "#fff") {
  const edge = `<rect x=".5" y=".5" width="59" height="83" rx="4" fill="${paper}" stroke="#444"/>`;
  return `${OPEN}${edge}${body}</svg>`;
}

/** ``content`` drawn in outline, ``size`` units high, centred on x at the baseline y, and
 * squeezed to ``widest`` units across if it is wider. */
function text(x, y, size, content, widest = Infinity) {
  const k = size / 100;
  const width = [...content].reduce((sum, letter) => sum + GLYPHS[letter][0], 0) * k;
  let at = -width / 2;
  let letters = "";
  for (const letter of content) {
    letters += `<path transform="translate(${+at.toFixed(2)} 0) scale(${k})" d="${GLYPHS[letter][1]}"/>`;
    at += GLYPHS[letter][0] * k;
  }
  const squeeze = width > widest ? ` scale(${+(widest / width).toFixed(3)} 1)` : "";
  return `<g transform="translate(${x} ${y})${squeeze}">${letters}</g>`;
}

/** The rank and its mark in the top-left corner, and again turned in the bottom-right. */
function corners(rank, mark) {
  const index = `<g transform="translate(8.6 18) scale(.82 1)">${text(0, 0, 19, rank, 18)}</g>${mark}`;
  return `${index}<g transform="rotate(180 30 42)">${index}</g>`;
}

/** The centre of a number card: one big pip for an ace, else the layout table's pips. */
function pips(suit, rank) {
  if (rank === "A") return shape(SUIT[suit], 30, 42, suit === "S" ? 1.45 : 1.2);
  return PIPS[rank].split(" ").map(([c, r]) => shape(SUIT[suit], X[c], Y[r], 0.44, Y[r] > 42)).join("");
}

/** A court card's centre: a framed panel with the rank's mark, letter and suit. */
function courtPanel(suit, rank) {
  const frame = '<rect x="18.5" y="6" width="23" height="72" rx="2" fill="currentColor" fill-opacity=".07" stroke="currentColor"/>'
    + '<rect x="20.5" y="8" width="19" height="68" rx="1" fill="none" stroke="currentColor" stroke-width=".4"/>';
  const mark = shape(MARK[rank], 30, 22, 1, false, ' fill="#e9b234" stroke="currentColor" stroke-width=".7" stroke-linejoin="round"');
  return frame + mark + text(30, 53, 18, rank) + shape(SUIT[suit], 30, 64, 0.55);
}

function suitFace(code) {
  const [rank, suit] = code;
  const body = corners(RANKS[rank] ?? rank, shape(SUIT[suit], 8.6, 25, 0.38))
    + ("JQK".includes(rank) ? courtPanel(suit, rank) : pips(suit, rank));
  return cardSVG(`<g style="color:var(--suit-${suit}, ${INK[suit]})" fill="currentColor">${body}</g>`);
}

function bigBlooper(ink, outline) {
  return shape(BURST, 30, 38, 1.7, false, ` fill="${ink}"`)
    + shape(STAR, 30, 38.5, 1.25, false, `${outline} stroke-width=".8"`) + text(30, 68, 7.5, "BIG");
}

function littleBlooper(ink, outline, shine) {
  const hat = shape(HAT[0], 30, 37, 0.8) + shape(HAT[1], 30, 37, 0.8, false, ` fill="${shine}"`);
  return `<g stroke="${ink}" stroke-width=".9" stroke-linejoin="round">${hat}</g>`
    + shape(STAR, 30, 54, 0.5, false, `${outline} stroke-width="1.4"`) + text(30, 67, 5.2, "LITTLE");
}

/** A Blooper: crimson and gold with a star burst (big), purple and silver with a jester's hat (little). */
function jokerFace(big) {
  const [ink, shine, paper] = big ? ["#b3121f", "#f2b705", "#fffaeb"] : ["#5b2a86", "#c3c7d1", "#f8f5fc"];
  const outline = ` fill="${shine}" stroke="${ink}" stroke-linejoin="round"`;
  const body = corners(big ? "B" : "L", shape(STAR, 8.6, 25, 0.45, false, outline))
    + (big ? bigBlooper(ink, outline) : littleBlooper(ink, outline, shine));
  return cardSVG(`<g fill="${ink}">${body}</g>`, paper);
}

/** faceSVG(card) → SVG markup for one face: card is a rank (A K Q J T 9 … 2) and a suit
 * (S H D C), e.g. "QS" or "TD", or "BJ" / "LJ" for the Big and Little Bloopers. Cached. */
export function faceSVG(card) {
  if (!cache.has(card)) cache.set(card, card === "BJ" || card === "LJ" ? jokerFace(card === "BJ") : suitFace(card));
  return cache.get(card);
}

/** Diagonal lines both ways across the box x0,y0 to x1,y1, step apart, through its centre. */
function latticeLines(x0, y0, x1, y1, step) {
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, n = Math.ceil((x1 - x0 + y1 - y0) / step);
  const point = (x, y) => `${+x.toFixed(2)} ${+y.toFixed(2)}`;
  let d = "";
  for (let i = -n; i <= n; i++) {
    for (const s of [1, -1]) {
      const b = cy - s * cx + i * step; // the line y = s·x + b
      const lo = Math.max(x0, s > 0 ? y0 - b : b - y1), hi = Math.min(x1, s > 0 ? y1 - b : b - y0);
      if (hi - lo > 0.01) d += `M${point(lo, s * lo + b)}L${point(hi, s * hi + b)}`;
    }
  }
  return d;
}

/** backSVG() → SVG markup for a card back: a deep red lattice in a white border (the red
 * can be changed with --card-back). Cached. */
export function backSVG() {
  if (!cache.has("back")) {
    const fill = "var(--card-back, #8e1b2a)";
    cache.set("back", cardSVG(`<rect x="4" y="4" width="52" height="76" rx="2.5" style="fill:${fill}"/>`
      + `<path d="${latticeLines(4, 4, 56, 80, 6.5)}" stroke="#f1d9a7" stroke-opacity=".45" stroke-width=".6" fill="none"/>`
      + '<g stroke="#f1d9a7" stroke-width=".8"><rect x="5.5" y="5.5" width="49" height="73" rx="1.5" fill="none"/>'
      + `<ellipse cx="30" cy="42" rx="10" ry="14" style="fill:${fill}"/>${shape(starPath(8, 7, 3), 30, 42, 1, false, ' fill="#f1d9a7"')}</g>`));
  }
  return cache.get("back");
}
