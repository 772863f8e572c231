// Catan Companion: the live page. Everything it shows comes from the JSON API (docs/api.md);
// live updates arrive as server-sent events from /api/events. No framework, no network beyond
// this server: the page works offline at the table.
"use strict";

const RESOURCES = ["lumber", "brick", "wool", "grain", "ore"];
const TERRAIN_RESOURCE = {
  forest: "lumber", hills: "brick", pasture: "wool", fields: "grain", mountains: "ore",
};
const DEV_NAMES = {
  knight: "Knight", victory_point: "Victory point", road_building: "Road Building",
  year_of_plenty: "Year of Plenty", monopoly: "Monopoly",
};
// Fill colours of the usual piece colours; anything else is drawn grey.
const PALETTE = {
  red: "#d32f2f", blue: "#1e63c6", white: "#f4f4f4", orange: "#f28c28", green: "#2e9d48",
  brown: "#7b4a22", yellow: "#f2d024", black: "#222222",
};
const LOG_SIZE = 60;
// Action types with their own controls; any other legal action is listed under "Other actions"
// (moving a ship, the pirate, and whatever the engine learns next).
const HANDLED = new Set(["roll_dice", "discard", "move_robber", "build_settlement", "build_city",
  "build_road", "build_ship", "buy_development_card", "play_knight", "play_road_building",
  "play_monopoly", "play_year_of_plenty", "maritime_trade", "choose_gold", "end_turn"]);
// Events after which the dice or board statistics change.
const STATS_EVENTS = new Set(["rolled", "undone", "built", "robber_moved"]);

const S = {
  session: null, // {player, players, csrf, can_show_code}
  board: null, // /api/board
  hexInfo: new Map(), // "q,r" -> {terrain, number}
  state: null,
  actions: null, // /api/actions for the bound player
  actionsKey: "",
  clearControls: false,
  offers: [], // open trade offers made by or to this device's player
  otherActions: [], // the actions listed under "Other actions"
  stats: null,
  log: [], // [{version, text}] newest last
  lastRolled: null, // the latest "rolled" event seen
  source: null, // the EventSource
};

const colour = (name) => PALETTE[name] || "#8a8a8a";
// Colours are applied through the CSSOM (paint), as the page's CSP forbids inline styles.
const swatch = (name) =>
  `<span class="swatch" data-colour="${esc(colour(name))}" aria-hidden="true"></span>`;

function paint(root) {
  for (const el of root.querySelectorAll(".swatch")) el.style.background = el.dataset.colour;
  for (const el of root.querySelectorAll(".player, .scenario-card[data-color]")) {
    el.style.setProperty("--pc", colour(el.dataset.color));
  }
}

function cardsText(cards) {
  const parts = RESOURCES.filter((r) => cards && cards[r]).map((r) => `${cards[r]} ${r}`);
  return parts.length ? parts.join(", ") : "nothing";
}

function pips(n) { return 6 - Math.abs(7 - n); }

// -- the API ---------------------------------------------------------------------------------

async function post(action) {
  say("");
  try {
    await api("/api/actions", { body: action });
    S.clearControls = true; // what was entered is done: the next controls start empty
    say("Done.", true);
  } catch (err) {
    say(err.message);
  }
}

// -- start-up and live updates ---------------------------------------------------------------

async function boot() {
  try {
    S.session = await api("/api/session");
    setBoard(await api("/api/board"));
    renderSession();
    renderLog();
    const state = await api("/api/state");
    for (const item of state.recent || []) remember(item.version, item.events);
    setState(state);
    refreshStats();
    connect();
  } catch (err) {
    $("turn-line").textContent = `Cannot reach the companion: ${err.message}`;
    setConnection("down", "offline");
  }
}

function connect() {
  openUpdates(setState, remember, {
    camera: () => refreshCamera(),
    missed: () => {
      api("/api/state").then((state) => {
        const known = S.log.length ? S.log[S.log.length - 1].version : -1;
        for (const item of state.recent || []) {
          if (item.version > known) remember(item.version, item.events);
        }
      }).catch(() => { /* the next update brings the page up to date */ });
    },
    offers: (data) => {
      S.offers = data.offers;
      renderOffers();
    },
    update: (update) => {
      if (update.events.some((ev) => STATS_EVENTS.has(ev.type))) refreshStats();
      if (update.events.some((ev) => ev.type === "explored" || ev.board_changed)) refreshBoard();
      if (update.type === "parts") refreshCamera();
    },
  });
}

function remember(version, events) {
  for (const ev of events) {
    if (ev.type === "rolled") S.lastRolled = ev;
    S.log.push({ version, text: describe(ev) });
  }
  if (S.log.length > LOG_SIZE) S.log.splice(0, S.log.length - LOG_SIZE);
  renderLog();
}

function setState(state) {
  if (S.state && state.version < S.state.version) return; // an older answer arrived late
  S.state = state;
  renderState();
  if (S.session.player) refreshActions();
}

const refreshActions = coalesced(async () => {
  const version = S.state.version;
  try {
    S.actions = await api("/api/actions");
  } catch (err) {
    S.actions = null;
    say(err.message);
  }
  renderControls();
  drawSpots();
  // The controls now offer what was legal at (at least) this version (tests wait on it).
  $("controls").dataset.version = String(version);
});

// A Seafarers fog hex turned face up, or a scenario's event says so (a harbour token moved):
// the board itself changed.
const refreshBoard = coalesced(async () => {
  try {
    setBoard(await api("/api/board"));
    drawBoard();
  } catch (err) {
    say(err.message);
  }
});

function setBoard(board) {
  S.board = board;
  S.hexInfo = new Map(board.board.hexes.map((h) => [`${h.q},${h.r}`, h]));
  drawStaticBoard();
}

const refreshStats = coalesced(async () => {
  try {
    S.stats = await api("/api/stats");
    renderStats();
  } catch (err) {
    $("fairness").textContent = `Statistics unavailable: ${err.message}`;
  }
});

async function refreshCamera() {
  const box = $("camera");
  try {
    const data = await api("/api/proposals");
    const cam = data.camera;
    const status = cam ? `${cam.up ? "Camera running" : "Camera down"}${cam.detail ? `: ${esc(cam.detail)}` : ""}`
      : "No camera connected: enter what happens with the controls.";
    const bound = Boolean(S.session && S.session.player);
    const item = (p, kind) => {
      const choices = (p.choices || []).map((c) => `<option value="${esc(c)}">${esc(cap(c))}</option>`).join("");
      // The proposal says what its choices answer: the robber's victim, or a coast side's kind.
      const asked = p.asks === "kind" ? "Road or ship" : "Who was robbed";
      const pick = choices ? `<select aria-label="${asked}" data-choice="${p.id}">${choices}</select>` : "";
      const buttons = !bound ? "" : (kind === "proposal"
        ? `${pick}<button type="button" data-confirm="${p.id}">Confirm</button>`
        : "") + `<button type="button" data-dismiss="${p.id}">Dismiss</button>`;
      const fix = p.fix ? ` <span class="small">${esc(p.fix)}</span>` : "";
      return `<li>${esc(p.text || "")}${fix} ${buttons}</li>`;
    };
    const items = data.proposals.map((p) => item(p, "proposal"))
      .concat((data.discrepancies || []).map((p) => item(p, "discrepancy"))).join("");
    const view = cam && cam.up
      ? `<p><button type="button" id="camera-show">Show the camera's view</button></p><img id="camera-view" alt="What the camera sees, with the grid it found" hidden>`
      : "";
    box.innerHTML = `<p class="small">${status}</p>` + view +
      (items ? `<ol class="log">${items}</ol>` : `<p class="small">No proposals to confirm.</p>`);
    const show = $("camera-show");
    if (show) show.addEventListener("click", () => {
      const img = $("camera-view");
      img.src = `/api/camera.jpg?t=${Date.now()}`;  // on request: a fresh picture each time
      img.hidden = false;
    });
    box.querySelectorAll("[data-confirm]").forEach((b) => b.addEventListener("click", async () => {
      const sel = box.querySelector(`[data-choice="${b.dataset.confirm}"]`);
      try {
        await api(`/api/proposals/${b.dataset.confirm}/confirm`, { body: sel ? { choice: sel.value } : {} });
        say("Done.", true);
      } catch (err) { say(err.message); }
      refreshCamera();
    }));
    box.querySelectorAll("[data-dismiss]").forEach((b) => b.addEventListener("click", async () => {
      try { await api(`/api/proposals/${b.dataset.dismiss}/dismiss`, { method: "POST" }); } catch (err) { say(err.message); }
      refreshCamera();
    }));
  } catch (err) {
    box.textContent = err.message;
  }
}

