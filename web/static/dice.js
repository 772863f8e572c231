// Catan Companion: the dice game's live page. Everything comes from the JSON API (docs/api.md,
// "The dice game"); live updates arrive as server-sent events from /api/events. The board
// game's page is app.js: the two share the server's session, binding and update stream, and
// common.js (the API, the message line, the connection light).
"use strict";

const RESOURCES = ["lumber", "brick", "wool", "grain", "ore"];
const PIECES = ["road", "settlement", "city", "knight"];
const LOG_SIZE = 40;
const SVG = "http://www.w3.org/2000/svg";
// Sheet drawing: pixels per step of the island's tree.
const STEP_X = 46;
const STEP_Y = 34;

const S = {
  session: null, // {player, players, csrf, can_show_code}
  state: null, // /api/state of a dice table
  options: null, // /api/dice/options for the bound player
  optionsVersion: -1,
  selectedDie: null, // the die a joker turns (the bound player's choice)
  log: [], // [{version, text}] newest last
  source: null,
};

// -- the API ---------------------------------------------------------------------------------

async function act(path, body, done) {
  say("");
  try {
    await api(path, { body });
    if (done) say(done, true);
  } catch (err) {
    say(err.message);
  }
}

// -- start-up and live updates ---------------------------------------------------------------

async function boot() {
  try {
    S.session = await api("/api/session");
    renderSession();
    const state = await api("/api/state");
    for (const item of state.recent || []) remember(item.version, item.events);
    setState(state);
    connect();
  } catch (err) {
    $("turn-line").textContent = `Cannot reach the companion: ${err.message}`;
    setConnection("down", "offline");
  }
}

function connect() {
  openUpdates(setState, remember);
}

function remember(version, events) {
  for (const ev of events) {
    const text = describe(ev);
    if (text) S.log.push({ version, text });
  }
  if (S.log.length > LOG_SIZE) S.log.splice(0, S.log.length - LOG_SIZE);
  $("log").innerHTML = S.log.slice().reverse().map((e) => `<li>${esc(e.text)}</li>`).join("");
}

function setState(state) {
  if (S.state && state.version < S.state.version) return; // a late, older answer
  S.state = state;
  document.body.dataset.version = String(state.version);
  if (state.dice.rolls === 0 || state.dice.fixed) S.selectedDie = null;
  render();
  if (S.session.player) refreshOptions();
}

const refreshOptions = coalesced(async () => {
  const version = S.state.version;
  try {
    S.options = await api("/api/dice/options");
  } catch (err) {
    say(err.message);
    return;
  }
  S.optionsVersion = version;
  renderControls();
});

// -- session and binding ---------------------------------------------------------------------

function renderSession() {
  renderBinding();
  if (S.session.player) $("bound-name").textContent = cap(S.session.player);
}

// -- text ------------------------------------------------------------------------------------

function symbolName(piece, index) {
  const lay = S.state.layout;
  const basic = S.state.variant === "basic";
  if (piece === "knight") return `knight ${index + 1}`;
  if (basic && piece === "settlement") return `settlement ${lay.settlement_values[index]}`;
  if (basic && piece === "city") return `city ${lay.city_values[index]}`;
  return `${piece} ${index}`;
}

function jokerName(j) {
  const joker = S.state.layout.jokers[j];
  const knights = joker.knights.map((k) => k + 1).join("+");
  return `joker of knight ${knights} (${joker.resource})`;
}

