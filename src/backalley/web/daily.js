// The daily deals: today's sets on the home page (play, go on, or see the results), and a
// day's results — the ranking for all; each deal's field, review and the others' play once
// the viewer has finished the day's set.
import { call, credentialOf, remember, remembered } from "./api.js";
import { element, keepName, toast } from "./dom.js";
import { t } from "./i18n.js";
import { setting } from "./settings.js";

const RULES = () => ({ standard: t("standard rules"), bab: t("bab-online's rules") });

function setTitle(set) {
  return t("{rules}, {sizes} cards", { rules: RULES()[set.rules] || set.rules, sizes: set.hand_sizes.join(", ") });
}

/** This browser's tries at today's set, remembered with their tables (a guest's only way). */
function triesHere(label) {
  return Object.entries(remembered()).filter(([, facts]) => facts.daily === label).map(([id, facts]) => ({ table: id, ...facts }));
}

/** The home page's panel of today's deals: one line a set, with what the viewer may do. */
export async function dailyPanel(name, go) {
  const section = element("section", { class: "panel daily", "aria-labelledby": "daily-title" },
    element("h2", { id: "daily-title", text: t("Today's deals") }),
    element("p", { class: "quiet", text: t("The same cards for everyone today, three bots at your table. Each deal is scored against everyone who held your cards.") }));
  let today;
  try {
    today = await call("GET", "/api/daily");
  } catch (error) {
    section.append(element("p", { text: error.message }));
    return section;
  }
  const list = element("ul", { class: "daily-list" });
  for (const set of today.sets) {
    const label = `${today.day}/${set.name}`;
    const tries = set.tries.length ? set.tries : triesHere(label).map((tr) => ({ table: tr.table, finished: !!tr.finished, ranked: !!tr.ranked }));
    const finished = tries.find((tr) => tr.finished);
    const going = tries.find((tr) => !tr.finished);
    const actions = element("div", { class: "daily-actions" });
    const results = element("a", { class: "button", href: `/daily/${label}${finished ? `?table=${finished.table}` : ""}`, text: finished ? t("Your results") : t("Results so far") });
    if (going) {
      actions.append(element("a", { class: "button primary", href: `/t/${going.table}`, text: t("Go on with your try") }));
    } else {
      const play = element("button", { type: "button", class: "primary", "data-daily": set.name, text: finished ? t("Play again, unranked") : t("Play today's deals") });
      play.addEventListener("click", async () => {
        if (!name.input.reportValidity()) return;
        play.disabled = true;
        try {
          await startDaily(set.name, name.input.value, go);
        } catch (error) {
          toast(error.message);
          play.disabled = false;
        }
      });
      actions.append(play);
    }
    actions.append(results);
    list.append(element("li", { "data-set": set.name },
      element("div", {}, element("strong", { text: setTitle(set) }),
        element("span", { class: "quiet", text: ` · ${t("bots: {level}", { level: t(set.level) })} · ${t("{n} ranked so far", { n: set.finished })}` })),
      actions));
  }
  section.append(list);
  return section;
}

// The bots' pace at one's daily table, from how quickly this player likes the game to go.
const PACES = { slower: 1, normal: 0.6, fast: 0.3, tap: 0.6 };

async function startDaily(setName, name, go) {
  const kept = keepName(name);
  const started = await call("POST", `/api/daily/${setName}`, { name: kept, pace: PACES[setting("speed")] ?? 0.6 });
  if (started.token) remember(started.id, { seat: started.seat, token: started.token, name: kept, daily: started.daily, ranked: started.ranked });
  go(`/t/${started.id}`);
}

function percent(value) {
  return `${value.toFixed(1)} %`;
}

function pointsText(points) {
  return points > 0 ? `+${points}` : String(points);
}

function rankingTable(results) {
  const table = element("table", { class: "board ranking" }, element("caption", { text: t("Ranking") }));
  const head = element("tr", {});
  for (const label of [t("place"), t("player"), t("score")]) head.append(element("th", { scope: "col", text: label }));
  table.append(element("thead", {}, head));
  const body = element("tbody", {});
  let before = 0;
  for (const row of results.ranking) {
    if (row.position !== before + 1) body.append(element("tr", { class: "gap" }, element("td", { colspan: "3", text: "…" })));
    before = row.position;
    const who = row.account ? element("a", { href: `/players/${row.account}`, text: row.name }) : element("span", { text: row.name });
    const line = element("tr", { class: row.you ? "you" : "" }, element("td", { text: String(row.rank) }), element("td", {}, who), element("td", { text: percent(row.score) }));
    if (row.you) line.setAttribute("aria-current", "true");
    body.append(line);
  }
  if (!results.ranking.length) body.append(element("tr", {}, element("td", { colspan: "3", text: t("Nobody has finished today's deals yet.") })));
  table.append(body);
  return table;
}