// -- session and binding ---------------------------------------------------------------------

function renderSession() {
  const player = S.session.player;
  renderBinding();
  $("you-panel").hidden = !player;
  refreshCalibration();
  refreshCamera();  // its answers are for bound players only: a device bound later gets them
  if (player) {
    $("bound-color").innerHTML = `${swatch(player)} ${esc(cap(player))}`;
    paint($("bound-color"));
  }
}

// What the page kept for the player this device was bound to (binding.forget).
function forgetPlayer() {
  S.actions = null;
  S.actionsKey = "";
  S.offers = [];
  renderOffers();
  drawSpots();
}

// -- text ------------------------------------------------------------------------------------

function phaseText(state) {
  const who = cap(state.current);
  switch (state.phase) {
    case "founding_settlement": return `Founding: ${who} places a settlement`;
    case "founding_road": return `Founding: ${who} places a road`;
    case "roll": return `Turn ${state.turn}: ${who} to roll`;
    case "discard": {
      const waiting = state.players.filter((p) => p.to_discard)
        .map((p) => `${cap(p.color)} (${p.to_discard})`).join(", ");
      return `A 7! Waiting for discards: ${waiting}`;
    }
    case "move_robber": return `${who} moves the robber`;
    case "main": return `Turn ${state.turn}: ${who} trades and builds`;
    case "road_building": return `Road Building: ${who} places free roads`;
    case "choose_gold": {
      const waiting = Object.entries(state.gold_due || {})
        .map(([p, n]) => `${cap(p)} (${n})`).join(", ");
      return `Gold: waiting for ${waiting} to choose`;
    }
    case "special_build": return `Special building phase: ${cap(state.actor || state.current)} may build`;
    case "game_over": return `Game over: ${cap(state.winner)} won!`;
    default: return `${who}: ${state.phase}`;
  }
}

function describe(ev) {
  const who = ev.player ? cap(ev.player) : "";
  switch (ev.type) {
    case "built": return `${who} built a ${ev.piece}`;
    case "starting_resources": return `${who} took starting cards: ${cardsText(ev.cards)}`;
    case "rolled": {
      const gains = Object.entries(ev.gains || {})
        .map(([p, c]) => `${cap(p)} +${cardsText(c)}`).join("; ");
      return `${who} rolled ${ev.dice[0]} + ${ev.dice[1]} = ${ev.total}` +
        (gains ? ` (${gains})` : "");
    }
    case "discarded": return `${who} discarded ${cardsText(ev.cards)}`;
    case "robber_moved":
      return `${who} moved the robber` + (ev.victim ? ` and robbed ${cap(ev.victim)}` : "") +
        (ev.stolen ? ` (1 ${ev.stolen})` : "");
    case "maritime_trade":
      return `${who} traded ${cardsText(ev.give)} for ${cardsText(ev.get)} with the bank`;
    case "domestic_trade":
      return `${who} gave ${cardsText(ev.give)} to ${cap(ev.partner)} for ${cardsText(ev.get)}`;
    case "bought_card":
      return `${who} bought a development card` + (ev.card ? ` (${DEV_NAMES[ev.card]})` : "");
    case "played_card": {
      let text = `${who} played ${DEV_NAMES[ev.card] || ev.card}`;
      if (ev.cards) text += `: ${cardsText(ev.cards)}`;
      if (ev.resource) text += `: all ${ev.resource}`;
      return text;
    }
    case "longest_road":
      return ev.player ? `${who} holds Longest Road (${ev.length})` : "Longest Road is set aside";
    case "largest_army": return `${who} holds Largest Army (${ev.knights} knights)`;
    case "turn": return `Turn ${ev.turn}: ${who}`;
    case "won": return `${who} won with ${ev.victory_points} points!`;
    case "undone": return `Undone: ${ev.action.replace(/_/g, " ")}`;
    // A scenario's event says in ``text`` what happened (docs/api.md, the scenario panel).
    default: return `${who} ${ev.text || ev.type.replace(/_/g, " ")}`;
  }
}

function hexName(key) {
  const h = S.hexInfo.get(key);
  if (!h) return "the sea";
  return h.number ? `${h.terrain} ${h.number}` : h.terrain;
}

function spotName(kind, key) {
  const around = (kind === "edge" ? S.board.layout.edge_hexes : S.board.layout.vertex_hexes)[key];
  const names = (around || []).map((qr) => hexName(qr.join(","))).filter((n) => n !== "the sea");
  return names.length ? `by ${names.join(", ")}` : `at ${key}`;
}

// -- rendering -------------------------------------------------------------------------------

function renderState() {
  const state = S.state;
  $("turn-line").textContent = phaseText(state);
  drawBoard();
  renderLastRoll();
  renderPlayers();
  renderYou();
  renderScenario();
  renderOffers();
  $("setup-panel").hidden = !state.phase.startsWith("founding");
  if (S.stats) renderStats();
  // Last: the version on <body> says the whole page shows this state (tests wait on it).
  document.body.dataset.phase = state.phase;
  document.body.dataset.version = String(state.version);
}

function renderLastRoll() {
  const state = S.state;
  const box = $("last-roll");
  if (!state.last_roll) {
    box.innerHTML = `<span class="small">No roll yet.</span>`;
    return;
  }
  const [a, b] = state.last_roll;
  let html = `Last roll: <span class="dice">${a} + ${b} = ${a + b}</span>`;
  const ev = S.lastRolled;
  if (ev && ev.dice[0] === a && ev.dice[1] === b) {
    html = `${esc(cap(ev.player))} rolled <span class="dice">${a} + ${b} = ${a + b}</span>`;
    const gains = Object.entries(ev.gains || {});
    if (gains.length) {
      html += "<ul>" + gains.map(([p, c]) =>
        `<li>${swatch(p)} ${esc(cap(p))} got ${esc(cardsText(c))}</li>`).join("") + "</ul>";
    } else if (a + b !== 7) {
      html += " — nobody got anything";
    }
    if (ev.blocked && ev.blocked.length) html += ` <span class="small">(robber blocks a hex)</span>`;
  }
  box.innerHTML = html;
  paint(box);
}

function renderPlayers() {
  const state = S.state;
  const me = S.session.player;
  const target = S.board.victory_points;
  $("players").innerHTML = state.players.map((p) => {
    const badges = [];
    if (p.longest_road) badges.push(`<span class="badge">Longest Road</span>`);
    if (p.largest_army) badges.push(`<span class="badge">Largest Army</span>`);
    if (p.to_discard) badges.push(`<span class="badge wait">discards ${p.to_discard}</span>`);
    const vp = me === p.color && state.you ? state.you.victory_points : p.victory_points;
    const hidden = me === p.color && state.you && vp !== p.victory_points
      ? ` <small>${p.victory_points} shown</small>` : "";
    const left = p.pieces_left;
    const current = p.color === (state.actor || state.current);
    return `<li class="player${current ? " current" : ""}" data-color="${esc(p.color)}"
        aria-current="${current ? "true" : "false"}">
      <span class="name">${swatch(p.color)} ${esc(cap(p.color))}${me === p.color ? `<span class="tag">you</span>` : ""}${current ? `<span class="tag">to play</span>` : ""}</span>
      <span class="vp" aria-label="${vp} of ${target} victory points">${vp}<small>of ${target} VP</small>${hidden}</span>
      <ul class="facts">
        <li>Cards <b>${p.resource_count}</b></li>
        <li>Dev <b>${p.development_count}</b></li>
        <li>Knights <b>${p.knights_played}</b></li>
        <li>Road <b>${p.road_length}</b></li>
      </ul>
      <ul class="facts small" aria-label="pieces left">
        <li>Left: <b>${left.settlements}</b> settlements</li>
        <li><b>${left.cities}</b> cities</li>
        <li><b>${left.roads}</b> roads</li>
        ${S.board.ships ? `<li><b>${left.ships}</b> ships</li>` : ""}
      </ul>
      <p class="expect small"></p>
      <div class="badges">${badges.join("")}</div>
    </li>`;
  }).join("");
  paint($("players"));
  if (S.stats) renderExpectations();
  const bank = RESOURCES.map((r) => `${r} ${state.bank[r] || 0}`).join(", ");
  $("bank").textContent = `Bank: ${bank}. Development cards left: ${state.deck_size}.`;
}