function describe(ev) {
  const who = ev.player ? cap(ev.player) : "";
  switch (ev.type) {
    case "rolled": {
      const how = { button: "the tower's button", tower: "the tower", host: "the companion",
        manual: "typed-in dice" }[ev.source] || "the companion";
      return `${who} rolled (${ordinal(ev.roll)} roll, by ${how}): ${ev.dice.join(", ")}`;
    }
    case "held": return ev.dice.length
      ? `${who} holds dice ${ev.dice.map((d) => d + 1).join(", ")}` : `${who} holds no dice`;
    case "built": return `${who} built ${S.state ? symbolName(ev.piece, ev.index) : ev.piece}`;
    case "joker": return `${who} used joker ${ev.joker + 1}: die ${ev.die + 1} is ${ev.to}`;
    case "gold_exchanged": return `${who} exchanged two gold for ${ev.to}`;
    case "scored": return `${who} scores ${ev.entry > 0 ? "+" : ""}${ev.entry}`;
    case "largest_army": return `${who} takes Largest Army${ev.from ? ` from ${cap(ev.from)}` : ""}`;
    case "longest_road": return `${who} takes Longest Road${ev.from ? ` from ${cap(ev.from)}` : ""}`;
    case "turn": return `${who}'s turn`;
    case "game_over": return `Game over: ${ev.winners.map(cap).join(" and ")} won`;
    default: return "";
  }
}

function ordinal(n) { return ["first", "second", "third"][n - 1] || `${n}th`; }

function turnLine(state) {
  if (state.phase === "over") {
    return `Game over: ${state.winners.map(cap).join(" and ")} won`;
  }
  const who = cap(state.current);
  const when = state.variant === "basic"
    ? `Round ${state.round} of ${state.rounds}` : `Plus, first to ${state.goal} VP`;
  const d = state.dice;
  if (d.rolls === 0) return `${when}: ${who} rolls ${d.count} dice`;
  if (d.rolls_left > 0) return `${when}: ${who} may roll again (${d.rolls_left} left) or build`;
  return `${when}: ${who} builds`;
}

// -- rendering -------------------------------------------------------------------------------

function render() {
  const state = S.state;
  $("turn-line").textContent = turnLine(state);
  renderDice(state);
  renderSheets(state);
  if (!S.session.player) $("controls").dataset.version = String(state.version);
  const tower = state.parts && state.parts.tower;
  $("tower").textContent = tower ? `Dice tower: ${tower.up ? "on" : "off"} (${tower.detail})` : "";
}

function renderDice(state) {
  const d = state.dice;
  const mine = S.session.player && state.current === S.session.player;
  $("roll-line").textContent = d.rolls
    ? `${cap(state.current)}: ${ordinal(d.rolls)} roll of 3${d.fixed ? ", result fixed" : ""}`
    : `${state.current ? cap(state.current) : "Nobody"} has not rolled yet`;
  const faces = d.rolls ? d.faces : Array(d.count).fill(null);
  const mayHold = Boolean(mine && S.options && S.options.hold);
  $("dice").innerHTML = faces.map((face, i) => {
    const held = d.held.includes(i);
    const used = d.rolls && d.spent[i];
    const voided = d.rolls && d.void[i];
    const cls = ["die", face || "blank", held ? "held" : "", used ? "spent" : "",
      voided ? "void" : "", S.selectedDie === i ? "selected" : ""].join(" ");
    const state_ = held ? "held" : used ? "used" : voided ? "void" : "";
    const label = `Die ${i + 1}: ${face || "not rolled"}${state_ ? `, ${state_}` : ""}`;
    return `<li><button type="button" class="${cls}" data-die="${i}" aria-label="${esc(label)}"
      aria-pressed="${held}" ${face ? "" : "disabled"}><b>${esc(face || "?")}</b>
      <span>${esc(state_)}</span></button></li>`;
  }).join("");
  $("dice-hint").textContent = mayHold
    ? "Tap a die to hold it (held dice are not rolled again); tap again to free it."
    : mine && d.rolls && !d.fixed ? "Tap a die to choose it for a joker." : "";
  const ramp = state.ramp;
  $("ramp").hidden = !ramp;
  if (ramp) {
    const step = Math.min(state.turn, ramp.length - 1);
    $("ramp").innerHTML = ramp.map((n, i) =>
      `<li class="${i === step ? "now" : ""}">${i === ramp.length - 1 ? `turn ${i + 1}+` : `turn ${i + 1}`}: <b>${n}</b> dice</li>`,
    ).join("");
  }
}

