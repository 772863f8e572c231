// Catan Companion: what the board game's page (app.js) and the dice game's page (dice.js)
// share: the DOM and text helpers, the JSON API, the message line and the connection light.
// Loaded before the page's own script, which defines S, its state: S.session is the answer of
// GET /api/session, whose csrf token api() sends with every change.
"use strict";

const $ = (id) => document.getElementById(id);

function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// Wrap an async refresh so that calls during a run are merged into one more run afterwards:
// a burst of updates costs two requests, not one per update.
function coalesced(fn) {
  let running = false;
  let again = false;
  return async () => {
    if (running) { again = true; return; }
    running = true;
    try {
      do { again = false; await fn(); } while (again);
    } finally {
      running = false;
    }
  };
}

// A request to the companion's API: a POST when there is a body (or the method says so), with
// the session's CSRF token. Resolves to the JSON answer; a refusal throws its message.
async function api(path, options = {}) {
  const init = { credentials: "same-origin", headers: {} };
  if (options.body !== undefined || options.method === "POST") {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRF-Token"] = S.session ? S.session.csrf : "";
    init.body = JSON.stringify(options.body === undefined ? {} : options.body);
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error : `the companion answered ${response.status}`;
    throw new Error(message);
  }
  return data;
}

// The message line under the controls: a refusal's reason, or a confirmation (ok).
function say(text, ok = false) {
  const m = $("message");
  m.textContent = text;
  m.classList.toggle("ok", ok);
}

function setConnection(stateName, text) {
  $("connection").dataset.state = stateName;
  $("connection-text").textContent = text;
}

// -- live updates ----------------------------------------------------------------------------

// (Re)open the live updates of /api/events (S.source): a whole state goes to setState, an
// update's events to remember and its state to setState, then to listeners.update; any other
// event's data (parsed) to the listener of its name.
function openUpdates(setState, remember, listeners = {}) {
  if (S.source) S.source.close();
  const source = new EventSource("/api/events");
  S.source = source;
  source.onopen = () => setConnection("live", "live");
  source.onerror = () => setConnection("connecting", "reconnecting");
  source.addEventListener("state", (e) => {
    const state = JSON.parse(e.data);
    if (S.state && state.version < S.state.version) {
      // The companion restarted (versions count from 0 again): the game, its board and its
      // players may all be new, so start the page afresh.
      window.location.reload();
      return;
    }
    // A snapshot ahead of the page (updates made between the page's load and this stream, or
    // dropped while it lagged) carries no events: the page asks for what it missed.
    const behind = S.state && state.version > S.state.version;
    setState(state);
    if (behind && listeners.missed) listeners.missed();
  });
  source.addEventListener("update", (e) => {
    const update = JSON.parse(e.data);
    remember(update.version, update.events);
    setState(update.state);
    if (listeners.update) listeners.update(update);
  });
  for (const [name, listener] of Object.entries(listeners)) {
    if (name !== "update" && name !== "missed") source.addEventListener(name, (e) => listener(JSON.parse(e.data)));
  }
}

// -- session and binding ---------------------------------------------------------------------

// The bind form for a spectator (with the table code on the companion's own screen), or the
// bound player's part of the controls panel.
function renderBinding() {
  const player = S.session.player;
  $("bind-form").hidden = Boolean(player);
  $("bound").hidden = !player;
  $("controls-heading").textContent = player ? "Your controls" : "Join the game";
  if (!player) {
    $("bind-player").innerHTML = S.session.players
      .map((p) => `<option value="${esc(p)}">${esc(cap(p))}</option>`).join("");
  }
  $("code-banner").hidden = true;
  if (S.session.can_show_code && !player) {
    api("/api/table-code").then((data) => {
      $("table-code").textContent = data.code;
      $("code-banner").hidden = false;
    }).catch(() => { /* not this machine: the banner stays hidden */ });
  }
}

// The bind form binds this device to a player, the Leave button makes it a spectator again.
// page.forget drops what the page kept for the player before, page.render shows the session,
// page.connect reopens the live updates (they are the new player's view).
function wireBinding(page) {
  $("bind-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    try {
      const result = await api("/api/bind", {
        body: { code: $("bind-code").value, player: $("bind-player").value },
      });
      S.session = await api("/api/session");
      S.session.csrf = result.csrf;
      page.forget();
      page.render();
      page.connect();
      say(`Joined as ${result.player}.`, true);
    } catch (err) {
      say(err.message);
    }
  });
  $("unbind").addEventListener("click", async () => {
    try {
      await api("/api/unbind", { method: "POST" });
      S.session = await api("/api/session");
      page.forget();
      page.render();
      $("controls").innerHTML = "";
      page.connect();
      say("");
    } catch (err) {
      say(err.message);
    }
  });
}