function renderYou() {
  const you = S.state.you;
  if (!you) return;
  const cards = RESOURCES.map((r) => {
    const n = you.resources[r] || 0;
    return `<li class="card ${r}${n ? "" : " empty"}"><b>${n}</b><span>${r}</span></li>`;
  }).join("");
  const devs = Object.entries(you.development_cards);
  const devHtml = devs.length
    ? devs.map(([c, n]) => `<li class="card dev"><b>${n}</b><span>${esc(DEV_NAMES[c] || c)}</span></li>`).join("")
    : `<li class="small">No development cards.</li>`;
  const fresh = Object.entries(you.bought_this_turn || {})
    .map(([c, n]) => `${n} ${DEV_NAMES[c] || c}`);
  const ratios = RESOURCES.filter((r) => you.trade_ratios[r] < 4)
    .map((r) => `${you.trade_ratios[r]}:1 ${r}`);
  $("you").innerHTML = `<ul class="cards" aria-label="your resource cards">${cards}</ul>
    <ul class="cards" aria-label="your development cards">${devHtml}</ul>
    ${fresh.length ? `<p class="small">Bought this turn (playable from your next turn): ${esc(fresh.join(", "))}.</p>` : ""}
    <p class="small">Victory points with hidden cards: <b>${you.victory_points}</b>.
      Bank trades: ${ratios.length ? esc(ratios.join(", ")) : "4:1"}.</p>`;
}

// -- the scenario panel: any scenario's tokens, cards and actions, drawn from the state -------

// Panels shaped as docs/api.md "The scenario panel" describes; the page knows no scenario.
function renderScenario() {
  const scenario = S.state.scenario;
  $("scenario-panel").hidden = !scenario;
  if (!scenario) return;
  const you = S.state.you && S.state.you.scenario ? S.state.you.scenario.panels : [];
  const panels = scenario.panels.concat(you.map((p) => ({ ...p, mine: true })));
  const box = $("scenario");
  box.innerHTML = panels.map(scenarioBlock).join("") ||
    `<p class="small">Nothing to show for this scenario yet.</p>`;
  paint(box);
}

function scenarioBlock(panel) {
  const sections = (panel.sections || []).map((sec) => {
    const items = sec.items || [];
    const title = sec.title ? `<h4>${esc(sec.title)}</h4>` : "";
    if (!items.length) return `${title}<p class="small">none</p>`;
    if (sec.kind === "counters") {
      return `${title}<ul class="counters">${items.map((it) => `<li class="counter">
        <b>${esc(it.value ?? "")}</b><span>${it.color ? swatch(it.color) + " " : ""}${esc(it.label)}</span>
        ${it.text ? `<span class="small">${esc(it.text)}</span>` : ""}</li>`).join("")}</ul>`;
    }
    if (sec.kind === "cards") {
      return `${title}<ul class="scenario-cards">${items.map((it) => `<li class="scenario-card"
        ${it.color ? `data-color="${esc(it.color)}"` : ""}><b>${esc(it.label)}</b>${tagsHtml(it)}
        ${it.value !== undefined ? ` <span>${esc(it.value)}</span>` : ""}
        ${it.text ? `<p>${esc(it.text)}</p>` : ""}</li>`).join("")}</ul>`;
    }
    return `${title}<ul class="scenario-list">${items.map((it) => `<li>${it.color ? swatch(it.color) + " " : ""}${esc(it.label)}${
      it.value !== undefined ? `: <b>${esc(it.value)}</b>` : ""}${it.text ? ` — ${esc(it.text)}` : ""}${tagsHtml(it)}</li>`).join("")}</ul>`;
  }).join("");
  return `<section class="scenario-block" data-hook="${esc(panel.hook)}">
    <h3>${esc(panel.title || cap(String(panel.hook).replace(/_/g, " ")))}${panel.mine ? `<span class="tag-chip">only you see this</span>` : ""}</h3>
    ${panel.text ? `<p>${esc(panel.text)}</p>` : ""}${sections}</section>`;
}

function tagsHtml(item) {
  return (item.tags || []).map((t) => `<span class="tag-chip">${esc(t)}</span>`).join("");
}

// The action types a scenario adds, with their labels (empty without a scenario).
function scenarioLabels() {
  return (S.state && S.state.scenario && S.state.scenario.actions) || {};
}

// A scenario action's parameters in words ("guild: traders, resource: ore").
function paramsText(a) {
  return Object.entries(a).filter(([k]) => k !== "type" && k !== "player")
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${paramText(k, v)}`).join(", ");
}

function paramText(key, value) {
  if (Array.isArray(value) && value.length === 2 && Number.isInteger(value[0]) && key === "hex") {
    return hexName(value.join(","));
  }
  if (Array.isArray(value) && value.length === 3 && Number.isInteger(value[0])) {
    return spotName(["N", "S"].includes(value[2]) ? "vertex" : "edge", value.join(","));
  }
  if (Array.isArray(value)) return value.map((v) => paramText(key, v)).join(" and ");
  if (value && typeof value === "object") return cardsText(value);
  if (S.session.players.includes(value)) return cap(value);
  return String(value).replace(/_/g, " ");
}

// The bound player's legal scenario actions: a button each while they are few, else a list
// to choose from and one button.
function renderScenarioActions(acts) {
  const box = $("scenario-actions");
  const labels = scenarioLabels();
  const byType = new Map();
  for (const a of acts) {
    if (labels[a.type]) byType.set(a.type, (byType.get(a.type) || []).concat([a]));
  }
  S.scenarioActions = [];
  const parts = [];
  for (const [type, list] of byType) {
    const label = labels[type];
    const first = S.scenarioActions.length;
    S.scenarioActions.push(...list);
    if (list.length <= 6) {
      parts.push(`<fieldset class="control"><legend>${esc(label)}</legend><div class="row">${list.map((a, i) => {
        const params = paramsText(a);
        return `<button type="button" data-scenario="${first + i}">${esc(params ? `${label}: ${params}` : label)}</button>`;
      }).join("")}</div></fieldset>`);
    } else {
      parts.push(`<fieldset class="control"><legend>${esc(label)}</legend><div class="row">
        <select id="scenario-${esc(type)}" aria-label="${esc(label)}">${list.map((a, i) =>
          `<option value="${first + i}">${esc(paramsText(a) || label)}</option>`).join("")}</select>
        <button type="button" data-scenario-pick="${esc(type)}">${esc(label)}</button></div></fieldset>`);
    }
  }
  // A choice survives the redraw by its words: the same index may name another action now.
  const kept = {};
  for (const el of box.querySelectorAll("select[id]")) {
    if (el.selectedIndex >= 0) kept[el.id] = el.options[el.selectedIndex].textContent;
  }
  box.innerHTML = parts.join("");
  for (const [id, text] of Object.entries(kept)) {
    const option = $(id) && [...$(id).options].find((o) => o.textContent === text);
    if (option) $(id).value = option.value;
  }
}

function scenarioClicked(button) {
  if (button.dataset.scenario !== undefined) {
    return post(S.scenarioActions[Number(button.dataset.scenario)]);
  }
  const select = $(`scenario-${button.dataset.scenarioPick}`);
  return select ? post(S.scenarioActions[Number(select.value)]) : undefined;
}

function renderLog() {
  $("log").innerHTML = S.log.slice().reverse().map((e) => `<li>${esc(e.text)}</li>`).join("") ||
    `<li class="small">Nothing yet.</li>`;
}

function renderStats() {
  const dice = S.stats.dice;
  const max = Math.max(1, ...Object.values(dice.histogram), ...Object.values(dice.expected));
  const w = 26, gap = 4, base = 125, top = 12, height = base - top;
  let bars = "";
  let expected = "";
  for (let t = 2; t <= 12; t++) {
    const x = 12 + (t - 2) * (w + gap);
    const n = dice.histogram[t];
    const h = (n / max) * height;
    const e = base - (dice.expected[t] / max) * height;
    bars += `<rect class="bar" x="${x}" y="${base - h}" width="${w}" height="${h}" rx="3"></rect>`;
    if (n) bars += `<text class="count-text" x="${x + w / 2}" y="${base - h - 3}">${n}</text>`;
    bars += `<text class="axis-text" x="${x + w / 2}" y="${base + 14}">${t}</text>`;
    expected += `${t === 2 ? "M" : "L"}${x + w / 2},${e.toFixed(1)} `;
  }
  if (dice.rolls) bars += `<path class="expected" d="${expected}"></path>`;
  $("histogram-bars").innerHTML = bars;
  $("histogram-desc").textContent = Object.entries(dice.histogram)
    .map(([t, n]) => `${t}: ${n} (expected ${dice.expected[t]})`).join(", ");
  $("fairness").innerHTML = fairnessText(dice, S.stats.table_dice);
  renderExpectations();
  renderSetup();
}

// The fairness test covers the table's dice only (tower and typed-in physical dice).
function fairnessText(all, dice) {
  const rolls = `${all.rolls} roll${all.rolls === 1 ? "" : "s"}; dashed line: expected.`;
  const test = dice.totals_test || dice.faces_test;
  if (!test) {
    return `${rolls} The fairness test of the table's dice needs ${dice.faces_min_rolls} ` +
      `of them (${dice.rolls} so far).`;
  }
  const name = dice.totals_test ? "totals" : "faces";
  const p = test.p_value;
  const verdict = p < 0.01
    ? `<span class="bad-text">the dice look biased</span>`
    : `<span class="ok-text">no sign of bias</span>`;
  return `${rolls} Chi-square test of the ${name} of the table's ${dice.rolls} rolls: ` +
    `p = ${p.toFixed(3)}, ${verdict}.`;
}

