// Seat and spectator page: board SVG, information, order entry, clocks, WebSocket updates.
// A game's own order-entry controls come from its plug-in's script (/web/games/GAME/entry.js,
// loaded before this file), which sets window.botwarsEntries[GAME] = function (box, view,
// helpers, ui) with ui = {el, setOrders}; without one the JSON box alone is the entry.
"use strict";
(function () {
  const page = document.getElementById("page");
  const M = page.dataset.match, GAME = page.dataset.game, SEAT = page.dataset.seat, TOKEN = page.dataset.token;
  const q = TOKEN ? `?token=${encodeURIComponent(TOKEN)}` : "";
  const $ = id => document.getElementById(id);
  let snap = null, builtFor = null, clockAt = 0;

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(e.dataset, v); else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k);
    return e;
  }
  const show = v => typeof v === "string" ? v : JSON.stringify(v);

  // ---- board, information, events, clocks ----------------------------------------------
  async function loadBoard() {
    const r = await fetch(`/web/matches/${M}/board.svg${q}`);
    if (r.ok) $("board").innerHTML = await r.text();
  }
  // A view value as a readable node: tables for lists of records and maps of records.
  const isObj = v => v !== null && typeof v === "object" && !Array.isArray(v);
  const cell = v => v === null || v === undefined ? "–" : (typeof v === "object" ? JSON.stringify(v) : String(v));
  function table(rows, keyName) {
    const cols = [...new Set(rows.flatMap(([, r]) => Object.keys(r)))];
    const t = el("table", {class: "vt"});
    t.append(el("tr", {}, ...(keyName !== null ? [el("th", {}, keyName)] : []), ...cols.map(c => el("th", {}, c))));
    rows.forEach(([k, r]) => t.append(el("tr", {}, ...(keyName !== null ? [el("th", {}, String(k))] : []), ...cols.map(c => el("td", {}, cell(r[c]))))));
    return el("div", {class: "scroll"}, t);
  }
  function valueNode(k, v) {
    if (k === "reports" && Array.isArray(v)) return el("details", {class: "reports"}, el("summary", {}, `${v.length} report lines`), el("pre", {}, v.join("\n")));
    if (!isObj(v) && !Array.isArray(v)) return el("span", {}, cell(v));
    if (Array.isArray(v) && v.every(x => !isObj(x) && !Array.isArray(x))) return el("span", {}, v.length ? v.join(", ") : "none");
    if (Array.isArray(v) && v.every(isObj) && v.length <= 40 && !["log", "events"].includes(k)) return table(v.map((r, i) => [i, r]), null);
    if (isObj(v) && Object.values(v).length && Object.values(v).every(isObj)) return table(Object.entries(v), "");
    if (isObj(v) && Object.values(v).every(x => !isObj(x))) return el("span", {}, Object.entries(v).map(([a, b]) => `${a}: ${cell(b)}`).join(" · ") || "none");
    return el("details", {}, el("summary", {}, Array.isArray(v) ? `${v.length} entries` : "details"), el("code", {}, JSON.stringify(v)));
  }
  function renderInfo(view) {
    const box = $("info");
    box.innerHTML = "";
    const dl = el("dl", {class: "info"});
    for (const [k, v] of Object.entries(view || {})) {
      if (k === "board" || k === "ruleset" || k === "config") continue;
      dl.append(el("dt", {}, k), el("dd", {dataset: {key: k}}, valueNode(k, v)));
    }
    box.append(dl);
  }
  function renderEvents(events) {
    const ol = $("events");
    ol.innerHTML = "";
    for (const e of events || []) ol.append(el("li", {}, `#${e.decision} ${e.type} ${JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k !== "type" && k !== "decision")))}`));
  }
  function renderClocks() {
    const tb = $("clocks");
    tb.innerHTML = "";
    if (!snap || !snap.clock || !snap.clock.enabled) { tb.append(el("tr", {}, el("td", {}, "no time control"))); return; }
    const c = snap.clock, spent = (Date.now() - clockAt) / 1000;
    for (const [s, bank] of Object.entries(c.bank_left_s)) {
      const left = c.time_left_s[s];
      const now = left === undefined ? "–" : fmt(Math.max(0, left - spent));
      tb.append(el("tr", {class: s === SEAT ? "me" : ""}, el("th", {}, s), el("td", {class: "left"}, now),
                   el("td", {}, `bank ${fmt(bank)}`)));
    }
  }
  function fmt(s) {
    s = Math.floor(s);
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
    return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(x).padStart(2, "0")}`;
  }
  setInterval(renderClocks, 500);

  function apply(s) {
    snap = s;
    clockAt = Date.now();
    $("decision").textContent = s.decision;
    $("turn").textContent = s.turn;
    $("state").textContent = s.status === "ended" ? "ended" : `waiting for ${s.pending.filter(p => !s.submitted.includes(p)).join(", ") || "resolution"}`;
    $("turn-note").textContent = SEAT ? (s.your_turn ? "Your move." : (s.status === "running" ? (s.submitted.includes(SEAT) ? "Orders accepted; waiting for the others." : "Not your turn.") : "")) : "";
    page.dataset.decision = s.decision;
    page.dataset.status = s.status;
    if (s.outcome) {
      $("outcome").hidden = false;
      $("outcome").textContent = `Result: ${s.outcome.winner || "draw"} (${s.outcome.reason})`;
      $("replay-link").hidden = false;
    }
    renderInfo(s.view);
    renderEvents(s.events);
    renderClocks();
    loadBoard();
    if (SEAT && builtFor !== `${s.decision}:${s.status}`) {
      builtFor = `${s.decision}:${s.status}`;
      buildEntry(s);
    }
    if (SEAT) $("orders-card").classList.toggle("idle", !s.your_turn);
  }

  // ---- live updates --------------------------------------------------------------------
  function connect() {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${M}/ws${q}`);
    ws.onmessage = m => apply(JSON.parse(m.data));
    ws.onclose = () => { if (!snap || snap.status !== "ended") setTimeout(connect, 1000); };
  }
  connect();

  if (!SEAT) return;

  // ---- orders --------------------------------------------------------------------------
  const box = $("orders-json"), msg = $("order-msg");
  function setOrders(v) { box.value = typeof v === "string" ? v : JSON.stringify(v); }
  function say(text, bad) { msg.textContent = text; msg.classList.toggle("error", !!bad); }

  async function submit() {
    const raw = box.value.trim();
    let payload;
    try { payload = JSON.parse(raw); } catch (e) { payload = raw; }  // the game's text notation
    const r = await fetch(`/api/matches/${M}/orders${q}`, {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({decision: snap.decision, orders: payload})});
    const j = await r.json();
    if (!r.ok) {
      const where = [j.rule_code, j.part].filter(x => x !== undefined && x !== null).map(show).join(", ");
      say(`Refused: ${j.message}${where ? ` (${where})` : ""}`, true);
      return;
    }
    const notes = (j.errors || []).map(e => e.detail || e.code).join("; ");
    say(j.duplicate ? "Already accepted." : `Accepted for decision ${j.decision}${notes ? ` with notes: ${notes}` : ""}.`, false);
  }
  $("submit").addEventListener("click", submit);
  $("resign").addEventListener("click", async () => {
    if (!confirm("Resign this match?")) return;
    const r = await fetch(`/api/matches/${M}/resign${q}`, {method: "POST"});
    const j = await r.json();
    say(r.ok ? "You resigned." : j.message, !r.ok);
  });
  if ($("suggest")) $("suggest").addEventListener("click", async () => {
    const r = await fetch(`/web/matches/${M}/suggest${q}&bot=${encodeURIComponent($("suggest-bot").value)}`);
    const j = await r.json();
    if (r.ok) { setOrders(j.orders); say("Suggestion loaded: edit it or submit it.", false); }
    else say(j.message, true);
  });

  async function buildEntry(s) {
    const entry = $("entry");
    entry.innerHTML = "";
    if (msg.classList.contains("error")) say("", false);  // a refusal is about the old decision point
    if (!s.your_turn) return;
    const h = await (await fetch(`/web/matches/${M}/helpers${q}`)).json();
    const build = (window.botwarsEntries || {})[GAME];
    if (build) build(entry, s.view, h, {el, setOrders});
  }
})();
