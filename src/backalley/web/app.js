// The page's entry: the header (language, sound, settings), and the route from the address.
import { me } from "./api.js";
import { toast } from "./dom.js";
import { LANGUAGES, chooseLanguage, t, useLanguage } from "./i18n.js";
import { allowNotifications } from "./signal.js";
import { onSetting, setSetting, setting } from "./settings.js";

let leave = null;
let routed = 0;  // the routes taken: a page that comes late to one already left is let go at once

const ICON = (path) => `<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${path}</svg>`;
const SPEAKER = '<path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>';
const SPEAKER_ON = ICON(`${SPEAKER}<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12"/>`);
const SPEAKER_OFF = ICON(`${SPEAKER}<path d="M16 9l5 6M21 9l-5 6"/>`);
const GEAR = ICON('<circle cx="12" cy="12" r="3.2"/><path d="M12 2.5v3M12 18.5v3M2.5 12h3M18.5 12h3M5.3 5.3l2.1 2.1M16.6 16.6l2.1 2.1M5.3 18.7l2.1-2.1M16.6 7.4l2.1-2.1"/>');

function go(path) {
  history.pushState(null, "", path);
  route();
}

async function route() {
  if (leave) leave();
  leave = null;
  const mine = ++routed;
  const main = document.getElementById("main");
  const path = location.pathname;
  try {
    const table = path.match(/^\/t\/([\w-]+)$/);
    const replay = path.match(/^\/replay\/([\w-]+)$/);
    const player = path.match(/^\/players\/([\w-]+)$/);
    const match = path.match(/^\/m\/([\w-]+)$/);
    const daily = path.match(/^\/daily\/(\d{4}-\d{2}-\d{2})\/([\w-]+)$/);
    let left;
    if (table) {
      const { renderTable } = await import("./table.js");
      left = await renderTable(main, table[1], new URLSearchParams(location.search), go);
    } else if (replay) {
      const { renderReplay } = await import("./replay.js");
      left = await renderReplay(main, replay[1], new URLSearchParams(location.search));
    } else if (player) {
      const { renderProfile } = await import("./players.js");
      left = await renderProfile(main, player[1]);
    } else if (match) {
      const { renderMatch } = await import("./match.js");
      left = await renderMatch(main, match[1]);
    } else if (daily) {
      const { renderDaily } = await import("./daily.js");
      left = await renderDaily(main, daily[1], daily[2], new URLSearchParams(location.search));
    } else if (path === "/leaderboard") {
      const { renderLeaderboard } = await import("./players.js");
      left = await renderLeaderboard(main);
    } else if (path === "/account") {
      const { renderAccount } = await import("./account.js");
      left = await renderAccount(main, go);
    } else {
      const { renderHome } = await import("./home.js");
      left = await renderHome(main, go);
    }
    if (mine === routed) leave = left;
    else if (left) left();
  } catch (error) {
    toast(error.message);
  }
}

const SPEEDS = () => [["slower", t("slower")], ["normal", t("normal")], ["fast", t("fast")], ["tap", t("wait for a tap")]];

function settingsDialog() {
  const dialog = document.getElementById("settings");
  document.getElementById("open-settings").addEventListener("click", () => dialog.showModal());
  const speed = document.getElementById("speed");
  speed.addEventListener("change", () => setSetting("speed", speed.value));
  for (const [id, name] of [["autoplay", "autoplay"], ["sound", "sound"], ["four-colour", "four"]]) {
    const box = document.getElementById(id);
    box.addEventListener("change", () => setSetting(name, box.checked));
  }
  const notify = document.getElementById("notify");
  notify.addEventListener("change", async () => {
    const allowed = notify.checked && (await allowNotifications());
    if (notify.checked && !allowed) toast(t("the browser does not allow notifications from this page"));
    notify.checked = allowed;
    setSetting("notify", allowed);
  });
  document.getElementById("mute").addEventListener("click", () => setSetting("sound", !setting("sound")));
  onSetting(showSettings);
}

function showSettings() {
  const speed = document.getElementById("speed");
  speed.replaceChildren(...SPEEDS().map(([value, label]) => new Option(label, value)));
  speed.value = setting("speed");
  document.getElementById("autoplay").checked = setting("autoplay");
  document.getElementById("sound").checked = setting("sound");
  document.getElementById("notify").checked = setting("notify");
  document.getElementById("four-colour").checked = setting("four");
  document.body.classList.toggle("four-colour", setting("four"));
  const mute = document.getElementById("mute");
  mute.innerHTML = setting("sound") ? SPEAKER_ON : SPEAKER_OFF;
  mute.setAttribute("aria-pressed", String(!setting("sound")));
  mute.setAttribute("aria-label", t("mute the sounds"));
}

function labels() {
  const words = {
    "lang-label": t("Language"), "settings-title": t("Settings"), "speed-label": t("After a trick, the cards rest"),
    "autoplay-label": t("play a lone legal card by itself"), "sound-label": t("sounds"),
    "notify-label": t("a notification when it is my turn and this tab is hidden"), "four-colour-label": t("four colours"),
    "settings-done": t("done"), skip: t("Skip to the game"),
  };
  for (const [id, text] of Object.entries(words)) document.getElementById(id).textContent = text;
  document.getElementById("nav-board").textContent = t("Leaderboard");
  showAccount();
  const open = document.getElementById("open-settings");
  open.innerHTML = GEAR;
  open.setAttribute("aria-label", t("Settings"));
  showSettings();
}

/** The header's account link: "Sign in", or the name signed in. */
async function showAccount() {
  const { account } = await me();
  const link = document.getElementById("nav-account");
  link.textContent = account ? account.name : t("Sign in");
  link.setAttribute("aria-label", account ? t("your account: {name}", { name: account.name }) : t("Sign in"));
}

async function start() {
  await useLanguage(chooseLanguage());
  const select = document.getElementById("lang");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = document.documentElement.lang;
  select.addEventListener("change", async () => {
    localStorage.setItem("backalley.lang", select.value);
    await useLanguage(select.value);
    labels();
    route();
  });
  settingsDialog();
  document.getElementById("skip").addEventListener("click", (event) => {
    const target = [".bids [tabindex='0']", ".hand [tabindex='0']", "#table", "main"]
      .map((selector) => document.querySelector(selector)).find(Boolean);
    event.preventDefault();
    target.focus();
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href^='/']");
    if (link && !link.hasAttribute("download")) {
      event.preventDefault();
      go(link.getAttribute("href"));
    }
  });
  window.addEventListener("popstate", route);
  document.addEventListener("backalley:account", showAccount);
  labels();
  route();
}

start();