// Expected cards per round (companion.stats), on each player's card.
function renderExpectations() {
  const players = S.stats.board.players || {};
  for (const el of document.querySelectorAll(".player")) {
    const p = players[el.dataset.color];
    const slot = el.querySelector(".expect");
    if (slot) slot.textContent = p ? `≈ ${p.total_per_round.toFixed(1)} cards per round` : "";
  }
}

function renderSetup() {
  const setup = S.stats && S.stats.setup;
  if (!setup) return;
  let html;
  if (setup.error) html = `<p>${esc(setup.error)}</p>`;
  else if (setup.ok) html = `<p class="ok-text">The board follows every set-up rule.</p>`;
  else {
    html = `<ul class="violations">${setup.violations.map((v) =>
      `<li><b>${esc(v.rule)}</b>: ${esc(v.message)}</li>`).join("")}</ul>`;
  }
  const board = S.stats.board;
  html += `<p class="small">Production (dots on the chips): ` +
    RESOURCES.map((r) => `${r} ${board.pips_per_resource[r] || 0}`).join(", ") + `.</p>`;
  if (board.best_openings.length) {
    html += `<p class="small">Best free corners:</p><ol class="openings">` +
      board.best_openings.map((c) => `<li>${esc(spotName("vertex", c.vertex.join(",")))}: ` +
        `${c.pips} dots${c.harbor ? `, ${esc(c.harbor)} harbour` : ""}</li>`).join("") + `</ol>`;
  }
  $("setup").innerHTML = html;
}

// -- the board -------------------------------------------------------------------------------

function svgPoints(points) { return points.map((p) => p.join(",")).join(" "); }

function drawStaticBoard() {
  const { layout, board } = S.board;
  const svg = $("board");
  svg.setAttribute("viewBox", layout.viewbox.join(" "));
  const [x, y, w, h] = layout.viewbox;
  let html = `<rect class="sea" x="${x}" y="${y}" width="${w}" height="${h}" rx="0.6"></rect>`;
  const desc = [];
  for (const hb of layout.harbors) {
    html += `<line class="harbor-line" x1="${hb.a[0]}" y1="${hb.a[1]}" x2="${hb.x}" y2="${hb.y}"></line>`;
    html += `<line class="harbor-line" x1="${hb.b[0]}" y1="${hb.b[1]}" x2="${hb.x}" y2="${hb.y}"></line>`;
  }
  for (const hx of layout.hexes) {
    const info = S.hexInfo.get(`${hx.q},${hx.r}`) || { terrain: "sea" };
    const cls = info.terrain === "sea" ? "sea" : `hex ${esc(info.terrain)}`;
    html += `<polygon class="${cls}" points="${svgPoints(hx.points)}" data-hex="${hx.q},${hx.r}"></polygon>`;
    if (info.number) {
      const red = info.number === 6 || info.number === 8 ? " red" : "";
      html += `<circle class="chip" cx="${hx.x}" cy="${hx.y}" r="0.36"></circle>`;
      html += `<text class="chip-text${red}" x="${hx.x}" y="${hx.y - 0.05}">${info.number}</text>`;
      const n = pips(info.number);
      for (let i = 0; i < n; i++) {
        const px = hx.x + (i - (n - 1) / 2) * 0.085;
        html += `<circle class="pips${red}" cx="${px.toFixed(3)}" cy="${(hx.y + 0.2).toFixed(3)}" r="0.03"></circle>`;
      }
    }
    desc.push(info.number ? `${info.terrain} ${info.number}` : info.terrain);
  }
  for (const hb of layout.harbors) {
    const generic = hb.kind === "3:1";
    html += `<circle class="harbor-tag" cx="${hb.x}" cy="${hb.y}" r="0.34"></circle>`;
    html += `<text class="harbor-text" x="${hb.x}" y="${hb.y - (generic ? 0 : 0.09)}">${generic ? "3:1" : "2:1"}</text>`;
    if (!generic) html += `<text class="harbor-text small-text" x="${hb.x}" y="${hb.y + 0.12}">${esc(hb.kind)}</text>`;
  }
  $("board-static").innerHTML = html;
  $("board-desc").textContent = `${board.kind} board, hexes row by row: ${desc.join(", ")}. ` +
    `Harbours: ${layout.harbors.map((hb) => hb.kind).join(", ")}.`;
}

function house(x, y, s) {
  return `M${x - s},${y + s * 0.8} L${x - s},${y - s * 0.2} L${x},${y - s} L${x + s},${y - s * 0.2} ` +
    `L${x + s},${y + s * 0.8} Z`;
}

function city(x, y, s) {
  return `M${x - s * 1.3},${y + s * 0.8} L${x - s * 1.3},${y - s * 0.3} L${x - s * 0.6},${y - s} ` +
    `L${x + s * 0.1},${y - s * 0.3} L${x + s * 0.1},${y - s * 0.05} L${x + s * 1.3},${y - s * 0.05} ` +
    `L${x + s * 1.3},${y + s * 0.8} Z`;
}

