// The score sheet as players keep it on paper: a row a deal with its hand size and trump, and
// for each side its contract, the tricks it took, and what the deal scored over the running
// total; boards and sets marked, thrown-in deals said so.
import { bidLabel, suitLabel, trumpSymbol } from "./cards.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";

/** Points as the sheet writes them: +16, −15, 0. */
export function signed(points) {
  return points > 0 ? `+${points}` : points < 0 ? `−${-points}` : "0";
}

/** A total as the page writes it: 45, −15 (a minus sign, as in the changes beside it). */
export function scoreText(points) {
  return points < 0 ? `−${-points}` : String(points);
}

/** Why a deal was thrown in, as a player reads it. */
export function thrownInLabel(reason) {
  return reason === "renig" ? t("thrown in: renig") : t("thrown in: everyone passed");
}

function sideCells(row, deal, side, running, inPlay) {
  const contract = deal.contracts[side];
  const points = deal.points ? deal.points[side] : null;
  const bid = element("td", { class: "bid", text: bidLabel(contract) });
  if (contract === "board") bid.classList.add("board");
  const made = points === null || contract === null ? "" : points >= 0 ? "made" : "set";
  const score = element("td", { class: `score ${made}` });
  if (points === null) score.textContent = inPlay ? "…" : "";
  else {
    score.append(element("span", { class: "delta", text: signed(points) }), element("span", { class: "running", text: scoreText(running) }));
    if (made === "set") score.append(element("span", { class: "sr", text: ` ${t("set")}` }));
  }
  row.append(bid, element("td", { text: String(deal.tricks[side]) }), score);
}

/** The sheet's columns, each as wide as the longest thing it holds (in characters, the
 * smaller type of the heads and the changes weighed less): the deal's number and hand, then
 * for each side its bid, its tricks and its score, the same widths for every side. */
function columns(body, sides) {
  const head = 0.85;  // the heads' type, against the rows'
  const widest = [1.5, t("hand").length, t("bid").length * head, t("took").length * head, t("score").length * head];
  const grow = (column, length) => (widest[column] = Math.max(widest[column], length));
  for (const row of body.rows) {
    const cells = [...row.cells];
    grow(0, cells[0].textContent.length);
    grow(1, cells[1].textContent.length);
    if (row.classList.contains("thrown")) continue;
    for (let side = 0; side < sides; side++) {
      const [bid, took, score] = cells.slice(2 + 3 * side, 5 + 3 * side);
      grow(2, bid.textContent.length);
      grow(3, took.textContent.length);
      const change = score.querySelector(".delta")?.textContent.length ?? 0;
      grow(4, change * 0.9 + (score.querySelector(".running")?.textContent.length ?? 1) * 1.1 + 0.6);
    }
  }
  const padded = widest.map((length) => length + 0.6);
  const total = padded[0] + padded[1] + sides * (padded[2] + padded[3] + padded[4]);
  const widths = [padded[0], padded[1]];
  for (let side = 0; side < sides; side++) widths.push(padded[2], padded[3], padded[4]);
  body.closest("table").style.setProperty("--units", total.toFixed(1));  // its type fits them in
  return element("colgroup", {}, ...widths.map((width) => element("col", { style: `width: ${((100 * width) / total).toFixed(2)}%` })));
}

/** The sheet of ``view`` (its history, and the deal in play), sides named by ``sideName``. */
export function scoreSheet(view, sideName) {
  const sides = view.scores.length;
  const table = element("table", { class: "sheet" });
  table.append(element("caption", { class: "sr", text: t("Score sheet") }));
  const top = element("tr", {}, element("th", { rowspan: "2", scope: "col", text: "#" }),
    element("th", { rowspan: "2", scope: "col", text: t("hand") }));
  const second = element("tr");
  for (let side = 0; side < sides; side++) {
    top.append(element("th", { colspan: "3", scope: "colgroup", class: "side-head", text: sideName(side) }));
    second.append(...[t("bid"), t("took"), t("score")].map((text) => element("th", { scope: "col", text })));
  }
  table.append(element("thead", {}, top, second));
  const body = element("tbody");
  const totals = new Array(sides).fill(0);
  let counted = 0;
  const deals = [...view.history];
  if (view.phase === "bid" || view.phase === "play") deals.push({ hand_size: view.hand_size, trump: view.trump, thrown_in: null, contracts: view.contracts, tricks: view.tricks_won, points: null, current: true });
  for (const deal of deals) {
    const row = element("tr", { class: deal.current ? "current" : "" });
    const trump = element("span", { class: `trump s-${deal.trump || "none"}`, text: trumpSymbol(deal.trump) });
    trump.setAttribute("aria-label", deal.trump ? suitLabel(deal.trump) : t("no trump"));
    row.append(element("th", { scope: "row", text: deal.thrown_in ? "↻" : String(++counted) }),
      element("td", { class: "size" }, `${deal.hand_size} `, trump));
    if (deal.thrown_in) {
      row.classList.add("thrown");
      row.append(element("td", { colspan: String(3 * sides), text: thrownInLabel(deal.thrown_in) }));
    } else {
      for (let side = 0; side < sides; side++) {
        if (deal.points) totals[side] += deal.points[side];
        sideCells(row, deal, side, totals[side], Boolean(deal.current));
      }
    }
    body.append(row);
  }
  const foot = element("tr", { class: "totals" }, element("th", { scope: "row", colspan: "2", text: t("total") }));
  view.scores.forEach((score) => foot.append(element("td", { colspan: "3", text: scoreText(score) })));
  table.append(body, element("tfoot", {}, foot));
  table.caption.after(columns(table.tBodies[0], sides));
  return table;
}
