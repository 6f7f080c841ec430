// Seat and spectator page: board SVG, information, order entry per game, clocks, WebSocket updates.
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
    const build = {arena: arenaEntry, factory: factoryEntry, geeko: geekoEntry, dadoed: dadoedEntry,
                   submarine: submarineEntry}[GAME];
    if (build) build(entry, s.view, h);
  }

  // arena: click a robot, then an order; P12 JSON {"orders": [{"x","y","action","dir"}]}
  function arenaEntry(entry, view) {
    const mine = (view.robots || []).filter(r => r.side === "F");
    const orders = {};
    mine.forEach(r => { orders[`${r.x}:${r.y}`] = {x: r.x, y: r.y, action: "D"}; });
    let sel = mine.length ? `${mine[0].x}:${mine[0].y}` : null;
    const list = el("div", {class: "robots", role: "listbox", "aria-label": "your robots"});
    const acts = el("div", {class: "acts"});
    function label(o) { return o.action + (o.dir ? " " + o.dir : ""); }
    function redraw() {
      list.innerHTML = "";
      mine.forEach(r => {
        const k = `${r.x}:${r.y}`;
        list.append(el("button", {type: "button", class: "robot" + (k === sel ? " sel" : ""), dataset: {sq: k},
          "aria-pressed": String(k === sel), onclick: () => { sel = k; redraw(); }}, `${k} ${r.hp}HP → ${label(orders[k])}`));
      });
      setOrders({orders: Object.values(orders)});
    }
    function order(action, dir) {
      if (!sel) return;
      const [x, y] = sel.split(":").map(Number);
      orders[sel] = dir ? {x, y, action, dir} : {x, y, action};
      redraw();
    }
    for (const a of ["M", "A"]) for (const d of ["N", "E", "S", "W"])
      acts.append(el("button", {type: "button", dataset: {order: a + d}, onclick: () => order(a, d)}, `${a === "M" ? "Move" : "Attack"} ${d}`));
    acts.append(el("button", {type: "button", dataset: {order: "D"}, onclick: () => order("D")}, "Defend"),
                el("button", {type: "button", dataset: {order: "S"}, onclick: () => order("S")}, "Self-destruct"));
    entry.append(el("p", {class: "hint"}, "Click a robot (X:Y), then its order. Unchanged robots defend."), list, acts);
    redraw();
  }

  function cardId(c) { const p = String(c).split(" "); return Number(p[p.length - 1]); }

  // factory: click hand cards into the registers; reboot checkbox; F-15.1 payload
  function factoryEntry(entry, view) {
    const hand = view.hand || [], k = view.free_registers || 0, prog = [];
    const handBox = el("div", {class: "cards", "aria-label": "hand"}), regs = el("ol", {class: "registers"});
    const reboot = el("input", {type: "checkbox", id: "reboot"});
    function redraw() {
      handBox.innerHTML = ""; regs.innerHTML = "";
      hand.forEach(c => { if (!prog.includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)},
        onclick: () => { if (prog.length < k) { prog.push(c); redraw(); } }}, c)); });
      for (let i = 0; i < k; i++) regs.append(el("li", {}, prog[i] ? el("button", {type: "button", class: "cardbtn in",
        onclick: () => { prog.splice(i, 1); redraw(); }}, prog[i]) : el("span", {class: "empty"}, "empty")));
      setOrders({type: "program", cards: prog.map(cardId), reboot: reboot.checked});
    }
    reboot.addEventListener("change", redraw);
    entry.append(el("p", {class: "hint"}, `Click ${k} cards into your registers (click a register to take its card back).`),
      el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, el("label", {}, reboot, " reboot (power down this turn)"));
    redraw();
  }

  // geeko: cards into each robot's registers, the same number for every robot (G-16.1)
  function geekoEntry(entry, view) {
    const hand = view.hand || [], robots = Object.keys(view.robots || {}).filter(r => view.robots[r].free > 0);
    const prog = Object.fromEntries(robots.map(r => [r, []]));
    let cur = robots[0];
    const handBox = el("div", {class: "cards"}), regs = el("div", {class: "registers-multi"});
    const reboot = el("select", {id: "reboot", "aria-label": "reboot"}, el("option", {value: ""}, "no reboot"),
      ...Object.keys(view.robots || {}).map(r => el("option", {value: r}, `reboot robot ${r}`)));
    reboot.addEventListener("change", () => redraw());
    function used() { return Object.values(prog).flat(); }
    function redraw() {
      handBox.innerHTML = ""; regs.innerHTML = "";
      hand.forEach(c => { if (!used().includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)},
        onclick: () => { if (cur && prog[cur].length < view.robots[cur].free) { prog[cur].push(c); redraw(); } }}, c)); });
      robots.forEach(r => {
        const row = el("div", {class: "regrow" + (r === cur ? " sel" : "")},
          el("button", {type: "button", class: "robot" + (r === cur ? " sel" : ""), dataset: {robot: r}, onclick: () => { cur = r; redraw(); }}, `robot ${r} (${view.robots[r].square})`));
        prog[r].forEach((c, i) => row.append(el("button", {type: "button", class: "cardbtn in", onclick: () => { prog[r].splice(i, 1); redraw(); }}, c)));
        regs.append(row);
      });
      const L = robots.length ? Math.min(...robots.map(r => prog[r].length)) : 0;
      const p = {type: "program", length: L, reboot: reboot.value || null};
      robots.forEach(r => { p[r] = prog[r].slice(0, L).map(cardId); });
      setOrders(p);
    }
    entry.append(el("p", {class: "hint"}, "Pick a robot, then click cards into its registers; every robot gets the same number of cards. " +
      "If no robot can be given a card it may use, send no cards at all (length 0, G-4.5)."),
      el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, el("label", {}, "Reboot (G-8.1) ", reboot));
    redraw();
  }

  // dadoed: command, tile, direction from the legal orders (D-12.4); setup uses the JSON box
  function dadoedEntry(entry, view, h) {
    const legal = h.legal;
    if (!legal || !legal.length) {
      entry.append(el("p", {class: "hint"}, view.phase === "setup" ? "Setup: give each bot its supers, e.g. {\"type\":\"setup\",\"supers\":{\"A\":[\"step\",\"dash\"],...}}, or ask a bot for a suggestion." : "No legal order listed."));
      return;
    }
    const cmd = el("select", {id: "d-command", "aria-label": "command"}), tile = el("select", {id: "d-tile", "aria-label": "tile"}),
          dir = el("select", {id: "d-direction", "aria-label": "direction"});
    function opts(sel, vals) { const old = sel.value; sel.innerHTML = ""; vals.forEach(v => sel.append(el("option", {value: v}, v || "–"))); if (vals.includes(old)) sel.value = old; }
    const key = o => o.type === "command" ? o.command : o.type;
    function refresh() {
      opts(cmd, [...new Set(legal.map(key))]);
      const a = legal.filter(o => key(o) === cmd.value);
      opts(tile, [...new Set(a.map(o => o.tile || ""))]);
      const b = a.filter(o => (o.tile || "") === tile.value);
      opts(dir, [...new Set(b.map(o => o.direction || ""))]);
      const c = b.find(o => (o.direction || "") === dir.value) || b[0];
      if (c) setOrders(c);
    }
    [cmd, tile, dir].forEach(s => s.addEventListener("change", refresh));
    entry.append(el("p", {class: "hint"}, `${legal.length} legal orders. Choose command, tile, direction (or type the order in the notation).`),
      el("div", {class: "row"}, el("label", {}, "Command ", cmd), el("label", {}, "Tile ", tile), el("label", {}, "Direction ", dir)));
    refresh();
  }

  // submarine: a sequence of actions from the legal actions, with the AP counter (S-12.2)
  function submarineEntry(entry, view, h) {
    const acts = h.actions;
    if (!acts || !acts.length) {
      entry.append(el("p", {class: "hint"}, "Setup: place your five submarines on your home row and give each a special, e.g. {\"type\":\"setup\",\"placement\":{...},\"specials\":{...}}, or ask a bot for a suggestion."));
      return;
    }
    const seq = [], ap = view.ap || 0;
    const sel = el("select", {id: "s-action", "aria-label": "action"});
    const text = a => Object.entries(a).filter(([k]) => k !== "cost").map(([k, v]) => `${k}=${v}`).join(" ") + ` (${a.cost} AP)`;
    acts.forEach((a, i) => sel.append(el("option", {value: i}, text(a))));
    const list = el("ol", {class: "seq"}), counter = el("span", {id: "ap-counter"});
    function redraw() {
      list.innerHTML = "";
      seq.forEach((a, i) => list.append(el("li", {}, text(a), " ", el("button", {type: "button", onclick: () => { seq.splice(i, 1); redraw(); }}, "remove"))));
      const used = seq.reduce((t, a) => t + a.cost, 0);
      counter.textContent = `AP ${used} / ${ap}`;
      counter.classList.toggle("error", used > ap);
      setOrders({type: "orders", actions: seq.map(a => Object.fromEntries(Object.entries(a).filter(([k]) => k !== "cost")))});
    }
    entry.append(el("p", {class: "hint"}, "Add actions in order; the counter shows the action points used."),
      el("div", {class: "row"}, sel, el("button", {type: "button", id: "s-add", onclick: () => { seq.push(acts[Number(sel.value)]); redraw(); }}, "Add"), counter), list);
    redraw();
  }
})();