// A printed scenario map's own spaces, from the scenario panels' ``map`` (docs/api.md): road
// spaces (red ones carry a trade certificate), town spaces, VP spaces with their chip, canal
// towns, tokens. Drawn under the pieces; the spots still come from the legal actions.
function scenarioMapMarks(layout) {
  const panels = (S.state.scenario && S.state.scenario.panels) || [];
  let html = "";
  const dot = (v, cls, r) => {
    const [x, y] = layout.vertices[v.slice(0, 3).join(",")] || [];
    return x === undefined ? "" : `<circle class="${cls}" cx="${x}" cy="${y}" r="${r}"></circle>`;
  };
  // A road space: the middle half of its side, like the printed rectangles.
  const side = (e, cls) => {
    const [a, b] = layout.edges[e.slice(0, 3).join(",")] || [];
    if (!a) return "";
    const at = (t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t].map((n) => n.toFixed(3));
    const [p, q] = [at(0.25), at(0.75)];
    return `<line class="${cls}" x1="${p[0]}" y1="${p[1]}" x2="${q[0]}" y2="${q[1]}"></line>`;
  };
  for (const map of panels.map((p) => p.map).filter(Boolean)) {
    for (const e of map.roads || []) html += side(e, "road-space");
    for (const e of map.certificates || []) {
      html += side(e, "road-space certificate");
      const [a, b] = layout.edges[e.slice(0, 3).join(",")] || [];
      if (a) {
        const x = (a[0] + b[0]) / 2, y = (a[1] + b[1]) / 2;
        html += `<text class="certificate-text" x="${x}" y="${y}">${esc(e[3] === "3:1" ? "3:1" : e[3].slice(0, 2))}</text>`;
      }
    }
    for (const v of map.canal || []) html += dot(v, "canal-town", 0.2);
    for (const v of map.towns || []) html += dot(v, "town-space", 0.12);
    // A scenario's tokens on a corner or a side (a village's chip, a gift on a coast).
    for (const m of map.tokens || []) {
      const key = (m.vertex || m.edge || []).slice(0, 3).join(",");
      let x, y;
      if (m.vertex) [x, y] = layout.vertices[key] || [];
      else if (layout.edges[key]) {
        const [a, b] = layout.edges[key];
        [x, y] = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      }
      if (x === undefined) continue;
      html += `<circle class="map-token${m.empty ? " empty" : ""}" cx="${x}" cy="${y}" r="0.15"></circle>`;
      if (m.text) html += `<text class="map-token-text" x="${x}" y="${y}">${esc(m.text)}</text>`;
    }
    for (const v of map.vp_spaces || []) {
      html += dot(v, v[3] ? "vp-space taken" : "vp-space", 0.13);
      const [x, y] = layout.vertices[v.slice(0, 3).join(",")] || [];
      if (x !== undefined && !v[3]) html += `<text class="vp-text" x="${x}" y="${y}">1</text>`;
    }
  }
  return html;
}

function drawBoard() {
  const state = S.state;
  const { layout } = S.board;
  const hexAt = new Map(layout.hexes.map((h) => [`${h.q},${h.r}`, h]));
  let html = scenarioMapMarks(layout);
  // Producing hexes of the last roll, while it is still the last roll.
  const ev = S.lastRolled;
  if (ev && state.last_roll && ev.dice[0] === state.last_roll[0] && ev.dice[1] === state.last_roll[1]) {
    for (const qr of ev.producing || []) {
      const h = hexAt.get(qr.join(","));
      if (h) html += `<polygon class="hex-glow" points="${svgPoints(h.points)}"></polygon>`;
    }
  }
  for (const ship of state.ships || []) {
    const [a, b] = layout.edges[ship.edge.join(",")];
    const line = `x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"`;
    html += `<line class="road-edge" ${line}></line>`;
    html += `<line class="ship" ${line} stroke="${colour(ship.color)}"></line>`;
  }
  for (const road of state.roads) {
    const [a, b] = layout.edges[road.edge.join(",")];
    const line = `x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"`;
    html += `<line class="road-edge" ${line}></line>`;
    html += `<line class="road" ${line} stroke="${colour(road.color)}"></line>`;
  }
  for (const b of state.buildings) {
    const [x, y] = layout.vertices[b.vertex.join(",")];
    const d = b.kind === "city" ? city(x, y, 0.2) : house(x, y, 0.17);
    html += `<path class="building" d="${d}" fill="${colour(b.color)}"></path>`;
  }
  const robber = hexAt.get(state.robber.join(","));
  if (robber) {
    const x = robber.x - 0.5, y = robber.y;
    html += `<g aria-label="robber"><ellipse class="robber" cx="${x}" cy="${y + 0.08}" rx="0.13" ry="0.2"></ellipse>` +
      `<circle class="robber" cx="${x}" cy="${y - 0.17}" r="0.1"></circle></g>`;
  }
  const pirate = state.pirate && hexAt.get(state.pirate.join(","));
  if (pirate) {
    html += `<path class="pirate" d="M${pirate.x - 0.3},${pirate.y + 0.1} L${pirate.x + 0.3},${pirate.y + 0.1} ` +
      `L${pirate.x + 0.18},${pirate.y + 0.28} L${pirate.x - 0.18},${pirate.y + 0.28} Z ` +
      `M${pirate.x},${pirate.y + 0.1} L${pirate.x},${pirate.y - 0.3} L${pirate.x + 0.22},${pirate.y} Z"></path>`;
  }
  $("board-dynamic").innerHTML = html;
  const buildings = state.buildings.length;
  $("board-title").textContent = `The board: ${buildings} building${buildings === 1 ? "" : "s"}, ` +
    `${state.roads.length} road${state.roads.length === 1 ? "" : "s"}, robber on ${hexName(state.robber.join(","))}`;
  drawSpots();
}

// Spots where the bound player may act now: corners, sides and hexes from the legal actions.
function drawSpots() {
  const group = $("board-spots");
  const actions = S.actions && S.session.player ? S.actions.actions : [];
  const { layout } = S.board;
  let html = "";
  const robberHexes = new Set();
  const edgeKinds = new Map(); // side -> ["road"] | ["ship"] | ["road", "ship"]
  for (const a of actions) {
    if (a.type === "build_settlement" || a.type === "build_city") {
      const key = a.vertex.join(",");
      const [x, y] = layout.vertices[key];
      const what = a.type === "build_city" ? "Upgrade to a city" : "Build a settlement";
      // r = 0.3 hex radii: a finger-sized target on a phone; corners are 1.0 apart.
      html += `<circle class="spot" cx="${x}" cy="${y}" r="0.3" tabindex="0" role="button"
        data-type="${esc(a.type)}" data-key="${esc(key)}" aria-label="${what} ${esc(spotName("vertex", key))}"></circle>`;
    } else if (a.type === "build_road" || a.type === "build_ship") {
      const key = a.edge.join(",");
      edgeKinds.set(key, [...(edgeKinds.get(key) || []), a.type === "build_road" ? "road" : "ship"]);
    } else if (a.type === "move_robber") {
      robberHexes.add(a.hex.join(","));
    }
  }
  for (const [key, kinds] of edgeKinds) {
    const [p, q] = layout.edges[key];
    html += `<line class="spot-edge" x1="${p[0]}" y1="${p[1]}" x2="${q[0]}" y2="${q[1]}" tabindex="0"
      role="button" data-type="build_edge" data-key="${esc(key)}"
      aria-label="Build a ${kinds.join(" or a ")} ${esc(spotName("edge", key))}"></line>`;
  }
  for (const key of robberHexes) {
    const h = layout.hexes.find((hx) => `${hx.q},${hx.r}` === key);
    html += `<polygon class="spot-hex" points="${svgPoints(h.points)}" tabindex="0" role="button"
      data-type="move_robber" data-key="${esc(key)}" aria-label="Move the robber to ${esc(hexName(key))}"></polygon>`;
  }
  // Redrawing unchanged spots would drop the keyboard focus of someone choosing one.
  if (group.dataset.html !== html) {
    group.innerHTML = html;
    group.dataset.html = html;
  }
}

