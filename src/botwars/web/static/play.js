// Seat and spectator page: who you are, what happened, what is awaited, the board, the orders.
//
// A game's kit comes from its plug-in's script (/web/games/GAME/entry.js, loaded before this
// file), which sets window.botwarsGames[GAME] = {
//   seats: {seat: {name, colour, letter}},            // names and colours of the seats
//   grid: {square(c, r, meta) -> name, cell(name, meta) -> [c, r]},  // board notation <-> drawing
//   summary(view, snap, ui) -> [{seat, lines: [text...]}],  // per-side facts
//   turnLabel(events, ui) -> text or null,            // the heading of one decision point's events where
//                                                      //   "Turn N" would not say whose turn it was
//   describe(event, ui) -> text or null,              // one event in plain words (null: skip): a sentence
//                                                      //   naming the robot or player, what happened and why
//                                                      //   (no rule ids, engine ids or JSON: those go in the
//                                                      //   "Details" disclosure the page adds itself)
//   outcome(outcome, seat, ui) -> {head, why, scores}, // the end screen in words (seat: null for a spectator);
//                                                      //   any member may be left out (the page's own words)
//   sectionWords(section) -> [text...],               // a stage section (games with stages) as sentences
//   legend: [[symbol, text]...],                       // the board's tiles, markers and codes
//   warnings(view, snap) -> [text...],                 // known traps right now
//   entry(box, view, helpers, ui) -> {load(payload)}   // the order controls
//   keys: text,                                        // the keyboard help line of the controls
//   touch: text,                                       // more touch help (touch screens see it instead)
//   refusal(message) -> text,                          // a refusal (written for bots) in a player's words
//   pieces(view, snap) -> [{seat, items: [text...]}],  // text alternative of the board (default:
//                                                      //   the drawing's piece titles by owner)
//   letterPieces: bool,                                // draw the seat letter on pieces (colour alone
//                                                      //   would tell the sides apart)
// }. Every member is optional; without a kit the JSON box is the order entry.
// ui = {el, setOrders, board: {onClick(fn), mark(name, cls, text), arrow(a, b, cls), clear()},
//       seatName(seat), say(text, bad), plan(body, redraw(steps)), drawPlan(steps, who),
//       registerCard(program, i, redraw, {id, describe, label, who}), stageMoves(events, text, colour),
//       ready(ok, why)}: ready(false, "Pick a second command for bot B.") disables Submit and shows
//       the sentence beside it until the kit calls ready(true) (orders complete).
"use strict";
(function () {
  const page = document.getElementById("page");
  const M = page.dataset.match, GAME = page.dataset.game, SEAT = page.dataset.seat, TOKEN = page.dataset.token;
  // the game master's mode (issue 24 item 1, /gm/ID/seat/SEAT in a frame of the GM page): the
  // seat's own controls on its view, TOKEN the GM's; Submit sets the seat's orders with a reason
  const GM = page.dataset.gm === "yes";
  const q = TOKEN ? `?token=${encodeURIComponent(TOKEN)}${GM ? `&as_seat=${encodeURIComponent(SEAT)}` : ""}` : "";
  const $ = id => document.getElementById(id);
  const OLD = (window.botwarsEntries || {})[GAME];  // the first contract: an entry function alone
  const KIT = (window.botwarsGames || {})[GAME] || (OLD ? {entry: (b, v, h, u) => { OLD(b, v, h, u); return null; }} : {});
  const STORE = `botwars:${GM ? "gm-orders" : "orders"}:${M}:${SEAT}`;
  let snap = null, builtFor = null, clockAt = 0, entryCtl = null, planned = [], boardClick = null;
  let suggesting = false;  // a Suggest on its way: Submit waits for it
  const history = [];  // [{decision, events}] newest last, a few decision points
  let announced = {decision: null, count: 0};
  let legendFor = null;  // the decision point whose drawn legend is shown

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(e.dataset, v); else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  // the seat colours (render/palette.py, passed in the page's data; no copy here): the palette's
  // colour and colour word win over a kit's, whose seats add letters (and later display names)
  const PALETTE = JSON.parse(page.dataset.palette || "{}");
  // a kit's own code names seats as kit.seats[s].name: those names and colours come from the palette too
  for (const [s, p] of Object.entries(PALETTE.seats || {})) {
    KIT.seats = KIT.seats || {};
    KIT.seats[s] = Object.assign({}, KIT.seats[s] || {}, {name: p.name, colour: p.colour, ink: p.ink});
  }
  const seatInfo = s => {
    const kit = (KIT.seats || {})[s], pal = (PALETTE.seats || {})[s];
    const base = kit || {name: s, colour: "#666", letter: String(s).slice(0, 1).toUpperCase()};
    return pal ? Object.assign({}, base, {name: pal.name, colour: pal.colour, ink: pal.ink}) : base;
  };
  const colourName = s => { const i = seatInfo(s); return i.name || String(s); };  // "Red", never the engine's "p1" (each seat has its own colour)
  // a player's display name (issue 24 item 2) beside the seat's colour word, never instead of it
  // ("Ana (Red)", not "Ana (Red (p1))": with a name the colour word alone tells the seat)
  const seatName = s => { const n = snap && snap.names && snap.names[s]; return n ? `${n} (${seatInfo(s).name})` : colourName(s); };
  const swatch = s => el("span", {class: "swatch", style: `background:${seatInfo(s).colour};color:${inkOn(seatInfo(s).colour)}`, "aria-hidden": "true"}, seatInfo(s).letter || "");
  // WCAG 2.1 relative luminance and contrast; black or white ink, whichever reads better on `bg`
  function luminance(hex) {
    const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(String(hex));
    if (!m) return 0.5;
    const ch = m.slice(1).map(x => { const c = parseInt(x, 16) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  }
  function inkOn(bg) { const l = luminance(bg); return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff"; }

  // ---- the board: drawing, clicks, planned orders ---------------------------------------
  const SVGNS = "http://www.w3.org/2000/svg";
  function gridMeta() {
    const g = document.querySelector("#board svg .grid-meta");
    if (!g) return null;
    const d = g.dataset;
    return {cols: +d.cols, rows: +d.rows, cell: +d.cell, margin: +d.margin};
  }
  function centre(name) {
    const m = gridMeta();
    if (!m || !KIT.grid) return null;
    const cr = KIT.grid.cell(name, m);
    if (!cr || cr[0] < 0 || cr[1] < 0 || cr[0] >= m.cols || cr[1] >= m.rows) return null;
    return [m.margin + (cr[0] + 0.5) * m.cell, m.margin + (cr[1] + 0.5) * m.cell, m.cell];
  }
  function svgNode(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  }
  function overlay() {
    const svg = document.querySelector("#board svg");
    if (!svg) return null;
    let g = svg.querySelector("g.planned");
    if (!g) { g = svgNode("g", {class: "planned"}); svg.append(g); }
    return g;
  }
  // the last decision point's paths go under the drawing's pieces (class "robot"), so that the dot
  // at a path's end does not cover the number drawn on the piece standing there (newcomer audit:
  // a robot's HP read as a small arc); without such pieces, under the planned marks
  function pathLayer(svg, g) {
    let under = svg.querySelector("g.lastmoves");
    if (!under) {
      under = svgNode("g", {class: "lastmoves"});
      const piece = svg.querySelector(".robot");
      if (piece) piece.before(under); else g.before(under);
    }
    return under;
  }
  function drawPlanned() {
    const g = overlay();
    if (!g) return;
    g.innerHTML = "";
    const under = pathLayer(g.ownerSVGElement || document.querySelector("#board svg"), g);
    under.innerHTML = "";
    const last = KIT.lastMoves && history.length ? KIT.lastMoves(history[history.length - 1].events, ui) || [] : [];
    for (const p of last) {  // what happened at the last decision point, e.g. a robot's path
      const a = centre(p.a), b = centre(p.b);
      if (!a || !b) continue;
      const grp = svgNode("g", {class: "lastmove", "data-owner": p.owner || ""});
      const t = svgNode("title", {});
      t.textContent = p.text || "";
      grp.append(t, svgNode("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: p.colour || "#e6007e"}),
                 svgNode("circle", {cx: b[0], cy: b[1], r: a[2] * .12, fill: p.colour || "#e6007e"}));
      under.append(grp);
    }
    if (cursor && document.activeElement === $("board")) {  // the keyboard cursor (see boardKeys)
      const a = centre(cursor);
      if (a) g.append(svgNode("rect", {x: a[0] - a[2] * .5, y: a[1] - a[2] * .5, width: a[2], height: a[2], class: "kbd-cursor"}));
    }
    for (const p of planned) {
      const a = centre(p.a);
      if (!a) continue;
      const t = p.text ? svgNode("title", {}) : null;
      if (t) t.textContent = p.text;
      if (p.kind === "mark") {
        const r = svgNode("rect", {x: a[0] - a[2] * .46, y: a[1] - a[2] * .46, width: a[2] * .92, height: a[2] * .92,
                                   class: `mark ${p.cls || ""}`, rx: 4});
        if (t) r.append(t);
        g.append(r);
        if (p.label) {
          const tx = svgNode("text", {x: a[0] + a[2] * .3, y: a[1] - a[2] * .28, class: `mark-label ${p.cls || ""}`,
                                      "text-anchor": "middle", "dominant-baseline": "central"});
          tx.textContent = p.label;
          g.append(tx);
        }
      } else if (p.kind === "arrow") {
        const b = centre(p.b);
        if (!b) continue;
        const ang = Math.atan2(b[1] - a[1], b[0] - a[0]), cut = Math.min(a[2] * .15, Math.hypot(b[0] - a[0], b[1] - a[1]) / 3);
        const x2 = b[0] - cut * Math.cos(ang), y2 = b[1] - cut * Math.sin(ang), h = a[2] * .28;
        a[0] += cut * Math.cos(ang) * 1.5; a[1] += cut * Math.sin(ang) * 1.5;
        const grp = svgNode("g", {class: `plan ${p.cls || ""}`});
        if (t) grp.append(t);
        grp.append(svgNode("line", {x1: a[0], y1: a[1], x2, y2}));
        grp.append(svgNode("polygon", {points: `${x2},${y2} ${x2 - h * Math.cos(ang - .45)},${y2 - h * Math.sin(ang - .45)} ` +
                                               `${x2 - h * Math.cos(ang + .45)},${y2 - h * Math.sin(ang + .45)}`}));
        g.append(grp);
      }
    }
  }
  const board = {
    onClick(fn) { boardClick = fn; },
    clear() { planned = []; },
    mark(a, cls, text, label) { planned.push({kind: "mark", a, cls, text, label}); },
    arrow(a, b, cls, text) { planned.push({kind: "arrow", a, b, cls, text}); },
    draw: drawPlanned,
  };
  // ---- the board by keyboard: a cursor moved with the arrow keys, Enter/Space = a click ---------
  let cursor = null;
  function whatIsOn(name) {  // the drawing's tooltips for a square (pieces first), in words
    const svg = document.querySelector("#board svg");
    if (!svg) return "";
    const out = [];
    svg.querySelectorAll("[data-square], [data-tile], [data-space]").forEach(e => {
      const at = e.dataset.square || e.dataset.tile || e.dataset.space;
      const t = e.querySelector(":scope > title");
      if (at === name && t && !out.includes(t.textContent)) out.push(t.textContent);
    });
    planned.filter(p => p.a === name && p.text).forEach(p => out.push(`planned: ${p.text}`));
    return out.join("; ");
  }
  function moveCursor(dc, dr) {
    const m = gridMeta();
    if (!m || !KIT.grid) return;
    let cr = cursor ? KIT.grid.cell(cursor, m) : null;
    if (!cr) {  // start on the chosen piece (a planned "sel" mark), else the middle
      const sel = planned.find(p => p.kind === "mark" && String(p.cls || "").includes("sel"));
      cr = sel && KIT.grid.cell(sel.a, m) || [Math.floor(m.cols / 2), Math.floor(m.rows / 2)];
      dc = 0; dr = 0;
    }
    const c = Math.max(0, Math.min(m.cols - 1, cr[0] + dc)), r = Math.max(0, Math.min(m.rows - 1, cr[1] + dr));
    cursor = KIT.grid.square(c, r, m);
    $("board").dataset.cursor = cursor || "";
    const on = cursor ? whatIsOn(cursor) : "";
    $("board-cursor").textContent = cursor ? `Cursor on ${cursor}${on ? ": " + on : ""}` : "";
    drawPlanned();
  }
  // the cursor is for the keyboard: a click or a tap also focuses the board, and then "Cursor on
  // E5" was a stale line that nobody asked for (newcomer audit); leaving the board clears it
  $("board").addEventListener("focus", () => { if ($("board").matches(":focus-visible")) moveCursor(0, 0); });
  $("board").addEventListener("blur", () => { cursor = null; $("board").dataset.cursor = ""; $("board-cursor").textContent = ""; drawPlanned(); });
  $("board").addEventListener("keydown", ev => {
    const d = {ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0]}[ev.key];
    if (d) { ev.preventDefault(); moveCursor(d[0], d[1]); return; }
    if ((ev.key === "Enter" || ev.key === " ") && cursor) {
      ev.preventDefault();
      if (boardClick) boardClick(cursor);
      moveCursor(0, 0);  // say what is there now (the plan may have changed)
    }
  });

  $("board").addEventListener("click", ev => {
    const svg = document.querySelector("#board svg"), m = gridMeta();
    if (!svg || !m || !KIT.grid || !boardClick) return;
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const c = Math.floor((p.x - m.margin) / m.cell), r = Math.floor((p.y - m.margin) / m.cell);
    if (c < 0 || r < 0 || c >= m.cols || r >= m.rows) return;
    const name = KIT.grid.square(c, r, m);
    if (name) boardClick(name);
  });
  let boardSeq = 0;
  async function loadBoard() {
    const mine = ++boardSeq;
    const r = await fetch(`/web/matches/${M}/board.svg${q}`);
    if (!r.ok || mine !== boardSeq) return;
    $("board").innerHTML = await r.text();
    const svg = document.querySelector("#board svg");
    if (svg) {
      svg.setAttribute("role", "img");
      const t = svg.querySelector(":scope > title");
      svg.setAttribute("aria-label", `${GAME} board${t ? ": " + t.textContent : ""}`);
      svg.setAttribute("aria-describedby", "board-text");
      letterPieces(svg);
      splitPanel(svg);
    }
    boardText();
    drawPlanned();
  }
  // a drawing with a side panel: on a narrow screen the board alone, the panel under it
  // (static/panel.js, shared with the how-to and past-turn pictures)
  const NARROW = window.botwarsNarrow || window.matchMedia("(max-width: 700px)");
  NARROW.addEventListener("change", () => loadBoard());
  function splitPanel(svg) {
    const old = $("board-side");
    if (old) old.remove();
    if (window.botwarsSplitPanel) window.botwarsSplitPanel(svg, $("board"), {id: "board-side", class: "board board-side"}, true);
  }

  // letters on pieces whose sides differ by colour alone (the kit's seat letters)
  function letterPieces(svg) {
    if (!KIT.letterPieces) return;
    svg.querySelectorAll("g[data-owner]").forEach(g => {
      const info = (KIT.seats || {})[g.dataset.owner] ? seatInfo(g.dataset.owner) : null, shape = g.querySelector("circle, rect");
      if (!info || !shape) return;
      const b = shape.getBBox(), r = Math.max(4, b.width * .32);
      const x = b.x + b.width, y = b.y;
      g.append(svgNode("circle", {cx: x, cy: y, r, fill: "#fff", stroke: "#000", "stroke-width": .8, class: "seat-letter"}));
      const tx = svgNode("text", {x, y, "font-size": r * 1.5, "text-anchor": "middle", "dominant-baseline": "central",
                                  "font-family": "sans-serif", "font-weight": "bold", fill: "#000", class: "seat-letter"});
      tx.textContent = info.letter || "";
      g.append(tx);
    });
  }
  // the board in words (visually hidden): the pieces of each side
  function boardText() {
    const box = $("board-text");
    if (!box) return;
    let rows = KIT.pieces && snap ? KIT.pieces(snap.view || {}, snap) : null;
    if (!rows) {
      const by = new Map();
      document.querySelectorAll("#board svg g[data-owner], #board svg g[data-player]").forEach(g => {
        const seat = g.dataset.owner || `p${g.dataset.player}`, t = g.querySelector(":scope > title");
        if (!t) return;
        if (!by.has(seat)) by.set(seat, []);
        by.get(seat).push(t.textContent);
      });
      // every seat, one with no piece left too ("none"), in seat order
      for (const s of Object.keys(PALETTE.seats || {})) if (!by.has(s)) by.set(s, []);
      rows = [...by].map(([seat, items]) => ({seat, items}));
    }
    box.innerHTML = "";
    box.append(el("h3", {}, "The board in words"));
    if (!rows.length) box.append(el("p", {}, "No pieces on the board."));
    for (const r of rows) box.append(el("h4", {}, r.seat ? `${seatName(r.seat)}${r.seat === SEAT ? " (you)" : ""}` : (r.title || "")),
      el("ul", {}, ...(r.items.length ? r.items : ["none"]).map(x => el("li", {}, x))));
  }

  // ---- who, what, when -----------------------------------------------------------------
  const REASONS = {resign: "a player resigned", timeout: "a player ran out of time", time: "a player ran out of time",
                   points: "more points", flags: "touched the last flag first", wipeout: "the other side was wiped out",
                   turn_limit: "the turn limit was reached", max_turns: "the turn limit was reached",
                   finished: "the game finished", elimination: "the other side was eliminated"};
  const reason = r => REASONS[r] || String(r || "the game ended").replace(/_/g, " ");
  function renderWho(s) {
    const who = $("who");
    who.innerHTML = "";
    if (GM) who.append("You are the game master, setting the orders of ", swatch(SEAT), " ", el("b", {id: "me"}, seatName(SEAT)),
                       " (you see what this seat sees).");
    else if (SEAT) who.append("You are ", swatch(SEAT), " ", el("b", {id: "me"}, seatName(SEAT)));
    else who.append("You are watching (spectator).");
    if (SEAT && !GM && s.status !== "ended" && !(s.names || {})[SEAT]) who.append(nameForm());
  }
  // the seat's player names the seat, once (POST /api/matches/{id}/name)
  function nameForm() {
    const inp = el("input", {id: "my-name", maxlength: "40", "aria-label": "your name", placeholder: "your name"});
    const msg = el("span", {id: "name-msg", class: "msg", role: "status"});
    const btn = el("button", {type: "button", id: "set-name"}, "Set my name");
    btn.addEventListener("click", async () => {
      const r = await fetch(`/api/matches/${M}/name${q}`, {method: "POST", headers: {"Content-Type": "application/json"},
                                                         body: JSON.stringify({name: inp.value})});
      const j = await r.json();
      if (!r.ok) { msg.textContent = `Name not set: ${String(j.message).replace(/^name: (Value error, )?/, "")}`; return; }
      snap.names = Object.assign({}, snap.names, {[SEAT]: j.name});
      renderWho(snap); renderStatus(snap); renderClocks();
    });
    return el("div", {class: "row name-row"}, el("label", {for: "my-name"}, "Your name (once; the other players see it): "), inp, btn, msg);
  }
  function turnText(s) {
    const v = s.view || {};
    if (v.phase === "setup" || v.setup === true) return "Setup";
    const t = typeof v.turn === "number" ? v.turn : s.turn;
    const max = v.max_turns || (v.config && (v.config.turn_limit || v.config.max_turns));
    return `Turn ${t}${max ? ` of ${max}` : ""}`;
  }
  // paused by the game master (issue 24 item 6): the reason of the newest pause, in words
  const paused = s => !!(s.clock && s.clock.paused) && s.status !== "ended";
  function pauseReason(s) {
    const n = [...(s.notes || [])].reverse().find(x => x.action === "pause");
    return n && n.reason ? String(n.reason).replace(/[.\s]+$/, "") : "no reason given";
  }
  function renderStatus(s) {
    $("decision").textContent = s.decision;
    $("turn").textContent = turnText(s);
    let st;
    const waiting = s.pending.filter(p => !s.submitted.includes(p));
    if (s.status === "ended") st = "The match has ended.";
    else if (paused(s) && !GM) st = `Paused by the game master: ${pauseReason(s)}. Orders can be given once the match resumes.`;
    else if (GM) st = !s.pending.includes(SEAT) ? `${seatName(SEAT)} has no orders to give this turn.`
      : s.submitted.includes(SEAT) ? `${seatName(SEAT)}'s orders are in (shown in the controls); orders you set replace them.`
      : `${seatName(SEAT)} has not given orders yet.`;
    else if (SEAT && s.your_turn && !s.submitted.includes(SEAT)) st = `Your move: ${awaitedText(s)}.`;
    else if (SEAT && (s.bots || {})[SEAT]) st = `The game master has handed your seat to the built-in bot ${s.bots[SEAT]}: it gives your orders until they give the seat back.`;
    else if (SEAT && s.submitted.includes(SEAT) && s.your_orders_by_gm) st = `The game master set your orders for this turn (reason: ${String(s.your_orders_by_gm).replace(/[.\s]+$/, "")}); waiting for ${waiting.map(seatName).join(", ") || "the resolution"}.`;
    else if (SEAT && s.submitted.includes(SEAT)) st = `Orders accepted; waiting for ${waiting.map(seatName).join(", ") || "the resolution"}.`;
    else st = `Waiting for ${waiting.map(seatName).join(", ") || "the resolution"}.`;
    if ($("state").textContent !== st) $("state").textContent = st;
    $("state").classList.toggle("yours", !!(SEAT && s.your_turn && !s.submitted.includes(SEAT)) && !paused(s));
    $("state").classList.toggle("paused", paused(s));
    const sides = $("sides");
    sides.innerHTML = "";
    const rows = KIT.summary ? KIT.summary(s.view || {}, s, ui) : [];
    for (const r of rows) {
      sides.append(el("div", {class: "side-sum" + (r.seat === SEAT ? " me" : ""), dataset: {seat: r.seat || ""}},
        el("div", {class: "side-name"}, r.seat ? swatch(r.seat) : "", " ", r.seat ? seatName(r.seat) + (r.seat === SEAT ? " — you" : "") : (r.title || "")),
        el("ul", {}, ...r.lines.map(x => el("li", {}, x)))));
    }
    const warn = $("warnings");
    warn.innerHTML = "";
    const ws = KIT.warnings && s.status !== "ended" ? KIT.warnings(s.view || {}, s) : [];
    ws.forEach(w => warn.append(el("li", {}, "⚠ " + w)));
    warn.hidden = !ws.length;
  }
  function awaitedText(s) {
    const v = s.view || {};
    if (KIT.awaited) return KIT.awaited(v, s);
    return "give your orders and press Submit";
  }
  let sawRunning = false, endShown = false;
  function renderOutcome(s) {
    const o = s.outcome, box = $("outcome");
    if (!o) { box.hidden = true; sawRunning = sawRunning || s.status === "running"; return; }
    box.hidden = false;
    // the match ended while this page watched it (a resignation, the last turn): bring the result
    // into view, wherever the page was scrolled to (the orders panel, the board on a phone)
    if (sawRunning && !endShown && box.scrollIntoView) { endShown = true; setTimeout(() => box.scrollIntoView({block: "start"}), 0); }
    box.innerHTML = "";
    let head, cls;
    // joint winners (a game where several players of rank 1 all win): the game's kit says who
    const first = KIT.winners ? KIT.winners(o) : [];
    const shared = !o.winner && first.length > 1;
    if (shared) {
      head = SEAT ? (first.includes(SEAT) ? "You share the win" : "You lost") : `Shared win: ${first.map(seatName).join(" and ")}`;
      cls = SEAT && !first.includes(SEAT) ? "lost" : "won";
    } else if (!o.winner) { head = "Draw"; cls = "draw"; }
    else if (SEAT) { head = o.winner === SEAT ? "You won" : "You lost"; cls = o.winner === SEAT ? "won" : "lost"; }
    else { head = `${seatInfo(o.winner).name} won`; cls = "won"; }
    box.className = `outcome banner ${cls}`;
    let why = `Why: ${reason(o.reason)}.`;
    const said = KIT.outcome ? KIT.outcome(o, SEAT || null, ui) || {} : {};
    if (SEAT && o.reason === "resign") why = o.winner === SEAT ? "Why: your opponent resigned." : (o.winner ? "Why: you resigned." : why);
    if (SEAT && ["timeout", "time"].includes(o.reason) && o.winner) why = o.winner === SEAT ? "Why: your opponent ran out of time." : "Why: you ran out of time.";
    let scores = o.scores && Object.keys(o.scores).length ? " Scores: " + Object.entries(o.scores).map(([k, v]) => `${seatName(k)} ${v}`).join(", ") + "." : "";
    if (said.head) head = said.head;
    if (said.why) why = said.why;
    if (said.scores !== undefined) scores = said.scores ? " " + said.scores : "";
    // ended by the game master (issue 24 item 1): say so with the GM's reason; the 1/0 "scores"
    // of a GM result are no game score (a game's own words, e.g. flags touched, would mislead)
    const byGm = !!(o.details && o.details.by === "game master");
    if (byGm) {
      const note = o.details.note ? ` Reason: ${String(o.details.note).replace(/[.\s]+$/, "")}.` : "";
      why = (o.reason === "aborted" ? "The game master stopped the match: no result." : o.winner
        ? `The game master ended the match: ${seatName(o.winner)} wins.` : "The game master ended the match as a draw.") + note;
      scores = "";
    }
    box.dataset.result = cls;
    box.append(el("div", {class: "banner-head", id: "result-head"}, head + (o.winner ? "" : "")),
      el("div", {id: "result-why"}, why + (o.winner && SEAT && o.winner !== SEAT && !said.why && !byGm ? ` Winner: ${seatName(o.winner)}.` : "")
        + (shared && !said.why ? ` First place: ${first.map(seatName).join(", ")}.` : "") + scores),
      el("div", {class: "row"}, el("a", {href: `/replay/${M}`}, "Watch the replay"),
        SEAT ? el("button", {type: "button", id: "rematch", onclick: rematch}, "Rematch") : null,
        el("a", {href: "/"}, "Back to the lobby")));
  }
  async function rematch() {
    const m = await (await fetch(`/api/matches/${M}`)).json();
    const seats = m.seats.map(x => x.agent);
    // no seed: the server draws a secret one, which the other seat cannot guess (from the time,
    // or by trying seeds against its agent seed); the seed deals every hidden fact (S-8.1, F-14.3)
    const r = await fetch("/api/matches", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({game: m.game, seats, config: m.config, clock: !!(m.clock && m.clock.enabled)})});
    const j = await r.json();
    if (!r.ok) { $("result-why").textContent += ` Rematch refused: ${j.message}`; return; }
    remember(j);
    const mine = j.seats.find(x => x.seat === SEAT);
    location.href = `/play/${j.match}?token=${encodeURIComponent(mine.token)}`;
  }
  function remember(j) {  // the lobby's "My matches" list (browser storage)
    try {
      const all = JSON.parse(localStorage.getItem("botwars:my-matches") || "[]");
      j.seats.filter(s => s.token).forEach(s => all.unshift({match: j.match, game: j.game, seat: s.seat,
        url: `/play/${j.match}?token=${encodeURIComponent(s.token)}`, at: Date.now()}));
      // whoever asked for the rematch is its game master: the GM link is kept too (issue 24)
      if (j.gm_token) all.unshift({match: j.match, game: j.game, seat: null, gm: true,
        url: `/gm/${j.match}?token=${encodeURIComponent(j.gm_token)}`, at: Date.now()});
      localStorage.setItem("botwars:my-matches", JSON.stringify(all.slice(0, 40)));
    } catch (e) { /* storage may be off */ }
  }

  // ---- clocks ------------------------------------------------------------------------------
  function renderClocks() {
    const tb = $("clocks");
    tb.innerHTML = "";
    if (!snap || !snap.clock || !snap.clock.enabled) {
      tb.append(el("tr", {}, el("td", {colspan: 3}, "No time limit in this match (the lobby's time control was off).")));
      return;
    }
    if (snap.status === "ended") {  // no clock runs once the match is over
      tb.append(el("tr", {}, el("td", {colspan: 3}, "The match is over: no clock runs.")));
      return;
    }
    const c = snap.clock, spent = (Date.now() - clockAt) / 1000;
    // "This move" is the whole time left for it, the bank included ("3 d 23 h" beside a bank of
    // "3 d 0 h" puzzled a newcomer): the header says so
    tb.append(el("tr", {}, el("th", {}, "Player"), el("th", {}, c.bank_s ? "Left for this move (bank included)" : "Left for this move"), el("th", {}, "Time bank")));
    // a game without a bank (F-5.5: a deadline per turn) says so instead of "0:00"
    const noBank = !c.bank_s && c.move_limit_s ? `none (each turn has ${fmtSpan(c.move_limit_s)})` : null;
    for (const [s, bank] of Object.entries(c.bank_left_s)) {
      const left = c.time_left_s[s], now = left === undefined ? null : Math.max(0, left - spent);
      const low = now !== null && now < 20;
      tb.append(el("tr", {class: (s === SEAT ? "me" : "") + (low ? " low" : ""), dataset: {seat: s}},
        el("th", {}, swatch(s), " ", seatName(s)), el("td", {class: "left"}, now === null ? idleWords(s) : fmt(now) + (low ? " — hurry!" : "")),
        el("td", {class: "bank"}, noBank || fmt(bank))));
    }
  }
  // a seat whose clock is not running: in a decision all sides make at once (a race of programs,
  // a secret setup) it has sent its orders; otherwise it is another side's turn (newcomer
  // audit: "not to move" beside a player who had just submitted)
  function idleWords(s) {
    if ((snap.submitted || []).includes(s)) return "orders in";
    return (snap.pending || []).includes(s) ? "waiting" : "not its turn";
  }
  // a clock reading: "4 d 23 h", "2 h 05 min", "4:59" (minutes and seconds only under an hour)
  function fmt(s) {
    s = Math.floor(s);
    const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60, x = s % 60;
    if (d) return `${d} d ${h} h`;
    if (h) return `${h} h ${String(m).padStart(2, "0")} min`;
    return `${m}:${String(x).padStart(2, "0")}`;
  }
  // a length of time in words: "1 day", "5 days", "2 hours", "30 seconds", else as fmt
  function fmtSpan(s) {
    const units = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
    for (const [k, w] of units) if (s >= k && s % k === 0) return `${s / k} ${w}${s / k === 1 ? "" : "s"}`;
    return fmt(s);
  }
  setInterval(renderClocks, 500);

  // ---- what just happened --------------------------------------------------------------------
  function describe(e) {
    if (KIT.describe) {
      const t = KIT.describe(e, ui);
      if (t !== undefined) return t;
    }
    // an event the game's kit does not put in words: its kind only (the raw data is under Details)
    return `${String(e.kind || "something").replace(/_/g, " ").replace(/^./, c => c.toUpperCase())}.`;
  }
  // "Turn 8" for the events of decision point d: the turn the events carry, else the one the page
  // showed while d was open, else (the newest point, on a page opened after it) the turns played
  // so far: s.turn is the turn being played while the match runs (the last one once it ended), so
  // the point just played belongs to the turn before it — none yet: a setup point (a game's set-up step)
  const turnLabels = {};
  function turnLabel(d, evs, s) {
    if (evs.length && evs.every(e => e.kind === "result")) return "The end";  // a point that only ended the match
    const own = KIT.turnLabel ? KIT.turnLabel(evs, ui) : null;  // "Blue's turn 3" in games of alternate turns
    if (own) return own;
    const t = evs.map(e => e.turn).find(x => typeof x === "number" && x > 0);
    if (t !== undefined) return `Turn ${t}`;
    const played = s.status === "ended" ? s.turn : s.turn - 1;
    return turnLabels[d] || (played > 0 ? `Turn ${played}` : "Setup");
  }
  function renderEvents(s) {
    if (s.status !== "ended" && turnLabels[s.decision] === undefined) turnLabels[s.decision] = turnText(s).replace(/ of \d+$/, "");
    const by = new Map();
    for (const e of s.events || []) { if (!by.has(e.decision)) by.set(e.decision, []); by.get(e.decision).push(e); }
    for (const [d, evs] of by) {
      const i = history.findIndex(h => h.decision === d);
      if (i >= 0) history[i].events = evs; else history.push({decision: d, events: evs, label: turnLabel(d, evs, s)});
    }
    history.sort((a, b) => a.decision - b.decision);
    while (history.length > 4) history.shift();
    const newest = history[history.length - 1];
    if (newest && (newest.decision !== announced.decision || newest.events.length !== announced.count)) {
      announced = {decision: newest.decision, count: newest.events.length};  // the live region speaks the news only
      const lines = newest.events.map(describe).filter(Boolean);
      if (lines.length) $("announce").textContent = `${newest.label}: ${lines.join(" ")}`;
    }
    const box = $("events");
    box.innerHTML = "";
    if (!history.length) { box.append(el("p", {class: "hint"}, "No turn has been played yet.")); return; }  // the GM's notes above are no "nothing"
    for (const h of [...history].reverse()) {
      const lines = h.events.map(describe).filter(Boolean);
      const raw = el("pre", {class: "raw-events"});
      raw.textContent = h.events.map(e => JSON.stringify(e)).join("\n");
      box.append(el("h3", {dataset: {decision: h.decision}}, h.label),
        el("ul", {class: "happened"}, ...(lines.length ? lines : [h.events.some(e => e.kind === "result") ? "The match ended: the result is above."
          : "Nothing you can see happened."]).map(x => el("li", {}, x))),
        el("details", {class: "event-details"}, el("summary", {}, "Raw events of this turn (for bot authors)"), raw));
    }
  }

  // ---- the game master's actions and missed deadlines (issue 24), in words -----------------------
  let notesSeen = null;
  function renderNotes(s) {
    const box = $("gm-notes");
    if (!box) return;
    const notes = s.notes || [];
    box.innerHTML = "";
    const paused = s.clock && s.clock.paused && s.status !== "ended";
    if (paused) box.append(el("p", {class: "paused-note", role: "status"}, "The game master has paused the match: every clock stands still."));
    if (notes.length) box.append(el("ul", {class: "happened gm-said"}, ...notes.slice(-6).reverse().map(n => el("li", {}, n.text))));
    if (s.bots && SEAT && s.bots[SEAT]) box.append(el("p", {class: "note"}, `The game master has handed your seat to the built-in bot ${s.bots[SEAT]}; ask them for it back.`));
    box.hidden = !box.childNodes.length;
    if (notesSeen !== null && notes.length > notesSeen) $("announce").textContent = notes.slice(notesSeen).map(n => n.text).join(" ");
    notesSeen = notes.length;
  }

  // ---- raw information (collapsed) ------------------------------------------------------------
  const isObj = v => v !== null && typeof v === "object" && !Array.isArray(v);
  const cell = v => v === null || v === undefined ? "–" : (typeof v === "object" ? JSON.stringify(v) : String(v));
  function renderInfo(view) {
    const box = $("info");
    box.innerHTML = "";
    const dl = el("dl", {class: "info"});
    for (const [k, v] of Object.entries(view || {})) {
      if (["board", "ruleset", "config", "turn"].includes(k)) continue;
      if (k === "clock" && !(snap.clock && snap.clock.enabled)) continue;  // the page's clocks say it
      let node;
      if (k === "reports" && Array.isArray(v)) node = el("pre", {class: "reports"}, v.join("\n"));
      else if (!isObj(v) && !Array.isArray(v)) node = el("span", {}, cell(v));
      else if (Array.isArray(v) && v.every(x => !isObj(x) && !Array.isArray(x))) node = el("span", {}, v.length ? v.join(", ") : "none");
      else node = el("code", {}, JSON.stringify(v));
      dl.append(el("dt", {}, k.replace(/_/g, " ")), el("dd", {dataset: {key: k}}, node));
    }
    box.append(dl);
  }

  // The rules' own path of a (partial) program on the current board, other robots ignored
  // (POST /web/matches/ID/plan, the game's plan hook on this seat's view): calls
  // redraw(steps) when the answer is still current.
  let planSeq = 0;
  function plan(body, redraw) {
    if (!TOKEN) return;
    const my = ++planSeq;
    fetch(`/web/matches/${M}/plan${q}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
      .then(r => r.ok ? r.json() : null)
      .then(j => { if (j && my === planSeq) redraw(j.steps || []); })
      .catch(() => {});
  }
  function drawPlan(steps, who) {  // steps of the plan hook, as arrows and register numbers
    steps.forEach(s => {
      const name = `${who ? who(s) : ""}register ${s.register}`;
      if (s.from && s.to && s.from !== s.to) board.arrow(s.from, s.to, "move", `${name} (on this board)`);
      else if (s.to) board.mark(s.to, "plan", `${name}: turns, facing ${s.facing}`, String(s.register));
      else if (s.from) board.mark(s.from, "plan", `${name}: the robot would be destroyed`, "✕");
    });
  }
  // One filled register of a program (program cards in registers): the card as a button that
  // takes it back (click, Enter, Delete), Shift+Left / Shift+Right on it or the two small
  // buttons move it one register earlier / later. program: the cards in register order (changed
  // in place, then redraw()); opts.id(card) -> its data id, opts.describe(card) -> what it does,
  // opts.label(card) -> the button's words ("Turn left · priority 350"; default: the card as given),
  // opts.who: whose registers (spoken first, for a seat with several robots).
  function registerCard(program, i, redraw, opts) {
    const c = program[i], id = opts.id(c), text = opts.describe(c), who = opts.who ? `${opts.who}, ` : "";
    const label = opts.label ? opts.label(c) : c;  // the card in words (the kit's label), else as given
    const swap = j => { if (j < 0 || j >= program.length) return; [program[i], program[j]] = [program[j], program[i]]; redraw(); };
    return [el("button", {type: "button", class: "cardbtn in", dataset: {reg: id}, title: `${text} — click to take it back`,
      "aria-label": `${who}register ${i + 1}: ${text}. Press to take it back; Shift+arrow keys move it`,
      "aria-keyshortcuts": "Delete Shift+ArrowLeft Shift+ArrowRight",
      onclick: () => { program.splice(i, 1); redraw(); },
      onkeydown: ev => {
        if (ev.key === "Delete" || ev.key === "Backspace") { ev.preventDefault(); program.splice(i, 1); redraw(); }
        else if (ev.shiftKey && (ev.key === "ArrowLeft" || ev.key === "ArrowUp")) { ev.preventDefault(); swap(i - 1); }
        else if (ev.shiftKey && (ev.key === "ArrowRight" || ev.key === "ArrowDown")) { ev.preventDefault(); swap(i + 1); }
      }}, label),
      el("button", {type: "button", class: "mini", dataset: {earlier: id}, disabled: i === 0 ? "disabled" : null,
        "aria-label": `move ${text} earlier`, title: "run it one register earlier", onclick: () => swap(i - 1)}, "◀"),
      el("button", {type: "button", class: "mini", dataset: {later: id}, disabled: i >= program.length - 1 ? "disabled" : null,
        "aria-label": `move ${text} later`, title: "run it one register later", onclick: () => swap(i + 1)}, "▶")];
  }
  // Every robot's path over the stages of a turn, from the stage tables' NAME and MOVES rows
  // (events of kind "stage"): [{a, b, owner, text, colour}], one per square entered.
  // text(name, event, moves) -> the arrow's title; colour(name) -> its colour (or undefined).
  function stageMoves(events, text, colour) {
    const out = [], at = {};
    for (const e of events) {
      if (e.kind !== "stage") continue;
      const rows = e.rows || [], names = (rows.find(r => r[0] === "NAME") || []).slice(1);
      const moves = rows.find(r => r[0] === "MOVES") || [];
      names.forEach((n, i) => {
        for (const sq of String(moves[i + 1] || "").match(/r\d+c\d+/g) || []) {
          if (at[n] && at[n] !== sq) out.push({a: at[n], b: sq, owner: n, text: text(n, e, moves[i + 1]),
                                              colour: colour ? colour(n) : undefined});
          at[n] = sq;
        }
      });
    }
    return out;
  }
  // Submit is disabled while the kit says its orders are incomplete (ui.ready(false, why)); the
  // sentence that says what is missing stands beside it.
  let entryBlock = null;
  let shown = null, sentFor = null, changing = null;  // the point the controls show / last sent; "Change orders" open for
  // the controls are open for a seat that has already submitted: "Change orders" (issue 24 item
  // 3), or the game master's mode while the seat has orders to give
  const editingNow = s => s.status !== "ended" && (GM ? s.pending.includes(SEAT) : changing === s.decision);
  function updateSubmit() {
    const b = $("submit");
    if (!SEAT || !b || !snap) return;
    const editing = editingNow(snap);
    const held = paused(snap) && !GM;  // the game master paused the match: no orders until it resumes
    b.disabled = !(snap.your_turn || editing) || snap.status === "ended" || !!entryBlock || held || suggesting;
    let why = $("submit-why");
    if (!why) { why = el("span", {id: "submit-why", class: "note", role: "status"}); b.after(why); }
    why.textContent = held ? "Paused by the game master: Submit comes back when the match resumes."
      : suggesting ? "Asking the bot for a suggestion…"
      : entryBlock && snap.your_turn && snap.status !== "ended" ? entryBlock : "";
    if (entryBlock || held || suggesting) b.setAttribute("aria-describedby", "submit-why"); else b.removeAttribute("aria-describedby");
  }
  function ready(ok, why) { entryBlock = ok ? null : (why || "The orders are not complete yet."); updateSubmit(); }
  const ui = {el, setOrders, board, seatName, seatInfo, swatch, palette: PALETTE, say: (t, bad) => say(t, bad), get snap() { return snap; }, seat: SEAT,
              plan, drawPlan, registerCard, stageMoves, ready};

  // A page opened after the end holds only the newest decision point's events, which may be the
  // result alone (a game that ends on a point of its own): once, it reads the point before too,
  // so "What just happened" shows the last turn itself, not just "the match ended".
  let backfilled = false;
  async function backfill(s) {
    backfilled = true;
    const evs = s.events || [];
    // (a resignation or a loss on time ends the match at an open point: no event of its own)
    if (GM || s.status !== "ended" || s.decision < 2 || !evs.every(e => e.kind === "result")) return;
    const r = await fetch(`/api/matches/${M}/view${q}${q ? "&" : "?"}since=${s.decision - 2}`);
    if (r.ok) apply(await r.json());
  }
  // turns played while the page waited (its own turn, then a bot's at once, in a game of alternate
  // turns): a push carries only the newest point's events, so the ones between are fetched once
  // (newcomer audit: "What just happened" showed the bot's move and never the player's own)
  const gapsAsked = new Set();
  async function fillGap(s, known) {
    const first = Math.min(...(s.events || []).map(e => e.decision).filter(d => typeof d === "number"));
    if (GM || known === null || !isFinite(first) || first <= known + 1 || gapsAsked.has(first)) return;
    gapsAsked.add(first);
    const r = await fetch(`/api/matches/${M}/view${q}${q ? "&" : "?"}since=${known}`);
    if (r.ok) apply(await r.json());
  }
  function apply(s) {
    if (snap && s.decision < snap.decision && s.status === snap.status) return;  // an old push
    if (!backfilled) backfill(s);
    snap = s;
    clockAt = Date.now();
    page.dataset.decision = s.decision;
    page.dataset.status = s.status;
    page.dataset.yourTurn = String(!!s.your_turn);
    renderWho(s);
    if (s.status === "ended" && $("whole-game")) $("whole-game").hidden = false;
    renderStatus(s);
    renderOutcome(s);
    renderInfo(s.view);
    const before = history.length ? history[history.length - 1].decision : null;
    renderEvents(s);
    fillGap(s, before);
    renderNotes(s);
    renderClocks();
    loadBoard();
    if ($("legend")) drawnLegend($("legend"));
    if (SEAT) {
      // (the GM's controls are not rebuilt when the player submits meanwhile: the GM's work stays)
      const key = GM ? `${s.decision}:${s.status}:${s.pending.includes(SEAT)}` : `${s.decision}:${s.status}:${s.your_turn && !s.submitted.includes(SEAT)}`;
      if (builtFor !== key) { builtFor = key; turnMoved(s); buildEntry(s); }
      const editing = editingNow(s);
      $("orders-card").classList.toggle("idle", !s.your_turn && !editing);
      updateSubmit();
      document.querySelector(".submit-row").hidden = s.status === "ended";
      // "Click the board … to choose pieces" no longer applies once the match is over
      document.querySelectorAll(".board-hint").forEach(h => h.classList.toggle("over", s.status === "ended"));
      if (s.status === "ended") endOrderMessages();  // "Accepted: your orders for turn N are in" no longer applies
      else if (accepted && s.decision > accepted.decision) playedOrderMessage();
    }
  }
  // Once the match has ended, the order messages (beside a control, under the board) go, and an
  // acceptance beside Submit says what it now means: the last turn was played (issue 23).
  const LAST_TURN = "Accepted. That was the last turn: the result is above.";
  let accepted = null;  // {decision, label} of the last acceptance beside Submit
  // a later turn has opened: the acceptance says its turn was played, not that orders "are in"
  function playedOrderMessage() {
    const m = $("order-msg");
    if (m && m.classList.contains("ok") && m.textContent.startsWith("Accepted: your orders for "))
      m.textContent = `Accepted: your orders for ${accepted.label} were played (see “What just happened”).`;
    accepted = null;
  }
  function endOrderMessages() {
    document.querySelectorAll(".near-msg").forEach(n => n.remove());
    if ($("board-msg")) $("board-msg").textContent = "";
    const m = $("order-msg");
    if (!m || !/^(Accepted|Already accepted|Your new orders)/.test(m.textContent)) return;  // "You resigned." stays
    if (accepted) m.textContent = LAST_TURN;  // the orders of the point that ended the match
    else { m.textContent = ""; m.classList.remove("ok", "error"); }  // an earlier turn's: gone
  }

  // ---- live updates: the WebSocket, reconnecting with back-off ---------------------------------
  let backoff = 500;
  function connect() {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${M}/ws${q}`);
    ws.onopen = () => { backoff = 500; $("conn").textContent = ""; };
    ws.onmessage = m => apply(JSON.parse(m.data));
    ws.onclose = () => {
      if (snap && snap.status === "ended") return;
      $("conn").textContent = `Connection lost; trying again in ${Math.round(backoff / 1000) || 1} s…`;
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 15000);
    };
  }
  async function refresh() {  // the open decision point, now (after a refusal or a reconnect)
    const r = await fetch(GM ? `/api/matches/${M}/gm/seat/${encodeURIComponent(SEAT)}?token=${encodeURIComponent(TOKEN)}`
                             : `/api/matches/${M}/view${q}`);
    if (!r.ok) return;
    const s = await r.json();
    if (GM) {  // the GM's poll: draw again only when something but the running clock changed
      const same = JSON.stringify({...s, clock: {...s.clock, time_left_s: null, elapsed_s: null}});
      if (same === lastPoll) { snap = s; clockAt = Date.now(); return; }
      lastPoll = same;
    }
    apply(s);
  }
  let lastPoll = null;
  if (GM) { refresh(); setInterval(() => { if (!snap || snap.status !== "ended") refresh(); }, 4000); }  // no seat socket for the GM
  else connect();

  if (!SEAT) { renderLegend(); return; }

  // ---- orders --------------------------------------------------------------------------------
  const box = $("orders-json"), msg = $("order-msg");
  let syncing = false;
  function queueKey(s) { const v = s.view || {}; return JSON.stringify([s.turn, v.phase || null, v.setup || null, v.round || null]); }
  function setOrders(v) {
    box.value = typeof v === "string" ? v : JSON.stringify(v);
    box.classList.remove("bad");
    if (snap) try { localStorage.setItem(STORE, JSON.stringify({key: queueKey(snap), orders: box.value})); } catch (e) { /* off */ }
  }
  // A message goes next to the control that caused it: the focused control's group in the order
  // controls, the board (a board click or the keyboard cursor), else beside Submit.
  function say(text, bad) {
    if (snap && snap.status === "ended" && !bad && /^(Accepted|Already accepted|Your new orders)/.test(text)) {
      text = LAST_TURN;  // an acceptance that arrives after the end screen: its point ended the match
    }
    document.querySelectorAll(".near-msg").forEach(n => n.remove());
    const act = document.activeElement, entry = $("entry");
    let target = msg;
    if (act && act !== document.body && entry.contains(act) && act.closest) {
      const anchor = act.closest("[role=group], fieldset, .registers, ol, .row") || act;
      target = el("p", {class: "msg near-msg", role: bad ? "alert" : "status"});
      (entry.contains(anchor) ? anchor : act).after(target);
    } else if (act && $("board").contains(act)) target = $("board-msg");  // a click or Enter on the board focuses it
    if (target !== msg) { msg.textContent = ""; msg.classList.remove("error", "ok"); }
    target.textContent = text;
    target.classList.toggle("error", !!bad); target.classList.toggle("ok", !bad && !!text);
    if (target === msg) msg.setAttribute("aria-live", bad ? "assertive" : "polite");
    if (target !== $("board-msg")) $("board-msg").textContent = "";
  }

  // Keyboard: the controls are rebuilt on every change; focus stays on the same control (its id or
  // data-* attributes) or, when it went away (a card moved to a register), on its neighbour.
  let focusKey = null;
  const FOCUSABLE = "button:not([disabled]), select, input, textarea, [tabindex]";
  function keyOf(e) {
    if (e.id) return `#${CSS.escape(e.id)}`;
    const ds = Object.entries(e.dataset || {});
    return ds.length ? e.tagName.toLowerCase() + ds.map(([k, v]) => `[data-${k.replace(/[A-Z]/g, c => "-" + c.toLowerCase())}="${CSS.escape(v)}"]`).join("") : null;
  }
  $("entry").addEventListener("focusout", ev => { if (ev.relatedTarget && !$("entry").contains(ev.relatedTarget)) focusKey = null; });
  document.addEventListener("pointerdown", ev => { if (!$("entry").contains(ev.target)) focusKey = null; }, true);
  $("entry").addEventListener("focusin", ev => {
    const g = ev.target.closest("[role=group], .registers, .registers-multi, ol");
    const all = [...$("entry").querySelectorAll(FOCUSABLE)];
    focusKey = {sel: keyOf(ev.target), group: g ? g.getAttribute("aria-label") || g.className : null,
                inGroup: g ? [...g.querySelectorAll(FOCUSABLE)].indexOf(ev.target) : -1, index: all.indexOf(ev.target)};
  });
  new MutationObserver(() => {
    const act = document.activeElement;
    if (!focusKey || (act && act !== document.body && act.isConnected)) return;
    const entry = $("entry");
    let t = focusKey.sel ? entry.querySelector(focusKey.sel) : null;
    if (t && t.disabled) t = null;
    if (!t && focusKey.group) {
      const g = [...entry.querySelectorAll("[role=group], .registers, .registers-multi, ol")]
        .find(x => (x.getAttribute("aria-label") || x.className) === focusKey.group);
      const items = g ? [...g.querySelectorAll(FOCUSABLE)] : [];
      if (items.length) t = items[Math.min(Math.max(focusKey.inGroup, 0), items.length - 1)];
    }
    if (!t) { const all = [...entry.querySelectorAll(FOCUSABLE)]; t = all[Math.min(Math.max(focusKey.index, 0), all.length - 1)]; }
    if (t) t.focus();
  }).observe($("entry"), {childList: true, subtree: true});
  // arrow keys move between the buttons of a group (Tab moves between groups and controls)
  document.addEventListener("keydown", ev => {  // on the document: a kit's own keys (on #entry) go first
    if (ev.defaultPrevented || !$("entry").contains(ev.target) || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    const step = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1}[ev.key];
    const g = step && ev.target.closest && ev.target.tagName === "BUTTON" ? ev.target.closest("[role=group]") : null;
    if (!g) return;
    const items = [...g.querySelectorAll("button:not([disabled])")], i = items.indexOf(ev.target);
    if (i < 0 || items.length < 2) return;
    ev.preventDefault();
    items[(i + step + items.length) % items.length].focus();
  });
  function payload() {
    const raw = box.value.trim();
    try { return JSON.parse(raw); } catch (e) { return raw; }  // the game's text notation
  }

  // One seat, one decision (issue 23 item 6): orders go for the decision point the controls were
  // built for, never the one a later push opened. Corrections (issue 24 item 3): after Submit,
  // "Change orders" brings the controls back with the submitted plan until the turn resolves.
  const REPLACES = page.dataset.replaces === "yes";
  const SENT = `botwars:sent:${M}:${SEAT}`;
  // shown, sentFor, changing: declared above updateSubmit (which reads changing)
  function turnMoved(s) {  // the controls showed an older point that this tab never submitted
    if (shown !== null && s.decision > shown && sentFor !== shown && s.status !== "ended") {
      say("This turn was already played — here is what happened (see “What just happened”). The controls now show the new turn.", true);
      try { localStorage.removeItem(STORE); } catch (e) { /* off */ }
    }
    if (changing !== null && changing !== s.decision) changing = null;
  }
  function sentOrders(d) {
    try { const x = JSON.parse(localStorage.getItem(SENT) || "null"); return x && x.decision === d ? x.orders : null; } catch (e) { return null; }
  }

  async function submit() {
    if (entryBlock) { say(entryBlock, true); return; }
    if (GM) return gmSubmit();
    const body = payload();
    const sent = shown !== null ? shown : snap.decision;
    say("Sending…", false);
    const r = await fetch(`/api/matches/${M}/orders${q}`, {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({decision: sent, orders: body})});
    const j = await r.json();
    if (!r.ok) {
      // the refusal in words beside Submit; the rule number and the refused part go under Details
      refusalDetails(j);
      if (r.status === 409 && j.error === "wrong_decision") {
        try { localStorage.removeItem(STORE); } catch (e) { /* off */ }
        sentFor = sent;  // told here: the push of the new point needs no second message
        await refresh();  // the new point's own controls; the old turn's orders are not sent again
        say("This turn was already played — here is what happened (see “What just happened”). The controls now show the new turn: give your orders for it.", true);
      } else {
        say(`Refused: ${plainRefusal(j.message)}. Change the orders and submit again.`, true);
        await refresh();  // a refusal may open a new decision point for the same seat (a game may ask again)
      }
      return;
    }
    const notes = (j.errors || []).map(e => e.detail || e.code).join("; ");
    try { localStorage.removeItem(STORE); localStorage.setItem(SENT, JSON.stringify({decision: sent, orders: body})); } catch (e) { /* off */ }
    sentFor = sent;
    const was = changing;
    changing = null;
    if (was !== null && snap) buildEntry(snap);  // back to "your orders are in"
    refusalDetails(null);
    accepted = {decision: sent, label: (turnLabels[sent] || turnText(snap).replace(/ of \d+$/, "")).toLowerCase()};  // the point sent: "setup", not the turn now shown
    say(j.duplicate ? "Already accepted." : j.replaced ? `Your new orders replace the ones you gave before${notes ? ` (notes: ${notes})` : ""}. You can change them until the turn is played.`
      : `Accepted: your orders for ${accepted.label} are in${notes ? ` (notes: ${notes})` : ""}.`, false);
    if (snap && snap.decision > sent && snap.status !== "ended") playedOrderMessage();  // the next turn came first
  }
  // A refusal's message as a sentence for a person: rule numbers in brackets left out, and a
  // message that quotes JSON said in words (the message itself is kept under Details).
  const RULE = "(?:R\\d+[a-z]?|H\\d+|[A-Z]{1,2}-\\d+(?:\\.\\d+)*[a-z]?)";
  const RULES_IN_BRACKETS = new RegExp(`\\s*\\((?:rules?\\s+)?${RULE}(?:\\s*,\\s*${RULE})*\\)`, "g");
  const RULE_LEAD = new RegExp(`\\((?:rules?\\s+)?${RULE}(?:\\s*,\\s*${RULE})*:\\s*`, "g");  // "(G-4.5: every program…" -> "(every program…"
  function plainRefusal(m) {
    let t = String(m || "the orders were not accepted");
    if (KIT.refusal) t = KIT.refusal(t) || t;  // the game's own words for its messages to bots
    t = t.replace(RULES_IN_BRACKETS, "").replace(RULE_LEAD, "(").trim();
    if (/[{[]\s*"|"\s*:/.test(t)) t = "the orders are incomplete or not in the form this game expects: finish every choice in the controls";
    return t.replace(/\.$/, "");
  }
  // A refusal's rule number and refused part, for those who want them: a closed "Details"
  // disclosure under the message (null: none).
  function refusalDetails(j) {
    let d = $("order-msg-details");
    if (!d) { d = el("details", {id: "order-msg-details", class: "event-details"}, el("summary", {}, "Details"), el("pre", {})); msg.after(d); }
    const bits = [];
    if (j && j.message) bits.push(`message: ${j.message}`);
    if (j && j.rule_code) bits.push(`rule: ${j.rule_code}`);
    if (j && j.part !== undefined && j.part !== null) bits.push(`refused part: ${typeof j.part === "string" ? j.part : JSON.stringify(j.part)}`);
    if (j && j.error) bits.push(`code: ${j.error}`);
    d.querySelector("pre").textContent = bits.join("\n");
    d.hidden = !bits.length;
    d.open = false;
  }
  // The second click of a double click (event.detail 2) is no second submission: once the other
  // seats answer quickly, it would send the next decision point's untouched controls. (A click by
  // keyboard has detail 0; a single click, 1.)
  $("submit").addEventListener("click", ev => { if (ev.detail <= 1) submit(); });
  // The game master sets the seat's orders (POST .../gm/adjudicate, the rules' check as a
  // player's): a reason is required; a refusal is a sentence; the GM page is told to refresh.
  async function gmSubmit() {
    const why = $("gm-seat-reason").value.trim();
    if (!why) { say("Give a reason first (it is shown to the players).", true); $("gm-seat-reason").focus(); return; }
    say("Sending…", false);
    const r = await fetch(`/api/matches/${M}/gm/adjudicate?token=${encodeURIComponent(TOKEN)}`, {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({seat: SEAT, orders: payload(), reason: why})});
    let j = {};
    try { j = await r.json(); } catch (e) { j = {message: `the server answered ${r.status}`}; }
    if (!r.ok) {
      refusalDetails(j);
      say(`Refused: ${plainRefusal(String(j.message || "").replace(/^the rules refuse these orders for seat \S+: /, "the rules refuse these orders: "))}. Change the orders and try again.`, true);
      return;
    }
    refusalDetails(null);
    $("gm-seat-reason").value = "";
    try { localStorage.removeItem(STORE); } catch (e) { /* off */ }
    say(`Done. ${j.text}`, false);
    try { window.parent.postMessage({botwarsGm: "done"}, location.origin); } catch (e) { /* no parent */ }
    await refresh();
  }
  if ($("resign")) $("resign").addEventListener("click", async () => {
    if (!confirm("Resign this match? You lose it.")) return;
    const r = await fetch(`/api/matches/${M}/resign${q}`, {method: "POST"});
    const j = await r.json();
    say(r.ok ? "You resigned." : j.message, !r.ok);
  });
  // while the bot thinks, Submit waits (newcomer audit: a Submit pressed meanwhile sent the empty
  // controls, and the refusal then stood beside the suggestion that arrived a moment later)
  if ($("suggest")) $("suggest").addEventListener("click", async () => {
    if (suggesting) return;
    suggesting = true; $("suggest").disabled = true; updateSubmit();
    try {
      const r = await fetch(`/web/matches/${M}/suggest${q}&bot=${encodeURIComponent($("suggest-bot").value)}`);
      const j = await r.json();
      if (r.ok) {
        setOrders(j.orders);
        if (entryCtl && entryCtl.load) entryCtl.load(j.orders);
        say("Suggestion loaded into the controls: change it or submit it.", false);
      } else say(j.message, true);
    } catch (e) {
      say("The suggestion did not arrive (the connection failed): try again.", true);
    } finally {
      suggesting = false; $("suggest").disabled = false; updateSubmit();
    }
  });
  box.addEventListener("input", () => {  // the Advanced box drives the controls too
    let v;
    try { v = JSON.parse(box.value); } catch (e) { box.classList.add("bad"); return; }
    box.classList.remove("bad");
    if (entryCtl && entryCtl.load && !syncing) { syncing = true; try { entryCtl.load(v); } finally { syncing = false; } }
  });

  let buildSeq = 0;
  async function buildEntry(s) {
    const entry = $("entry"), mine = ++buildSeq;
    entry.innerHTML = "";
    board.clear(); boardClick = null; entryCtl = null; entryBlock = null; updateSubmit();
    drawPlanned();
    const editing = editingNow(s);
    if (!editing && (!s.your_turn || s.submitted.includes(SEAT) || s.status === "ended")) {
      shown = null;
      entry.append(el("p", {class: "hint"}, s.status === "ended" ? "The match is over." :
        GM ? "This seat has no orders to give now; the page updates by itself." : (s.bots || {})[SEAT] ? "A built-in bot plays your seat now; the game master can give it back to you."
        : s.submitted.includes(SEAT) && s.your_orders_by_gm ? "The game master set your orders for this turn. You may change them until the turn is played."
        : s.submitted.includes(SEAT) ? "Your orders are in. The page updates when the others have moved." : "Not your move yet: the page updates by itself."));
      if (REPLACES && s.status !== "ended" && s.submitted.includes(SEAT) && s.pending.includes(SEAT) && !(s.bots || {})[SEAT]) {
        entry.append(el("button", {type: "button", id: "change-orders", onclick: () => {
          changing = s.decision;
          buildEntry(snap).then(() => { $("submit").disabled = false; $("orders-card").classList.remove("idle"); });
          say("Change your orders, then press Submit: the new ones replace those you gave (until the turn is played).", false);
        }}, "Change orders"));
      }
      renderLegend();
      return;
    }
    shown = s.decision;
    const h = await (await fetch(`/web/matches/${M}/helpers${q}`)).json();
    // a newer push rebuilt the controls meanwhile: this older build must not add a second set
    // (two sets of controls, each keeping picks of its own: a pick in one is missing from the other)
    if (mine !== buildSeq) return;
    if (!KIT.entry) $("advanced").open = true;  // no controls: the orders box is the entry
    if (KIT.entry) {  // (a game without a kit: the Advanced box is the entry, and #entry stays empty)
      entry.append(el("p", {class: "keys keys-only", id: "keys-help"}, "Keyboard: Tab / Shift+Tab go from control to control, " +
        "arrow keys move within a row of buttons, Enter or Space presses. On the board (Tab to it): arrow keys move the cursor, " +
        "Enter chooses the square." + (KIT.keys ? " " + KIT.keys : "")),
        // touch screens (no hover, coarse pointer: app.css) get this instead of the keyboard help
        el("p", {class: "keys touch-only", id: "touch-help"}, "Tap a piece or a square on the board to choose it and tap the " +
        "buttons here to pick; your plan shows on the board as dashed marks. Tap Submit when it is complete." + (KIT.touch ? " " + KIT.touch : "")));
      let saved = null;  // read before the controls start writing their own (empty) orders
      try { saved = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { saved = null; }
      entryCtl = KIT.entry(entry, s.view, h, ui) || null;
      // "Change orders" (and the GM's controls): the submitted plan, from the server's answer (any
      // browser, issue 24 item 3), else from this browser's own note of it
      const given = editing ? (s.your_orders !== undefined && s.your_orders !== null ? s.your_orders : sentOrders(s.decision)) : null;
      if (given !== null && entryCtl && entryCtl.load) {
        try { entryCtl.load(given); setOrders(given); } catch (e) { /* stale */ }
      } else if (saved && saved.key === queueKey(s) && entryCtl && entryCtl.load) {
        try { entryCtl.load(JSON.parse(saved.orders)); setOrders(saved.orders); } catch (e) { /* stale */ }
      }
    } else if (editing) {
      const given = s.your_orders !== undefined && s.your_orders !== null ? s.your_orders : sentOrders(s.decision);
      if (given !== null) setOrders(given);
    }
    drawPlanned();
    renderLegend();
  }

  // the drawn legend (the game's legend hook: the board's own symbols, in words), fetched again
  // when the decision point changes (a board may change its elements, e.g. a new room)
  function drawnLegend(box) {
    if (!page.dataset.legend) return;
    const key = snap ? snap.decision : "-";
    if (legendFor === key) return;
    legendFor = key;
    let pic = $("legend-board");
    if (!pic) { pic = el("div", {id: "legend-board", class: "legend-board"}); box.prepend(pic); }
    fetch(`/web/matches/${M}/legend.svg${q}`).then(r => r.ok ? r.text() : "").then(t => {
      if (t.startsWith("<svg")) pic.innerHTML = t;
    }).catch(() => { legendFor = null; });
  }

  function renderLegend() {
    const box = $("legend");
    if (box) drawnLegend(box);
    if (!box || box.dataset.done) return;
    box.dataset.done = "1";
    const rows = KIT.legend || [];
    if (!rows.length) { if (!page.dataset.legend) box.append(el("p", {class: "hint"}, "No legend for this game.")); return; }
    box.append(el("dl", {class: "legend"}, ...rows.flatMap(([a, b]) => [el("dt", {}, a), el("dd", {}, b)])));
  }
  window.addEventListener("online", refresh);
})();
