// A player's profile (rating and its history, figures from the records, partners, games) and
// the leaderboard.
import { call } from "./api.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";

function ratingText(rating) {
  return rating.provisional ? t("{rating} (provisional)", { rating: rating.rating }) : String(rating.rating);
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/** The rating after each rated game, as a small line chart with its own text alternative. */
export function ratingChart(history) {
  const width = 320, height = 120, pad = 28;
  const values = history.map((h) => h.rating);
  const low = Math.min(...values), high = Math.max(...values);
  const span = Math.max(high - low, 20);
  const x = (i) => pad + (values.length === 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (values.length - 1));
  const y = (v) => height - pad / 2 - ((v - low) * (height - pad)) / span;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
    "aria-label": t("rating after each rated game: from {first} to {last}, between {low} and {high}", { first: values[0], last: values.at(-1), low, high }) });
  chart.append(svg("line", { x1: pad, x2: width - pad / 2, y1: y(low), y2: y(low), class: "axis" }));
  for (const value of [low, high]) {
    const label = svg("text", { x: 2, y: y(value) + 4, class: "tick" });
    label.textContent = String(value);
    chart.append(label);
  }
  chart.append(svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  values.forEach((v, i) => chart.append(svg("circle", { cx: x(i), cy: y(v), r: 2.5 })));
  return chart;
}

function figureRows(figures) {
  const percent = (part, whole) => (whole ? `${part} (${Math.round((100 * part) / whole)} %)` : String(part));
  return [
    [t("games"), String(figures.games)],
    [t("games won"), percent(figures.won, figures.games)],
    [t("games left before their end"), String(figures.left)],
    [t("deals"), String(figures.deals)],
    [t("contracts made"), percent(figures.made, figures.contracts)],
    [t("sets"), percent(figures.sets, figures.contracts)],
    [t("boards bid and made"), `${figures.boards_made} / ${figures.boards}`],
    [t("average points a deal"), figures.points_per_deal === null ? "–" : String(figures.points_per_deal)],
    [t("double-dummy tricks given away a deal"), figures.given_away_per_deal === null ? t("no deal reviewed yet") : String(figures.given_away_per_deal)],
  ];
}

function definitions(rows) {
  const list = element("dl", { class: "figures" });
  for (const [term, value] of rows) list.append(element("dt", { text: term }), element("dd", { text: value }));
  return list;
}

/** Draw a player's profile. */
export async function renderProfile(main, accountId) {
  const player = await call("GET", `/api/players/${encodeURIComponent(accountId)}`);
  const head = element("section", { class: "panel profile-head" },
    element("h1", { text: player.name }),
    element("p", { class: "rating-line" }, element("span", { class: "quiet", text: `${t("Rating")} ` }),
      element("strong", { text: ratingText(player.rating) }), element("span", { class: "quiet", text: ` · ${t("{n} rated games", { n: player.rating.games })}` })));
  if (player.history.length) head.append(ratingChart(player.history));
  else head.append(element("p", { class: "quiet", text: t("No rated game yet.") }));
  const figures = element("section", { class: "panel" }, element("h2", { text: t("Figures") }), definitions(figureRows(player.figures)));
  if (player.partners.length) {
    figures.append(element("h3", { text: t("Partners") }),
      element("p", { text: player.partners.map((p) => `${p.name} (${p.games})`).join(", ") }));
  }
  const games = element("section", { class: "panel" }, element("h2", { text: t("Games") }));
  const list = element("ul", { class: "games" });
  for (const game of player.playing) {
    list.append(element("li", {}, element("a", { href: `/t/${game.table}`, text: `${game.rules} · ${t("seat {seat}", { seat: game.seat + 1 })}` }),
      ` — ${game.status === "open" ? t("waiting for players") : t("in play")}`));
  }
  for (const game of player.games) {
    const result = game.left ? t("left") : game.won ? t("won") : t("lost");
    const when = game.ended ? new Date(game.ended * 1000).toLocaleDateString(document.documentElement.lang) : "";
    list.append(element("li", {}, element("a", { href: `/replay/${game.table}`, text: game.players.join(", ") }),
      ` — ${game.scores.join(" / ")} · ${result}${game.rated ? "" : ` · ${t("not rated")}`} · ${when}`));
  }
  if (!list.children.length) list.append(element("li", { text: t("none yet") }));
  games.append(list);
  main.replaceChildren(element("div", { class: "profile" }, head, figures, games));
  return null;
}

function boardTable(entries, caption) {
  const table = element("table", { class: "board" }, element("caption", { text: caption }));
  const head = element("tr", {});
  for (const label of [t("place"), t("player"), t("rating"), t("games")]) head.append(element("th", { scope: "col", text: label }));
  table.append(element("thead", {}, head));
  const body = element("tbody", {});
  entries.forEach((entry, index) => {
    body.append(element("tr", {}, element("td", { text: String(index + 1) }),
      element("td", {}, element("a", { href: `/players/${entry.id}`, text: entry.name })),
      element("td", { text: String(entry.rating) }), element("td", { text: String(entry.games) })));
  });
  table.append(body);
  return table;
}

/** Draw the leaderboard: the rated players, and apart from them the provisional ones. */
export async function renderLeaderboard(main) {
  const board = await call("GET", "/api/leaderboard");
  const section = element("section", { class: "panel" }, element("h1", { text: t("Leaderboard") }),
    element("p", { class: "quiet", text: t("Ratings from OpenSkill over rated games, bots holding the scale; a rating is provisional until it has enough games behind it.") }));
  if (board.rated.length) section.append(boardTable(board.rated, t("Rated players")));
  else section.append(element("p", { text: t("Nobody has left the provisional list yet.") }));
  if (board.provisional.length) section.append(boardTable(board.provisional, t("Provisional")));
  const bots = element("table", { class: "board" }, element("caption", { text: t("The bots, whose ratings hold the scale") }));
  const head = element("tr", {}, element("th", { scope: "col", text: t("bot") }), element("th", { scope: "col", text: t("rating") }));
  bots.append(element("thead", {}, head), element("tbody", {},
    ...board.bots.map((bot) => element("tr", {}, element("td", { text: t(bot.level) }), element("td", { text: String(bot.rating) })))));
  section.append(bots);
  main.replaceChildren(section);
  return null;
}