function spotActivated(target) {
  const type = target.dataset.type;
  const key = target.dataset.key;
  if (!type || !S.actions) return;
  if (type === "build_edge") {
    const options = S.actions.actions.filter((a) =>
      (a.type === "build_road" || a.type === "build_ship") && a.edge.join(",") === key);
    if (options.length === 1) post(options[0]);
    else offerChoice(`Build what ${spotName("edge", key)}?`, options);
    return;
  }
  const matches = S.actions.actions.filter((a) => a.type === type &&
    (a.vertex || a.edge || a.hex).join(",") === key);
  if (type === "move_robber") {
    // Choose the victim in the controls (several may be possible).
    const select = $("robber-hex");
    if (select) {
      select.value = key;
      select.dispatchEvent(new Event("change"));
      $("robber-victim").focus();
    }
    if (matches.length === 1 && !matches[0].victim) post(matches[0]);
    return;
  }
  if (matches.length) post(matches[0]);
}

// A question with one button per action (a road or a ship on a coast, say).
function offerChoice(question, actions) {
  const box = $("choice");
  box.innerHTML = `<p>${esc(question)}</p><div class="row">${actions.map((a, i) =>
    `<button type="button" data-choice="${i}">${esc(actionLabel(a))}</button>`).join("")}
    <button type="button" class="secondary" data-choice="">Cancel</button></div>`;
  box.hidden = false;
  box.onclick = (e) => {
    const button = e.target.closest("button[data-choice]");
    if (!button) return;
    box.hidden = true;
    box.innerHTML = "";
    if (button.dataset.choice !== "") post(actions[Number(button.dataset.choice)]);
  };
  box.querySelector("button").focus();
}

// What an action does, in words (for choices and the list of other actions).
function actionLabel(a) {
  const words = cap(a.type.replace(/_/g, " "));
  if (a.type === "build_road") return "Road";
  if (a.type === "build_ship") return "Ship";
  const parts = [words];
  if (a.hex) parts.push(`to ${hexName(a.hex.join(","))}`);
  if (a.edge) parts.push(spotName("edge", a.edge.join(",")));
  if (a.to) parts.push(`to ${spotName("edge", a.to.join(","))}`);
  if (a.vertex) parts.push(spotName("vertex", a.vertex.join(",")));
  if (a.victim) parts.push(`and rob ${cap(a.victim)}`);
  return parts.join(" ");
}

// -- controls --------------------------------------------------------------------------------

function options(values, label = (v) => v) {
  return values.map((v) => `<option value="${esc(v)}">${esc(label(v))}</option>`).join("");
}

function stepperInputs(prefix, max) {
  return `<div class="steppers">${RESOURCES.map((r) => `<label>${r}
    <input type="number" id="${prefix}-${r}" min="0" max="${max[r] ?? 19}" value="0" inputmode="numeric"></label>`).join("")}</div>`;
}

function readSteppers(prefix) {
  const cards = {};
  for (const r of RESOURCES) {
    const n = Number.parseInt($(`${prefix}-${r}`).value, 10);
    if (n > 0) cards[r] = n;
  }
  return cards;
}

function promptText() {
  const state = S.state;
  const me = S.session.player;
  const mine = state.players.find((p) => p.color === me);
  if (state.phase === "game_over") return `The game is over: ${cap(state.winner)} won.`;
  // A scenario's decision (a favour to draw, a gift to answer...) is made in its panel.
  const acts = S.actions ? S.actions.actions : [];
  const labels = scenarioLabels();
  if (acts.length && acts.every((a) => labels[a.type])) {
    return `${[...new Set(acts.map((a) => labels[a.type]))].join(" or ")}: in the scenario panel.`;
  }
  if (state.phase === "discard" && mine && mine.to_discard) return `Discard ${mine.to_discard} cards.`;
  if (state.phase === "choose_gold" && state.gold_due && state.gold_due[me]) {
    return `Choose ${state.gold_due[me]} cards from the gold field.`;
  }
  const actor = state.actor || state.current;
  if (actor !== me) return `Waiting for ${cap(actor)}.`;
  if (state.phase === "special_build") return "Special building phase: build, or end your turn.";
  switch (state.phase) {
    case "founding_settlement": return "Place a founding settlement: tap a corner on the board.";
    case "founding_road": return "Place a road next to it: tap a side on the board.";
    case "roll": return "Roll the dice (or play a knight first).";
    case "move_robber": return "Move the robber: tap a hex, then choose whom to rob.";
    case "road_building": return "Place your free roads: tap a side on the board.";
    case "main": return "Trade, build, play a card, then end your turn.";
    default: return "";
  }
}

