// The home page: play at once against bots, the lobby (public tables waiting for players and
// games to watch), a new table of one's own, and the games of this browser.
import { about, call, credentialOf, me, remember, remembered } from "./api.js";
import { botLabel } from "./cards.js";
import { element, keepName, nameField, toast } from "./dom.js";
import { t } from "./i18n.js";
import { rulesLine } from "./rules.js";

const LOBBY_EVERY = 4000;  // ms between two looks at the lobby

function field(label, control, help) {
  const wrapper = element("label", { class: "field" }, element("span", { text: label }), control);
  if (help) wrapper.append(element("small", { text: help }));
  return wrapper;
}

function choice(name, options, selected) {
  const select = element("select", { name });
  for (const [value, label] of options) {
    const option = element("option", { value, text: label });
    if (value === selected) option.selected = true;
    select.append(option);
  }
  return select;
}

function tick(name, label, checked = false) {
  const box = element("input", { type: "checkbox", name });
  box.checked = checked;
  return element("label", { class: "tick" }, box, element("span", { text: label }));
}

/** Draw the home page; returns a way to leave it (the lobby stops being asked). */
export async function renderHome(main, go) {
  const facts = await about();
  const name = nameField((await me()).account);
  const quick = element("section", { class: "panel quick", "aria-labelledby": "quick-title" },
    element("h1", { id: "quick-title", text: t("Back Alley") }),
    element("p", { text: t("Two partnerships, two jokers, a turned-up trump, hands that shrink and grow.") }),
    name.label);
  const play = element("button", { type: "button", class: "primary big", text: t("Play now: you and three bots, a short game") });
  play.addEventListener("click", () => {
    if (!name.input.reportValidity()) return;
    play.disabled = true;
    const settings = { rules: "standard", level: "medium", pace: 1, hand_sizes: facts.lengths.standard.short, options: { all_pass_limit: facts.all_pass_limit } };
    startTable(settings, name.input.value, { bots: true }, go).catch((error) => {
      toast(error.message);
      play.disabled = false;
    });
  });
  quick.append(play);
  const lobby = element("section", { class: "panel lobby", "aria-labelledby": "lobby-title" }, element("h2", { id: "lobby-title", text: t("Lobby") }));
  const form = createForm(facts, name, go);
  const { dailyPanel } = await import("./daily.js");
  const [daily, yours, finished] = await Promise.all([dailyPanel(name, go), yourGames(), finishedGames()]);
  main.replaceChildren(quick, daily, lobby, form, yours, finished);
  if (new URLSearchParams(location.search).has("new")) form.open = true;
  let timer = null;
  let stopped = false;
  const refresh = async () => {
    try {
      drawLobby(lobby, await call("GET", "/api/lobby"), name, go);
    } catch (error) {
      lobby.replaceChildren(element("h2", { id: "lobby-title", text: t("Lobby") }), element("p", { text: error.message }));
    }
    if (!stopped) timer = setTimeout(refresh, LOBBY_EVERY);  // not once the page is left
  };
  await refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function seatsLine(entry) {
  return entry.seats.map((s) => (s.name ? `${s.name}${s.bot ? ` (${botLabel(s)})` : ""}` : t("free seat"))).join(", ");
}

function drawLobby(section, lobby, name, go) {
  const heading = element("h2", { id: "lobby-title", text: t("Lobby") });
  const waiting = element("ul", { class: "lobby-list", "aria-label": t("tables waiting for players") });
  for (const entry of lobby.waiting) {
    const free = entry.seats.filter((s) => !s.name).length;
    const join = element("button", { type: "button", class: "primary", "data-join": entry.id, text: t("Join ({n} free)", { n: free }) });
    join.addEventListener("click", async () => {
      if (!name.input.reportValidity()) return;
      join.disabled = true;
      try {
        const kept = keepName(name.input.value);
        const taken = await call("POST", `/api/tables/${entry.id}/join`, { name: name.input.value });
        remember(entry.id, { seat: taken.seat, token: taken.token, name: kept });
        go(`/t/${entry.id}`);
      } catch (error) {
        toast(error.message);
        join.disabled = false;
      }
    });
    waiting.append(element("li", { "data-table": entry.id },
      element("div", {}, element("strong", { text: rulesLine(entry) }),
        entry.match ? element("span", { class: "tag", text: ` ${t("team match, table {n}", { n: entry.match.split("/")[1] })}` }) : "",
        element("span", { class: "quiet", text: ` ${seatsLine(entry)}` })), join));
  }
  if (!lobby.waiting.length) waiting.append(element("li", { class: "quiet", text: t("No public table is waiting for players: make one below, with “public” ticked.") }));
  const playing = element("ul", { class: "lobby-list", "aria-label": t("games being played") });
  for (const entry of lobby.playing.slice(0, 20)) {
    const scores = entry.scores ? entry.scores.join(" – ") : "";
    playing.append(element("li", { "data-table": entry.id },
      element("div", {}, element("strong", { text: seatsLine(entry) }), element("span", { class: "quiet", text: ` ${t("deal {n} of {total}", { n: entry.deal + 1, total: entry.hand_sizes.length })} · ${scores}` })),
      element("a", { href: `/t/${entry.id}?watch`, class: "button", text: t("Watch") })));
  }
  section.replaceChildren(heading, element("h3", { text: t("Tables waiting for players") }), waiting);
  if (lobby.playing.length) section.append(element("h3", { text: t("Games being played") }), playing);
  // A server of several that cannot reach the others just now says so (already translated).
  if (lobby.partial) section.append(element("p", { class: "quiet", role: "status", text: lobby.partial }));
}

function createForm(facts, name, go) {
  const form = element("details", { class: "panel create" });
  const inner = element("form", { "aria-labelledby": "create-title" });
  form.append(element("summary", {}, element("h2", { id: "create-title", text: t("New table") })), inner);
  inner.append(field(t("Rules"), choice("rules", facts.presets.map((p) => [p, p]), "standard")));
  inner.append(field(t("Game"), choice("length", [
    ["short", t("short: 3, 2 and 1 cards")], ["longer", t("longer: up to 7 cards")], ["full", t("full: the preset's deals")],
  ], "short")));
  inner.append(tick("all_pass_limit", t("after {n} all-pass deals in a row, the next all-pass deal is played (D7)", { n: facts.all_pass_limit }), true));
  inner.append(field(t("Empty seats"), choice("bots", [["all", t("bots in every other seat")], ["none", t("keep them for friends")]], "all")));
  inner.append(field(t("Bots"), choice("level", facts.levels.map((l) => [l, t(l)]), "medium")));
  inner.append(field(t("Bots' pace"), choice("pace", [["0.3", t("quick")], ["1", t("steady")], ["2", t("slow")]], "1")));
  inner.append(field(t("Turn timer"), choice("timer", [["", t("none")], ["30", "30 s"], ["60", "60 s"], ["120", "120 s"]], "")));
  inner.append(tick("public", t("public: listed in the lobby, where anyone may sit down or watch")));
  inner.append(tick("match", t("team match: two tables play the same deals, the seats turned")));
  const options = element("details", { class: "options" }, element("summary", { text: t("Options") }));
  for (const option of facts.options) {
    const values = [["", t("the preset's")], ...option.choices.map((c) => [JSON.stringify(c), String(c)])];
    options.append(field(`${option.name} (${option.rule})`, choice(`option:${option.name}`, values, ""), t(option.help)));
  }
  inner.append(options);
  const create = element("button", { type: "submit", class: "primary", text: t("Create the table") });
  inner.append(create);
  inner.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!name.input.reportValidity()) return;
    create.disabled = true;
    try {
      const data = new FormData(inner);
      const settings = { rules: data.get("rules"), level: data.get("level"), pace: Number(data.get("pace")), options: {}, public: data.get("public") === "on" };
      settings.hand_sizes = facts.lengths[settings.rules][data.get("length")];
      if (data.get("all_pass_limit") === "on") settings.options.all_pass_limit = facts.all_pass_limit;
      if (data.get("timer")) settings.turn_timer = Number(data.get("timer"));
      for (const [key, value] of data.entries()) {
        if (key.startsWith("option:") && value !== "") settings.options[key.slice(7)] = JSON.parse(value);
      }
      const bots = { bots: data.get("bots") === "all" };
      if (data.get("match") === "on") {
        const { startMatch } = await import("./match.js");
        await startMatch(settings, name.input.value, bots, go);
      } else {
        await startTable(settings, name.input.value, bots, go);
      }
    } catch (error) {
      toast(error.message);
      create.disabled = false;
    }
  });
  return form;
}