function renderSheets(state) {
  $("sheets").innerHTML = state.players.map((p) => sheetHtml(state, p)).join("");
  for (const li of $("sheets").querySelectorAll(".sheet")) {
    const p = state.players.find((x) => x.color === li.dataset.player);
    li.querySelector(".island").replaceWith(island(state, p));
  }
}

function sheetHtml(state, p) {
  const lay = state.layout;
  const basic = state.variant === "basic";
  const current = state.current === p.color;
  const badges = [];
  if (p.largest_army) badges.push("Largest Army +2");
  if (p.has_longest_road) badges.push("Longest Road +2");
  if (state.winners.includes(p.color)) badges.push("Winner");
  const knights = lay.knight_values.map((v, k) => {
    const built = p.built.knight[k] !== null;
    // A joker is shown under the last of the knights that unlock it (Plus: a double knight).
    const jokers = lay.jokers.map((j, ji) => ({ j, ji }))
      .filter((x) => x.j.knights[x.j.knights.length - 1] === k);
    const jokerText = jokers.map(({ j, ji }) => {
      const used = p.jokers_used[ji] !== null;
      const pair = j.knights.length > 1 ? ` (${j.knights.map((n) => n + 1).join("+")})` : "";
      return `<span class="joker ${used ? "used" : ""}" title="${used ? "joker used" : "joker"}">${esc(j.resource)}${pair}</span>`;
    }).join("");
    return `<li class="knight ${built ? "built" : ""}"><b>${basic ? v : k + 1}</b>${jokerText}</li>`;
  }).join("");
  const track = basic ? Array.from({ length: state.rounds }, (_, i) => {
    const entry = p.track[i];
    const cls = entry === undefined ? "" : entry < 0 ? "minus" : "plus";
    return `<li class="${cls}">${entry === undefined ? "" : entry}</li>`;
  }).join("") : "";
  const jokersUsed = p.jokers_used.filter((t) => t !== null).length;
  return `<li class="sheet ${current ? "current" : ""}" data-player="${esc(p.color)}">
    <div class="sheet-head"><span class="name">${esc(cap(p.color))}</span>
      ${current ? '<span class="tag">to play</span>' : ""}
      <span class="score" aria-label="${basic ? "points" : "victory points"}">${p.score}
        <small>${basic ? "points" : `of ${state.goal} VP`}</small></span></div>
    <p class="facts"><span>roads <b>${p.counts.road}</b></span>
      <span>settlements <b>${p.counts.settlement}</b></span>
      <span>cities <b>${p.counts.city}</b></span> <span>knights <b>${p.counts.knight}</b></span>
      <span>jokers used <b>${jokersUsed}</b></span>
      ${basic ? "" : `<span>longest road <b>${p.longest_road}</b></span>`}</p>
    ${badges.length ? `<p class="badges">${badges.map((b) => `<span class="badge">${esc(b)}</span>`).join("")}</p>` : ""}
    <svg class="island"></svg>
    <ol class="knights" aria-label="Knights and their jokers">${knights}</ol>
    ${basic ? `<ol class="track" aria-label="Score track">${track}</ol>` : ""}
  </li>`;
}

// The island: the road network drawn as a tree from the start road (the printed sheet's
// picture is not known; docs/dice-game.md), every symbol at its crossing.
function treeLayout(roads) {
  const links = new Map();
  roads.forEach(([a, b], i) => {
    if (!links.has(a)) links.set(a, []);
    if (!links.has(b)) links.set(b, []);
    links.get(a).push([b, i]);
    links.get(b).push([a, i]);
  });
  // The deepest branch goes straight on, so the main line of roads reads as one line.
  const reach = (c, from) => Math.max(0, ...(links.get(c) || [])
    .filter(([n]) => n !== from).map(([n]) => 1 + reach(n, c)));
  const pos = new Map();
  let row = 0;
  const place = (c, depth, from) => {
    const kids = (links.get(c) || []).filter(([n]) => n !== from && !pos.has(n))
      .sort(([a], [b]) => reach(b, c) - reach(a, c));
    pos.set(c, [depth, row]);
    kids.forEach(([n], k) => {
      if (k > 0) row += 1;
      place(n, depth + 1, c);
    });
  };
  place(roads[0][0], 0, null);
  return { pos, rows: row + 1 };
}