function renderControls() {
  const box = $("controls");
  const me = S.session.player;
  if (!me) { box.innerHTML = ""; $("scenario-actions").innerHTML = ""; return; }
  $("prompt").textContent = promptText();
  const key = JSON.stringify([S.actions, S.state.phase]);
  if (key === S.actionsKey) return; // keep what the player is typing
  S.actionsKey = key;
  // An update may arrive while a player is choosing: what they entered survives the redraw
  // (else dice set to 3 and 4 could silently become 1 and 1), unless it was just used.
  const kept = S.clearControls ? {} : controlValues();
  S.clearControls = false;
  const acts = S.actions ? S.actions.actions : [];
  const byType = {};
  for (const a of acts) (byType[a.type] = byType[a.type] || []).push(a);
  const parts = [];
  const you = S.state.you || { resources: {} };

  if (byType.roll_dice) {
    const dice = options([1, 2, 3, 4, 5, 6]);
    parts.push(`<fieldset class="control"><legend>Roll</legend>
      <div class="row"><button type="button" data-do="roll">Roll for me</button></div>
      <div class="row"><label for="die-1">Dice at the table</label>
        <select id="die-1" aria-label="first die">${dice}</select>
        <select id="die-2" aria-label="second die">${dice}</select>
        <button type="button" class="secondary" data-do="roll-entered">Enter roll</button></div>
    </fieldset>`);
  }
  if (byType.discard) {
    const need = S.state.players.find((p) => p.color === me).to_discard;
    parts.push(`<fieldset class="control"><legend>Discard ${need} cards</legend>
      ${stepperInputs("discard", you.resources)}
      <div class="row"><button type="button" data-do="discard">Discard</button></div></fieldset>`);
  }
  if (byType.move_robber) {
    const hexes = [...new Set(byType.move_robber.map((a) => a.hex.join(",")))];
    parts.push(`<fieldset class="control"><legend>Robber</legend>
      <div class="row"><label for="robber-hex">Hex</label>
        <select id="robber-hex">${options(hexes, hexName)}</select></div>
      <div class="row"><label for="robber-victim">Rob</label><select id="robber-victim"></select>
        <label for="robber-card">Card taken</label>
        <select id="robber-card"><option value="">unknown (the companion draws)</option>${options(RESOURCES)}</select></div>
      <div class="row"><button type="button" data-do="robber">Move the robber</button></div></fieldset>`);
  }
  for (const [type, label, field] of [["build_settlement", "Settlement", "vertex"],
    ["build_city", "City", "vertex"], ["build_road", "Road", "edge"], ["build_ship", "Ship", "edge"]]) {
    if (!byType[type]) continue;
    const keys = byType[type].map((a) => a[field].join(","));
    parts.push(`<fieldset class="control"><legend>${label}</legend>
      <p class="small">Tap a highlighted spot on the board, or choose here.</p>
      <div class="row"><select id="spot-${type}" aria-label="${label} spot">${options(keys, (k) => spotName(field, k))}</select>
      <button type="button" data-do="build" data-type="${type}">Build</button></div></fieldset>`);
  }
  const dev = [];
  if (byType.buy_development_card) {
    dev.push(`<div class="row"><label for="buy-card">Card drawn</label>
      <select id="buy-card"><option value="">not known (the companion draws)</option>${options(Object.keys(DEV_NAMES), (c) => DEV_NAMES[c])}</select>
      <button type="button" data-do="buy">Buy a card</button></div>`);
  }
  if (byType.play_knight) dev.push(`<div class="row"><button type="button" data-do="simple" data-type="play_knight">Play a Knight</button></div>`);
  if (byType.play_road_building) dev.push(`<div class="row"><button type="button" data-do="simple" data-type="play_road_building">Play Road Building</button></div>`);
  if (byType.play_monopoly) {
    dev.push(`<div class="row"><label for="monopoly">Monopoly on</label>
      <select id="monopoly">${options(byType.play_monopoly.map((a) => a.resource))}</select>
      <button type="button" data-do="monopoly">Play Monopoly</button></div>`);
  }
  if (byType.play_year_of_plenty) {
    const combos = byType.play_year_of_plenty.map((a) => a.resources.join("+"));
    dev.push(`<div class="row"><label for="plenty">Year of Plenty</label>
      <select id="plenty">${options(combos, (c) => c.replace("+", " and "))}</select>
      <button type="button" data-do="plenty">Take them</button></div>`);
  }
  if (dev.length) parts.push(`<fieldset class="control"><legend>Development cards</legend>${dev.join("")}</fieldset>`);
  if (byType.maritime_trade) {
    const gives = [...new Set(byType.maritime_trade.map((a) => a.give))];
    const ratio = (r) => `${you.trade_ratios ? you.trade_ratios[r] : 4} ${r}`;
    parts.push(`<fieldset class="control"><legend>Trade with the bank</legend>
      <div class="row"><label for="sea-give">Give</label><select id="sea-give">${options(gives, ratio)}</select>
      <label for="sea-get">for 1</label><select id="sea-get">${options(RESOURCES)}</select>
      <button type="button" data-do="maritime">Trade</button></div></fieldset>`);
  }
  if (S.actions && S.actions.domestic_trade) {
    const others = S.session.players.filter((p) => p !== me);
    parts.push(`<details class="control" id="trade-details"><summary>Trade with a player</summary>
      <div class="row"><label for="trade-partner">With</label><select id="trade-partner">${options(others, cap)}</select></div>
      <p class="small">You give:</p>${stepperInputs("trade-give", you.resources)}
      <p class="small">You get:</p>${stepperInputs("trade-get", {})}
      <div class="row"><button type="button" data-do="domestic">Offer the trade</button></div></details>`);
  }
  if (byType.choose_gold) {
    parts.push(`<fieldset class="control"><legend>Gold: choose ${byType.choose_gold[0].count} cards</legend>
      ${stepperInputs("gold", {})}
      <div class="row"><button type="button" data-do="gold">Take them</button></div></fieldset>`);
  }
  const scenarioTypes = scenarioLabels();
  renderScenarioActions(acts);
  const other = acts.filter((a) => !HANDLED.has(a.type) && !scenarioTypes[a.type]);
  if (other.length) {
    parts.push(`<fieldset class="control"><legend>Other actions</legend>
      <div class="row"><select id="other-action" aria-label="other action">${other.map((a, i) =>
        `<option value="${i}">${esc(actionLabel(a))}</option>`).join("")}</select>
      <button type="button" data-do="other">Do it</button></div></fieldset>`);
    S.otherActions = other;
  }
  if (byType.end_turn) {
    parts.push(`<div class="row"><button type="button" data-do="simple" data-type="end_turn">End turn</button></div>`);
  }
  const hadFocus = $("controls-panel").contains(document.activeElement);
  box.innerHTML = parts.join("") || `<p class="small">Nothing for you to do right now.</p>`;
  restoreValues(kept);
  if (byType.move_robber) {
    $("robber-hex").addEventListener("change", updateVictims);
    updateVictims(); // the victims of the (restored) hex, then the victim chosen before
    if (kept["robber-victim"] !== undefined) restoreValues({ "robber-victim": kept["robber-victim"] });
  }
  // The focused control may be gone: keep keyboard and screen-reader users in the panel.
  if (hadFocus && !$("controls-panel").contains(document.activeElement)) {
    const next = box.querySelector("button, select, input, summary");
    (next || $("controls-panel")).focus();
  }
}

function renderOffers() {
  const me = S.session.player;
  const box = $("offers");
  const open = me && S.state ? S.offers.filter((o) => o.turn === S.state.turn) : [];
  box.innerHTML = open.map((o) => {
    if (o.to === me) {
      return `<div class="offer" role="group" aria-label="Trade offer from ${esc(cap(o.from))}">
        <p>${esc(cap(o.from))} offers you ${esc(cardsText(o.give))} for your ${esc(cardsText(o.get))}.</p>
        <div class="row"><button type="button" data-offer="${o.id}" data-answer="accept">Accept</button>
        <button type="button" class="secondary" data-offer="${o.id}" data-answer="decline">Decline</button></div></div>`;
    }
    return `<div class="offer" role="group" aria-label="Your trade offer">
      <p>Waiting for ${esc(cap(o.to))}: your ${esc(cardsText(o.give))} for their ${esc(cardsText(o.get))}.</p>
      <div class="row"><button type="button" class="secondary" data-offer="${o.id}" data-answer="decline">Withdraw</button></div></div>`;
  }).join("");
}

async function answerOffer(button) {
  say("");
  try {
    await api(`/api/offers/${Number(button.dataset.offer)}/${button.dataset.answer}`, { method: "POST" });
    say(button.dataset.answer === "accept" ? "Trade done." : "Offer closed.", true);
  } catch (err) {
    say(err.message);
  }
}

async function offerTrade() {
  say("");
  const partner = $("trade-partner").value;
  try {
    await api("/api/offers", {
      body: { partner, give: readSteppers("trade-give"), get: readSteppers("trade-get") },
    });
    say(`Offer sent: ${cap(partner)} accepts it on their phone.`, true);
  } catch (err) {
    say(err.message);
  }
}

function controlValues() {
  const values = {};
  for (const el of $("controls").querySelectorAll("select[id], input[id]")) values[el.id] = el.value;
  for (const el of $("controls").querySelectorAll("details[id]")) values[el.id] = el.open;
  return values;
}

function restoreValues(values) {
  for (const [id, value] of Object.entries(values)) {
    const el = $(id);
    if (!el) continue;
    if (el.tagName === "DETAILS") el.open = value;
    else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === value)) {
      el.value = value;
    }
  }
}

function updateVictims() {
  const hex = $("robber-hex").value;
  const victims = S.actions.actions.filter((a) => a.type === "move_robber" && a.hex.join(",") === hex)
    .map((a) => a.victim || "");
  $("robber-victim").innerHTML = victims
    .map((v) => `<option value="${esc(v)}">${v ? esc(cap(v)) : "nobody (no one to rob)"}</option>`).join("");
}

function controlClicked(button) {
  const me = S.session.player;
  switch (button.dataset.do) {
    case "roll": return post({ type: "roll_dice", player: me });
    case "roll-entered":
      return post({ type: "roll_dice", player: me, source: "manual",
        dice: [Number($("die-1").value), Number($("die-2").value)] });
    case "discard": return post({ type: "discard", player: me, cards: readSteppers("discard") });
    case "robber": {
      const action = { type: "move_robber", player: me, hex: $("robber-hex").value.split(",").map(Number) };
      const victim = $("robber-victim").value;
      if (victim) {
        action.victim = victim;
        if ($("robber-card").value) action.stolen = $("robber-card").value;
      }
      return post(action);
    }
    case "build": {
      const type = button.dataset.type;
      const key = $(`spot-${type}`).value;
      const found = S.actions.actions.find((a) => a.type === type && (a.vertex || a.edge).join(",") === key);
      return found ? post(found) : undefined;
    }
    case "buy": {
      const action = { type: "buy_development_card", player: me };
      if ($("buy-card").value) action.card = $("buy-card").value;
      return post(action);
    }
    case "monopoly": return post({ type: "play_monopoly", player: me, resource: $("monopoly").value });
    case "plenty":
      return post({ type: "play_year_of_plenty", player: me, resources: $("plenty").value.split("+") });
    case "maritime":
      return post({ type: "maritime_trade", player: me, give: $("sea-give").value, get: $("sea-get").value });
    case "domestic": return offerTrade();
    case "gold": return post({ type: "choose_gold", player: me, cards: readSteppers("gold") });
    case "other": return post(S.otherActions[Number($("other-action").value)]);
    case "simple": return post({ type: button.dataset.type, player: me });
    default: return undefined;
  }
}