/** Make a table, sit at its first seat, fill the others with bots if asked, and go there. */
async function startTable(settings, name, { bots }, go) {
  const kept = keepName(name);
  const table = await call("POST", "/api/tables", settings);
  const taken = await call("POST", `/api/tables/${table.id}/seats/0`, { invite: table.invites[0].invite, name: kept });
  remember(table.id, {
    seat: 0, token: taken.token, name: kept, host: table.host, watch: table.watch.url,
    invites: table.invites.map((i) => i.url),
  });
  if (bots) {
    for (const invite of table.invites.slice(1)) {
      await call("POST", `/api/tables/${table.id}/seats/${invite.seat}/bot`, { level: settings.level }, table.host);
    }
  }
  go(`/t/${table.id}`);
}

async function yourGames() {
  const section = element("section", { class: "panel" }, element("h2", { text: t("Your games") }));
  const list = element("ul", { class: "games" });
  let tables = Object.entries(remembered()).sort((a, b) => b[1].at - a[1].at).slice(0, 20);
  const { account } = await me();
  if (account) {  // the account's games, from any device, after this browser's own
    const { seats } = await call("GET", "/api/account/seats").catch(() => ({ seats: [] }));
    const here = new Set(tables.map(([id]) => id));
    tables = tables.concat(seats.filter((s) => !here.has(s.table)).map((s) => [s.table, { seat: s.seat }])).slice(0, 30);
  }
  const infos = await Promise.all(tables.map(([id]) => call("GET", `/api/tables/${id}`, undefined, credentialOf(id)).catch(() => null)));
  tables.forEach(([id], index) => {
    const info = infos[index];
    if (!info) return;
    const names = info.seats.map((s) => s.name || t("free seat")).join(", ");
    const href = info.status === "finished" ? `/replay/${id}` : `/t/${id}`;
    const status = { open: t("waiting for players"), playing: t("in play"), finished: t("over"), ended: t("closed") }[info.status];
    list.append(element("li", {}, element("a", { href, text: `${names}` }), ` — ${status}`));
  });
  if (!list.children.length) list.append(element("li", { text: t("none yet") }));
  section.append(list);
  return section;
}

async function finishedGames() {
  const section = element("section", { class: "panel" }, element("h2", { text: t("Finished games") }));
  const list = element("ul", { class: "games" });
  const { games } = await call("GET", "/api/games");
  for (const game of games.slice(0, 10)) {
    const names = game.players.join(", ");
    list.append(element("li", {}, element("a", { href: `/replay/${game.id}`, text: names }), ` — ${game.scores.join(" / ")}`));
  }
  if (!list.children.length) list.append(element("li", { text: t("none yet") }));
  section.append(list);
  return section;
}