function island(state, p) {
  const lay = state.layout;
  const { pos, rows } = treeLayout(lay.roads);
  const depth = Math.max(...[...pos.values()].map(([x]) => x));
  const svg = document.createElementNS(SVG, "svg");
  const width = (depth + 1) * STEP_X;
  const height = rows * STEP_Y;
  svg.setAttribute("viewBox", `-20 -20 ${width + 20} ${height + 20}`);
  svg.setAttribute("class", "island");
  svg.setAttribute("role", "img");
  const built = (piece, i) => p.built[piece][i] !== null;
  svg.setAttribute("aria-label", `${cap(p.color)}'s island: ${p.counts.road} roads, `
    + `${p.counts.settlement} settlements, ${p.counts.city} cities`);
  const xy = (c) => [pos.get(c)[0] * STEP_X, pos.get(c)[1] * STEP_Y];
  const add = (name, attrs, text) => {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  lay.roads.forEach(([a, b], i) => {
    const [x1, y1] = xy(a);
    const [x2, y2] = xy(b);
    const cls = `road ${built("road", i) ? "built" : ""} ${i === lay.marked_road ? "marked" : ""}`;
    add("line", { x1, y1, x2, y2, class: cls });
  });
  const symbol = (piece, crossings, values) => crossings.forEach((c, i) => {
    const [x, y] = xy(c);
    const r = piece === "city" ? 13 : 10;
    add("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, rx: piece === "city" ? 3 : 8,
      class: `${piece} ${built(piece, i) ? "built" : ""}` });
    add("text", { x, y: y + 4, class: `value ${built(piece, i) ? "built" : ""}` }, values[i]);
  });
  symbol("settlement", lay.settlements, lay.settlement_values);
  symbol("city", lay.cities, lay.city_values);
  return svg;
}

// -- controls --------------------------------------------------------------------------------