function standing(results) {
  const you = results.you;
  const box = element("section", { class: "panel daily-you", "aria-labelledby": "you-title" }, element("h2", { id: "you-title", text: t("You") }));
  if (!you) {
    box.append(element("p", { text: t("You have not played this day's deals.") }));
  } else if (!you.finished) {
    box.append(element("p", { text: t("Finish your try to see each deal's results and how others played it.") }),
      element("a", { class: "button primary", href: `/t/${you.table}`, text: t("Go on with your try") }));
  } else {
    const place = you.ranked
      ? t("Place {rank} of {n}", { rank: you.rank, n: results.players })
      : t("You would be placed {rank} of {n}: this try is not ranked (a guest's, or a second try)", { rank: you.rank, n: results.players });
    box.append(element("p", { class: "daily-score" }, element("strong", { text: percent(you.score) }), element("span", { text: ` · ${place}` })));
  }
  return box;
}

function fieldTable(deal) {
  const most = Math.max(1, ...deal.field.map(([, count]) => count));
  const table = element("table", { class: "field" }, element("caption", { class: "sr", text: t("Results of deal {n}", { n: deal.number + 1 }) }));
  const head = element("tr", {});
  for (const label of [t("points"), t("players"), ""]) head.append(element("th", { scope: "col", text: label }));
  table.append(element("thead", {}, head));
  const body = element("tbody", {});
  for (const [points, count] of deal.field.slice().reverse()) {
    const bar = element("span", { class: "bar" });
    bar.style.width = `${Math.round((100 * count) / most)}%`;  // the CSSOM: no inline style (CSP)
    const mine = points === deal.points;
    body.append(element("tr", { class: mine ? "you" : "" }, element("td", { text: pointsText(points) }), element("td", { text: String(count) }),
      element("td", { class: "bar-cell", "aria-hidden": "true" }, bar, mine ? element("span", { class: "you-mark", text: t("you") }) : "")));
  }
  table.append(body);
  return table;
}

function dealPanel(deal, mine) {
  const panel = element("section", { class: "panel daily-deal", "aria-labelledby": `deal-${deal.number}` },
    element("h3", { id: `deal-${deal.number}`, text: t("Deal {n}", { n: deal.number + 1 }) }),
    element("p", {}, element("strong", { text: pointsText(deal.points) }),
      element("span", { text: ` · ${t("better than {share} of the field", { share: percent(deal.share) })}` })));
  if (deal.field.length) panel.append(fieldTable(deal));
  panel.append(element("p", {}, element("a", { class: "button", href: `/replay/${mine}?deal=${deal.number}`, text: t("Your play, and its double-dummy review") })));
  if (deal.others.length) {
    const others = element("ul", { class: "others" });
    for (const other of deal.others) {
      others.append(element("li", {}, element("a", { href: `/replay/${other.table}?via=${mine}&deal=${deal.number}`, text: other.name }), ` ${pointsText(other.points)}`));
    }
    panel.append(element("h4", { text: t("How others played it") }), others);
  }
  return panel;
}

/** Draw a day's results for a set. */
export async function renderDaily(main, day, setName, params) {
  const table = params.get("table");
  const query = table ? `?table=${encodeURIComponent(table)}` : "";
  const results = await call("GET", `/api/daily/${day}/${setName}${query}`, undefined, table ? credentialOf(table) : undefined);
  const head = element("section", { class: "panel daily-head" },
    element("h1", { text: t("Daily deals of {day}", { day: results.day }) }),
    element("p", { text: `${setTitle(results)} · ${t("bots: {level}", { level: t(results.level) })} · ${t("{n} ranked", { n: results.players })}` }));
  const parts = [head, standing(results), element("section", { class: "panel" }, rankingTable(results))];
  if (results.deals) {
    const mine = results.you.table;
    parts.push(element("div", { class: "daily-deals" }, ...results.deals.map((deal) => dealPanel(deal, mine))));
  }
  main.replaceChildren(element("div", { class: "daily-page" }, ...parts));
  return null;
}
