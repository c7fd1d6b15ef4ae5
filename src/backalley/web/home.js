// The home page: create a table, and the games of this browser.
import { about, call, remember, remembered } from "./api.js";
import { element, keepName, nameField, toast } from "./dom.js";
import { t } from "./i18n.js";

const SHORT = [3, 2, 1];

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

export async function renderHome(main, go) {
  const facts = await about();
  const form = element("form", { class: "panel create", "aria-labelledby": "create-title" });
  form.append(element("h1", { id: "create-title", text: t("New table") }));
  form.append(nameField().label);
  form.append(field(t("Rules"), choice("rules", facts.presets.map((p) => [p, p]), "standard")));
  form.append(
    field(t("Game"), choice("length", [["short", t("short: 3, 2 and 1 cards")], ["full", t("full")]], "short")),
  );
  const options = element("details", { class: "options" }, element("summary", { text: t("Options") }));
  for (const option of facts.options) {
    const values = [["", t("the preset's")], ...option.choices.map((c) => [JSON.stringify(c), String(c)])];
    options.append(field(`${option.name} (${option.rule})`, choice(`option:${option.name}`, values, ""), t(option.help)));
  }
  form.append(options);
  form.append(
    field(t("Empty seats"), choice("bots", [["all", t("bots in every other seat")], ["none", t("keep them for friends")]], "all")),
  );
  form.append(field(t("Bots"), choice("level", facts.levels.map((l) => [l, t(l)]), "medium")));
  form.append(field(t("Bots' pace"), choice("pace", [["0.3", t("quick")], ["1", t("steady")], ["2", t("slow")]], "1")));
  form.append(
    field(t("Turn timer"), choice("timer", [["", t("none")], ["30", "30 s"], ["60", "60 s"], ["120", "120 s"]], "")),
  );
  const create = element("button", { type: "submit", class: "primary", text: t("Create the table") });
  form.append(create);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    create.disabled = true;
    try {
      await createTable(new FormData(form), go);
    } catch (error) {
      toast(error.message);
      create.disabled = false;
    }
  });
  main.replaceChildren(form, ...(await Promise.all([yourGames(), finishedGames()])));
}

async function createTable(data, go) {
  const name = keepName(data.get("name"));
  const settings = { rules: data.get("rules"), level: data.get("level"), pace: Number(data.get("pace")), options: {} };
  if (data.get("length") === "short") settings.hand_sizes = SHORT;
  if (data.get("timer")) settings.turn_timer = Number(data.get("timer"));
  for (const [key, value] of data.entries()) {
    if (key.startsWith("option:") && value !== "") settings.options[key.slice(7)] = JSON.parse(value);
  }
  const table = await call("POST", "/api/tables", settings);
  const taken = await call("POST", `/api/tables/${table.id}/seats/0`, { invite: table.invites[0].invite, name });
  remember(table.id, {
    seat: 0, token: taken.token, name, host: table.host, watch: table.watch.url,
    invites: table.invites.map((i) => i.url),
  });
  if (data.get("bots") === "all") {
    for (const invite of table.invites.slice(1)) {
      await call("POST", `/api/tables/${table.id}/seats/${invite.seat}/bot`, { level: settings.level }, table.host);
    }
  }
  go(`/t/${table.id}`);
}

async function yourGames() {
  const section = element("section", { class: "panel" }, element("h2", { text: t("Your games") }));
  const list = element("ul", { class: "games" });
  const tables = Object.entries(remembered()).sort((a, b) => b[1].at - a[1].at).slice(0, 20);
  const infos = await Promise.all(tables.map(([id]) => call("GET", `/api/tables/${id}`).catch(() => null)));
  tables.forEach(([id], index) => {
    const info = infos[index];
    if (!info) return;
    const names = info.seats.map((s) => s.name || "·").join(", ");
    const href = info.status === "finished" ? `/replay/${id}` : `/t/${id}`;
    const status = { open: t("waiting for players"), playing: t("in play"), finished: t("over") }[info.status];
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
