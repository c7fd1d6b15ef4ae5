// Team matches: two tables play the same deals with the seats turned. Making one from the
// home page's form, and the match's page — the teams at both tables, the empty seats'
// invites and bots for its host, and the result deal by deal as both tables finish each.
import { call, remember, remembered } from "./api.js";
import { element, keepName, toast } from "./dom.js";
import { t } from "./i18n.js";
import { copyButton } from "./overlays.js";

const EVERY = 3000;  // ms between two looks at the match while it is on

/** Make a team match from a table's settings, sit at table 1's first seat, give every other
 * seat of both tables to bots if asked, and go to the match's page. */
export async function startMatch(settings, name, { bots }, go) {
  const kept = keepName(name);
  const match = await call("POST", "/api/matches", settings);
  const [first, second] = match.tables;
  const taken = await call("POST", `/api/tables/${first.id}/seats/0`, { invite: first.invites[0].invite, name: kept });
  match.tables.forEach((table, index) => remember(table.id, {
    host: table.host, watch: table.watch.url, invites: table.invites.map((i) => i.url), match: match.id,
    ...(index === 0 ? { seat: 0, token: taken.token, name: kept } : {}),
  }));
  if (bots) {
    for (const [table, seats] of [[first, [1, 2, 3]], [second, [0, 1, 2, 3]]]) {
      for (const seat of seats) await call("POST", `/api/tables/${table.id}/seats/${seat}/bot`, { level: settings.level }, table.host);
    }
  }
  go(`/m/${match.id}`);
}

function marginText(points) {
  return points > 0 ? `+${points}` : String(points);
}

function teamsPanel(match, tables, redraw) {
  const panel = element("section", { class: "panel match-teams", "aria-labelledby": "teams-title" }, element("h2", { id: "teams-title", text: t("Teams") }));
  const grid = element("table", { class: "board teams" }, element("caption", { class: "sr", text: t("who plays for each team at each table") }));
  const head = element("tr", {}, element("th", { scope: "col", text: t("team") }));
  match.tables.forEach((table) => head.append(element("th", { scope: "col", text: t("table {n}", { n: table.number }) })));
  grid.append(element("thead", {}, head));
  const body = element("tbody", {});
  for (const team of ["A", "B"]) {
    const row = element("tr", {}, element("th", { scope: "row", text: t("team {name}", { name: team }) }));
    match.teams[team].forEach((names, index) => {
      const cell = element("td", {});
      names.forEach((who, k) => {
        const seat = match.seats[team][index][k];
        const mine = tables[index];
        if (who) cell.append(element("span", { class: "who", text: who }));
        else if (mine && mine.host) cell.append(seatInvite(match.tables[index].id, seat, mine, match.level, redraw));
        else cell.append(element("span", { class: "quiet", text: t("free seat") }));
        if (k === 0) cell.append(" & ");
      });
      row.append(cell);
    });
    body.append(row);
  }
  grid.append(body);
  panel.append(grid);
  const links = element("p", { class: "buttons" });
  match.tables.forEach((table, index) => {
    const mine = tables[index];
    const label = mine && mine.token ? t("Your table ({n})", { n: table.number }) : t("Table {n}", { n: table.number });
    const href = table.status === "finished" ? `/replay/${table.id}` : `/t/${table.id}${mine && (mine.token || mine.host) ? "" : "?watch"}`;
    links.append(element("a", { class: mine && mine.token ? "button primary" : "button", href, text: label }));
  });
  panel.append(links);
  return panel;
}

function seatInvite(tableId, seat, mine, level, redraw) {
  const wrap = element("span", { class: "seat-invite" });
  wrap.append(copyButton(mine.invites[seat], t("invite for seat {n}", { n: seat + 1 })));
  const bot = element("button", { type: "button", class: "quiet-button", text: t("a bot") });
  bot.addEventListener("click", () => {
    bot.disabled = true;
    call("POST", `/api/tables/${tableId}/seats/${seat}/bot`, { level }, mine.host).then(redraw, (e) => {
      toast(e.message);
      bot.disabled = false;
    });
  });
  wrap.append(bot);
  return wrap;
}

function dealsPanel(match, tables) {
  const panel = element("section", { class: "panel match-deals", "aria-labelledby": "deals-title" }, element("h2", { id: "deals-title", text: t("Deal by deal") }));
  const table = element("table", { class: "board match-result" }, element("caption", { text: t("Team A's points less team B's, at each table") }));
  const head = element("tr", {});
  for (const label of [t("deal"), t("table 1"), t("table 2"), t("team A − team B")]) head.append(element("th", { scope: "col", text: label }));
  table.append(element("thead", {}, head));
  const body = element("tbody", {});
  for (const deal of match.deals) {
    body.append(element("tr", { "data-deal": deal.key }, element("td", { text: String(deal.number + 1) }),
      element("td", { text: marginText(deal.margins[0]) }), element("td", { text: marginText(deal.margins[1]) }),
      element("td", {}, element("strong", { text: marginText(deal.difference) }))));
  }
  if (!match.deals.length) body.append(element("tr", {}, element("td", { colspan: "4", text: t("No deal has been played at both tables yet.") })));
  table.append(body);
  table.append(element("tfoot", {}, element("tr", {}, element("th", { scope: "row", colspan: "3", text: t("total") }),
    element("td", { "data-total": String(match.total) }, element("strong", { text: marginText(match.total) })))));
  panel.append(table);
  if (match.over) {
    const verdict = match.total === 0 ? t("The match is a tie.") : t("Team {name} wins the match by {points}.", { name: match.total > 0 ? "A" : "B", points: Math.abs(match.total) });
    panel.append(element("p", { class: "match-verdict", text: verdict }));
    const mine = match.tables.findIndex((_, index) => tables[index] && (tables[index].token || tables[index].host));
    const replays = element("p", { class: "buttons" });
    match.tables.forEach((entry, index) => {
      const via = mine >= 0 && mine !== index ? `?via=${match.tables[mine].id}` : "";
      replays.append(element("a", { class: "button", href: `/replay/${entry.id}${via}`, text: t("The record of table {n}", { n: entry.number }) }));
    });
    panel.append(replays);
  }
  return panel;
}

/** Draw a team match's page, asked again every few seconds until it is over. */
export async function renderMatch(main, matchId) {
  let timer = null;
  let stopped = false;
  const draw = async () => {
    clearTimeout(timer);
    let match;
    try {
      match = await call("GET", `/api/matches/${matchId}`);
    } catch (error) {
      toast(error.message);
      return;
    }
    const known = remembered();
    const tables = match.tables.map((table) => known[table.id] || null);
    const head = element("section", { class: "panel match-head" }, element("h1", { text: t("Team match") }),
      element("p", { text: t("Two tables play the same deals, the seats turned: team A holds at table 1 the cards team B holds at table 2.") }));
    main.replaceChildren(element("div", { class: "match-page" }, head, teamsPanel(match, tables, draw), dealsPanel(match, tables)));
    if (!match.over && !stopped) timer = setTimeout(draw, EVERY);
  };
  await draw();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
