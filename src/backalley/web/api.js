// The HTTP API (docs/protocol.md) and what this browser remembers of its tables.
import { language } from "./i18n.js";

let signedIn = null;  // {account, csrf} once asked: who this browser's session is

export async function call(method, path, body, token) {
  const headers = { "content-type": "application/json", "accept-language": language() };
  if (token) headers.authorization = `Bearer ${token}`;
  if (method !== "GET" && signedIn && signedIn.csrf) headers["x-csrf-token"] = signedIn.csrf;
  const answer = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(data.message || answer.statusText);
  return data;
}

/** Deal ``deal``'s review: asked again, after the wait the server names, while it answers
 * that the review is pending (its solver is being prepared, just after a start). */
export async function reviewOf(tableId, deal, credential, suffix = "") {
  for (;;) {
    const answer = await call("GET", `/api/tables/${tableId}/review/${deal}${suffix}`, undefined, credential);
    if (!answer.pending) return answer;
    await new Promise((done) => setTimeout(done, 1000 * (answer.retry_after || 2)));
  }
}

let facts = null;

/** What the server offers (GET /api: presets, options, bot levels), asked once a page load. */
export function about() {
  facts ??= call("GET", "/api").catch((error) => {
    facts = null;  // asked again next time
    throw error;
  });
  return facts;
}

/** Who is signed in here: {account: {id, name} or null, csrf}, asked once a page load. */
export async function me() {
  if (!signedIn) {
    try {
      signedIn = await call("GET", "/api/account");
    } catch {
      return { account: null, csrf: null };
    }
  }
  return signedIn;
}

/** What a sign-in, sign-up or sign-out answered: the session this browser now has. */
export function setMe(answer) {
  signedIn = { account: answer.account, csrf: answer.csrf };
  document.dispatchEvent(new CustomEvent("backalley:account"));
}

const KEY = "backalley.tables";

/** Tables this browser sits at or hosts: {id: {seat, token, name, host, invites, watch}}. */
export function remembered() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

export function remember(tableId, facts) {
  const all = remembered();
  all[tableId] = { ...(all[tableId] || {}), ...facts, at: Date.now() };
  localStorage.setItem(KEY, JSON.stringify(all));
  return all[tableId];
}

/** The secret this browser holds for ``tableId`` — its seat's token, the host's, the watch
 * code (``watch``: one given in the address) — which a private table's routes ask for; the
 * session's cookie goes along by itself. */
export function credentialOf(tableId, watch) {
  const mine = remembered()[tableId] || {};
  if (watch) return watch;
  if (mine.token || mine.host) return mine.token || mine.host;
  if (!mine.watch) return undefined;
  try {  // remembered as the watch link
    return new URL(mine.watch, location.href).searchParams.get("watch") || undefined;
  } catch {
    return undefined;
  }
}

/** This browser no longer sits at ``tableId`` (its player left it). */
export function forget(tableId) {
  const all = remembered();
  delete all[tableId];
  localStorage.setItem(KEY, JSON.stringify(all));
}