function renderControls() {
  const o = S.options;
  const state = S.state;
  const box = $("controls");
  if (!o || !state) return;
  box.dataset.version = String(S.optionsVersion);
  if (!o.your_turn) {
    $("prompt").textContent = state.phase === "over"
      ? "The game is over." : `Waiting for ${cap(state.current)}.`;
    box.innerHTML = "";
    return;
  }
  const d = state.dice;
  $("prompt").textContent = d.rolls === 0
    ? "Roll the dice: press the tower's button, or Roll here."
    : o.build.length ? "Build what the dice pay for, or roll again." : "Nothing to build yet.";
  const parts = [];
  if (o.roll) {
    const free = d.rolls ? d.count - d.held.length : d.count;
    const what = free === 1 ? "the free die" : d.rolls ? `${free} free dice` : "dice";
    parts.push(`<button type="button" data-do="roll" class="big">Roll ${what}</button>`);
    // Real dice instead of the tower: one face per die, the held ones keep theirs.
    const faces = ["wool", "grain", "brick", "ore", "lumber", "gold"];
    const slots = Array.from({ length: d.count }, (_, i) => (d.rolls && d.held.includes(i)
      ? `<span class="kept">die ${i + 1}: ${esc(d.faces[i])} (held)</span>`
      : `<label>die ${i + 1} <select data-manual="${i}">${faces.map((f) =>
        `<option value="${f}">${f}</option>`).join("")}</select></label>`)).join("");
    parts.push(`<details class="manual"><summary>Rolled real dice? Enter them</summary>
      <div class="manual-dice">${slots}</div>
      <button type="button" data-do="manual">Enter these dice</button></details>`);
  }
  if (o.build.length) {
    parts.push(`<div class="builds" role="group" aria-label="Build">${o.build.map((b) =>
      `<button type="button" data-do="build" data-piece="${b.piece}" data-index="${b.index}">Build ${esc(symbolName(b.piece, b.index))}</button>`).join("")}</div>`);
  }
  if (o.jokers.length) {
    const usable = d.faces.map((f, i) => i).filter((i) => !d.spent[i] && !d.void[i]);
    const die = usable.includes(S.selectedDie) ? S.selectedDie : usable[0];
    parts.push(`<fieldset class="joker-form"><legend>Use a joker</legend>
      <label>Joker <select id="joker-pick">${o.jokers.map((j) =>
        `<option value="${j}">${esc(jokerName(j))}</option>`).join("")}</select></label>
      <label>on die <select id="joker-die">${usable.map((i) =>
        `<option value="${i}" ${i === die ? "selected" : ""}>${i + 1} (${esc(d.faces[i])})</option>`).join("")}</select></label>
      <label>to <select id="joker-resource">${RESOURCES.map((r) =>
        `<option value="${r}">${r}</option>`).join("")}</select></label>
      <button type="button" data-do="joker">Use joker</button></fieldset>`);
  }
  if (o.exchange_gold) {
    parts.push(`<fieldset class="gold-form"><legend>Exchange two gold</legend>
      <label>for <select id="gold-resource">${RESOURCES.map((r) =>
        `<option value="${r}">${r}</option>`).join("")}</select></label>
      <button type="button" data-do="gold">Exchange</button></fieldset>`);
  }
  if (o.end_turn) {
    const penalty = state.variant === "basic" && !d.built ? " (scores −2)" : "";
    parts.push(`<button type="button" data-do="end" class="secondary">End turn${penalty}</button>`);
  }
  box.innerHTML = parts.join("");
  renderDice(state); // the dice become tappable once the options say holding is allowed
}

async function controlClicked(button) {
  const d = S.state.dice;
  switch (button.dataset.do) {
    case "roll": return act("/api/dice/roll", {});
    case "manual": {
      const faces = Array.from({ length: d.count }, () => null);
      for (const select of $("controls").querySelectorAll("select[data-manual]")) {
        faces[Number(select.dataset.manual)] = select.value;
      }
      return act("/api/dice/roll", { faces });
    }
    case "build": return act("/api/dice/actions", {
      type: "build", piece: button.dataset.piece, index: Number(button.dataset.index),
    }, "Built.");
    case "joker": {
      const joker = Number($("joker-pick").value);
      const body = { type: "use_joker", joker, die: Number($("joker-die").value) };
      if (S.state.layout.jokers[joker].resource === "any") body.resource = $("joker-resource").value;
      return act("/api/dice/actions", body, "Joker used.");
    }
    case "gold": {
      const gold = d.faces.map((f, i) => i).filter((i) => d.faces[i] === "gold" && !d.spent[i] && !d.void[i]);
      return act("/api/dice/actions", {
        type: "exchange_gold", dice: gold.slice(0, 2), resource: $("gold-resource").value,
      }, "Gold exchanged.");
    }
    case "end": return act("/api/dice/actions", { type: "end_turn" });
    default: return undefined;
  }
}

async function dieClicked(button) {
  const i = Number(button.dataset.die);
  const d = S.state.dice;
  if (S.options && S.options.hold) {
    const held = d.held.includes(i) ? d.held.filter((x) => x !== i) : [...d.held, i];
    return act("/api/dice/hold", { dice: held });
  }
  S.selectedDie = i;
  renderDice(S.state);
  const select = $("joker-die");
  if (select) select.value = String(i);
  return undefined;
}

document.addEventListener("DOMContentLoaded", () => {
  wireBinding({ render: renderSession, forget: () => { S.options = null; }, connect });
  $("controls").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-do]");
    if (button) controlClicked(button);
  });
  $("dice").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-die]");
    if (button && S.session.player === S.state.current) dieClicked(button);
  });
  boot();
});