// -- calibration wizard ----------------------------------------------------------------------

// Pause between live frames: each costs the companion a pattern or board search, and the loop
// must stay well inside the server's limit on state-changing requests (5 a second per device).
const CALIBRATION_PAUSE_MS = 400;
// After the camera could not give a frame, ask again less often.
const CALIBRATION_RETRY_MS = 2000;
const CALIBRATION_STEPS = { camera: "Camera", colors: "Colours", board: "Board lock" };
const PREVIEW_ALT = {
  camera: "Live camera preview: the pattern's corners found in this frame are dotted in red, "
    + "areas the kept views cover are tinted green",
  colors: "Live camera preview: where the board was found, its hex grid is drawn over it",
  board: "Live camera preview: where the board was found, its hex grid is drawn over it",
};

const C = {
  state: null, // /api/calibration
  timer: null, // the next live frame
  busy: false, // a live frame is under way
  generation: 0, // bumped by every button: a frame answered before it is stale
  frames: 0, // numbers the preview's URL, so the browser never shows a cached one
  inView: false, // the wizard is on screen: only then are frames fetched
};

// The same devices the server lets calibrate: a bound phone or the companion's own screen.
function mayCalibrate() {
  return Boolean(S.session && (S.session.player || S.session.can_show_code));
}

async function refreshCalibration() {
  if (!mayCalibrate()) {
    $("calibration").hidden = true;
    stopLive();
    return;
  }
  try {
    renderCalibration(await api("/api/calibration"));
    $("calibration").hidden = false;
    startLive();
  } catch (_) {
    $("calibration").hidden = true; // the wizard is an extra: the page works without it
  }
}

function calibrationSay(text, ok = false) {
  const m = $("calibration-message");
  m.textContent = text;
  m.classList.toggle("ok", ok);
}

function running(state) {
  return Boolean(state && state.active && state.step !== "done");
}

function renderCalibration(state) {
  C.state = state;
  $("calibration-no-camera").hidden = state.camera || state.active;
  $("calibration-start").hidden = !state.camera || state.active;
  $("calibration-wizard").hidden = !state.active;
  if (!state.active) {
    stopLive();
    return;
  }
  const current = state.steps.indexOf(state.step);
  $("calibration-steps").innerHTML = state.steps.filter((s) => s in CALIBRATION_STEPS)
    .map((step, i) => {
      const passed = i < current;
      const attrs = step === state.step ? ' aria-current="step"' : passed ? ' class="done"' : "";
      const mark = passed ? ' <span aria-hidden="true">✓</span><span class="visually-hidden">, done</span>' : "";
      return `<li${attrs}>${i + 1}. ${esc(CALIBRATION_STEPS[step])}${mark}</li>`;
    }).join("");
  $("calibration-instruction").textContent = state.step === "done"
    ? `Calibration complete: the profile "${state.profile}" is saved.` : state.instruction;
  $("calibration-preview").hidden = state.step === "done";
  $("calibration-preview").alt = PREVIEW_ALT[state.step] || "";
  $("calibration-finish").hidden = state.step === "done";
  $("calibration-finish").setAttribute("aria-disabled", String(!state.can_finish));
  $("calibration-skip").hidden = !state.can_skip;
  $("calibration-feedback").hidden = state.step === "done";
  $("calibration-feedback").textContent = feedbackText(state);
}

function feedbackText(state) {
  if (state.saved || !state.message) return ""; // the step just changed: no frame seen yet
  const fb = state.feedback;
  if (!fb) return state.message;
  const counts = `${fb.views} views kept, ${Math.round(fb.coverage * 100)} % of the picture `
    + `covered, ${fb.tilted_views} tilted.`;
  const ready = fb.ready ? " That is enough: finish the step." : "";
  // The wizard's message is "what happened. what to do", both in lower case.
  const message = cap(state.message).replace(/\. ([a-z])/g, (_, c) => `. ${c.toUpperCase()}`);
  return `${message} ${counts}${ready}`;
}

function savedText(state) {
  const saved = state.saved || {};
  if (saved.rms_px !== undefined) {
    const warnings = (saved.warnings || []).join("; ");
    return `Camera saved (reprojection error ${saved.rms_px} px)${warnings ? `: ${warnings}` : ""}.`;
  }
  if (saved.players) return `Colours saved for ${saved.players.join(", ")}.`;
  if (saved.kind) return `Board lock saved (${saved.kind} board).`;
  return state.step === "colors" ? "Camera step skipped: the default camera model is used." : "";
}

function startLive() {
  if (running(C.state) && C.timer === null && !C.busy) C.timer = setTimeout(liveFrame, 0);
}

function stopLive() {
  clearTimeout(C.timer);
  C.timer = null;
}

// One round of the live preview: the companion looks at the camera's latest frame, then the
// page shows what it found. Rounds never overlap.
async function liveFrame() {
  C.timer = null;
  if (!running(C.state) || document.hidden || !C.inView) return;
  C.busy = true;
  const generation = C.generation;
  let pause = CALIBRATION_PAUSE_MS;
  try {
    const state = await api("/api/calibration/frame", { method: "POST" });
    if (generation === C.generation) {
      renderCalibration(state);
      await showPreview();
    }
  } catch (err) {
    pause = CALIBRATION_RETRY_MS;
    $("calibration-feedback").textContent = err.message;
    // Another device may have closed the wizard: take the server's word for where it is.
    try {
      const state = await api("/api/calibration");
      if (generation === C.generation) renderCalibration(state);
    } catch (_) { /* offline: the connection line says so */ }
  } finally {
    C.busy = false;
  }
  if (running(C.state) && C.timer === null) C.timer = setTimeout(liveFrame, pause);
}

function showPreview() {
  return new Promise((resolve) => {
    const img = $("calibration-preview");
    img.onload = resolve;
    img.onerror = resolve;
    C.frames += 1;
    img.src = `/api/calibration/preview.jpg?n=${C.frames}`;
  });
}

async function calibrationAction(path, body) {
  calibrationSay("");
  try {
    const state = await api(`/api/calibration/${path}`, body ? { body } : { method: "POST" });
    C.generation += 1;
    renderCalibration(state);
    if (path === "finish" || path === "skip") calibrationSay(savedText(state), true);
    if (state.active) {
      // The step changed: a screen reader reads the new instruction from here.
      $("calibration-instruction").focus();
      startLive();
    } else if (!$("calibration-start").hidden) {
      $("calibration-profile").focus();
    }
  } catch (err) {
    calibrationSay(err.message);
  }
}

// -- wiring ----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  wireBinding({ render: renderSession, forget: forgetPlayer, connect });
  $("undo").addEventListener("click", async () => {
    say("");
    try {
      await api("/api/undo", { method: "POST" });
      say("Undone.", true);
    } catch (err) {
      say(err.message);
    }
  });
  $("offers").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-offer]");
    if (button) answerOffer(button);
  });
  $("scenario-actions").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-scenario], button[data-scenario-pick]");
    if (button) scenarioClicked(button);
  });
  $("controls").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-do]");
    if (button) controlClicked(button);
  });
  const spots = $("board-spots");
  spots.addEventListener("click", (e) => spotActivated(e.target));
  spots.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      spotActivated(e.target);
    }
  });
  $("calibration-start").addEventListener("submit", (e) => {
    e.preventDefault();
    calibrationAction("start", { profile: $("calibration-profile").value.trim() });
  });
  $("calibration-finish").addEventListener("click", () => calibrationAction("finish"));
  $("calibration-skip").addEventListener("click", () => calibrationAction("skip"));
  $("calibration-stop").addEventListener("click", () => calibrationAction("stop"));
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) startLive();
  });
  // A phone scrolled elsewhere neither downloads previews nor makes the companion search.
  new IntersectionObserver((entries) => {
    C.inView = entries.some((e) => e.isIntersecting);
    if (C.inView) startLive();
  }).observe($("calibration-wizard"));
  boot();
});
