// Replay viewer (issues 8 and 14): an ended match step by step and, for games with stages
// (a game that declares stages), stage by stage with the board after every sub-step that moved something.
// The events in words from the game's kit (entry.js); the board as any seat saw it (#as-seat).
// Lazy: the light index first; each step's details and each picture are fetched when shown
// and kept (a 900-turn record opens and seeks at once). Position in the URL: #k=STEP&f=FRAME.
"use strict";
(function () {
  const root = document.getElementById("replay");
  const M = root.dataset.match, KIT = (window.botwarsGames || {})[root.dataset.game] || {};
  const $ = id => document.getElementById(id);
  const PALETTE = JSON.parse(root.dataset.palette || "{}");  // seat colours (render/palette.py)
  const seatInfo = window.botwarsSeatsOf(KIT, PALETTE);  // static/seats.js
  const seatName = s => seatInfo(s).name;  // "Red", never the engine's "p1"
  // a move in the game's notation, read by people: "b depth charge C4", not the record's
  // "depth_charge" (the notation itself stays as the rules write it in records and documents)
  const plainMove = t => String(t).replace(/_/g, " ");
  // a step's moves in seat order (Red before Blue), whatever order the record keeps them in
  const bySeat = m => Object.entries(m || {}).sort(([a], [b]) => ((index && index.seats) || []).indexOf(a) - ((index && index.seats) || []).indexOf(b));
  const ui = {seatName, seatInfo};  // what a kit's describe(event, ui) may use here (no seat: third person)
  function words(e) {
    const flat = Object.assign({kind: e.type || e.kind}, e.data || e);
    const t = KIT.describe ? KIT.describe(flat, ui) : undefined;
    if (t === null) return null;
    return t || `${String(flat.kind).replace(/_/g, " ")}: ${JSON.stringify(e.data || e)}`;
  }
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  let index = null, k = 0, f = 0, timer = null, seq = 0;
  const details = new Map();   // k -> step JSON (promise)
  const pictures = new Map();  // url -> SVG text (promise), oldest dropped past 400
  const speed = () => Number($("speed").value) || 1;

  function step(i) {
    if (!details.has(i)) details.set(i, fetch(`/web/matches/${M}/replay/${i}.json`).then(r => r.json()));
    return details.get(i);
  }
  function picture(url) {
    if (!pictures.has(url)) {
      pictures.set(url, fetch(url).then(r => r.ok ? r.text() : ""));
      if (pictures.size > 400) pictures.delete(pictures.keys().next().value);
    }
    return pictures.get(url);
  }
  function framesOf(s, i) {  // [{url, label, sec}] for step i
    const out = [];
    (s.sections || []).forEach((sec, si) => sec.frames.forEach(fr => out.push({url: fr.url, label: fr.label, sec: si})));
    const seat = $("as-seat").value;
    return out.length ? out : [{url: `/web/matches/${M}/replay/${i}.svg${seat ? `?seat=${encodeURIComponent(seat)}` : ""}`, label: "", sec: -1}];
  }

  function robotCentres(box) {
    const out = new Map();
    box.querySelectorAll("g.robot[data-robot]").forEach(g => {
      try { const b = g.getBBox(); out.set(g.dataset.robot, [b.x + b.width / 2, b.y + b.height / 2]); } catch (e) { /* not rendered */ }
    });
    return out;
  }
  function showBoard(text) {  // swap the picture, moving robots from their old squares (FLIP)
    const box = $("board");
    const old = robotCentres(box);
    box.innerHTML = text;
    // a phone: the board alone across the width, the drawing's panel folded under it (static/panel.js)
    const side = $("replay-side");
    if (side) side.remove();
    const svg = box.querySelector("svg");
    if (svg && window.botwarsSplitPanel) window.botwarsSplitPanel(svg, box, {id: "replay-side", class: "board board-side"}, true);
    const ms = Math.round(400 / Math.max(1, speed()));
    box.style.setProperty("--move-ms", ms + "ms");
    const moved = [];
    robotCentres(box).forEach((c, id) => {
      const o = old.get(id);
      if (!o || (o[0] === c[0] && o[1] === c[1])) return;
      const g = box.querySelector(`g.robot[data-robot="${id}"]`);
      g.style.transition = "none";
      g.style.transform = `translate(${o[0] - c[0]}px, ${o[1] - c[1]}px)`;
      moved.push(g);
    });
    if (moved.length) {
      box.getBoundingClientRect();  // commit the start positions
      requestAnimationFrame(() => moved.forEach(g => { g.style.transition = ""; g.style.transform = ""; }));
    }
  }

  const table = sec => window.botwarsStages.table(sec);  // static/stages.js

  // the last step says how the match ended, in the kit's words where it has them (the end screen's
  // sentence; a spectator's: no "you"); a newcomer at the last step saw only its moves
  function resultWords(o) {
    let said = {};
    try { said = (KIT.outcome && KIT.outcome(o, null, ui)) || {}; } catch (e) { said = {}; }
    if (o.details && o.details.by === "game master")
      return o.reason === "aborted" ? "The game master stopped the match: no result." :
        `The game master ended the match: ${o.winner ? seatName(o.winner) + " wins" : "a draw"}.`;
    const head = said.head || (o.winner ? `${seatName(o.winner)} won` : "A draw");
    const why = said.why || `(${String(o.reason || "the game ended").replace(/_/g, " ")})`;
    return `The match is over: ${head.replace(/^(A draw|Draw)\b/, w => w.toLowerCase())}. ${why}${said.scores ? " " + said.scores : ""}`.replace(/\.\./g, ".");
  }

  function describe(s, fr, frames) {
    const label = (index.steps[k] || {}).label || `turn ${s.turn}`;
    // "Turn 6 (step 7 of 15)": the turn as the seat pages name it, never the engine's "decision point"
    const head = k === 0 ? "The start" : label.charAt(0).toUpperCase() + label.slice(1);
    let text = `${head} (step ${k} of ${index.count - 1})`;
    if (fr.sec >= 0) {
      const sec = s.sections[fr.sec];
      text += ` · ${sec.seat ? seatName(sec.seat) + " · " : ""}${sec.title} · after ${fr.label} (${f + 1} / ${frames.length})`;
    }
    return text;
  }

  async function go(i, j, fromHash) {
    if (!index) return;
    const my = ++seq;
    i = Math.max(0, Math.min(index.count - 1, i));
    const s = await step(i);
    if (my !== seq) return;
    const frames = framesOf(s, i);
    if (j < 0) j = frames.length + j;
    k = i; f = Math.max(0, Math.min(frames.length - 1, j));
    const fr = frames[f];
    root.dataset.k = k; root.dataset.f = f;
    $("seek").value = k;
    $("pos").textContent = describe(s, fr, frames);
    if (!fromHash) history.replaceState(null, "", `#k=${k}&f=${f}`);
    // frame buttons
    const bar = $("frames");
    bar.innerHTML = "";
    if (fr.sec >= 0) {
      let last = -2;
      frames.forEach((x, n) => {
        if (x.sec !== last) {
          const sec = s.sections[x.sec];
          bar.append(el("span", (last === -2 ? "" : " ") + (sec.seat ? sec.seat + " " : "") + (sec.kind === "stage" ? `S${sec.stage}` : sec.kind) + ":", "sep"));
          last = x.sec;
        }
        const b = el("button", x.label, n === f ? "current" : "");
        b.type = "button"; b.dataset.frame = n;
        b.onclick = () => { stop(); go(k, n); };
        bar.append(b);
      });
    }
    // orders, hands, stage table or report, events, move list
    const orders = $("orders"); orders.innerHTML = "";
    bySeat(s.moves || {}).forEach(([seat, t]) => orders.append(el("div", `${seatName(seat)}: ${plainMove(t)}`)));
    const hands = $("hands"); hands.innerHTML = "";
    Object.entries(s.hands || {}).forEach(([seat, h]) => hands.append(el("div", `${seatName(seat)}'s hand: ${h.join(", ")}`)));
    const stage = $("stage"); stage.innerHTML = "";
    if (fr.sec >= 0) {
      $("stage-title").textContent = "Stage report";
      stage.append(table(s.sections[fr.sec]));
      for (let n = fr.sec + 1; n < s.sections.length && !s.sections[n].frames.length; n++) stage.append(table(s.sections[n]));
      $("report").innerHTML = "";
    } else {
      $("stage-title").textContent = "Report";
      $("report").innerHTML = s.report || (k === 0 ? "<p>The start position.</p>" : "<p>No report for this step.</p>");
    }
    const ol = $("events"); ol.innerHTML = "";
    (s.events || []).forEach(e => ol.append(el("li", Object.entries(e).map(([a, b]) => `${a}: ${typeof b === "object" ? JSON.stringify(b) : b}`).join(", "))));
    const hp = $("happened"); hp.innerHTML = "";
    const ul = el("ul", undefined, "happened");
    (s.events || []).forEach(e => { const w = words(e); if (w) ul.append(el("li", w)); });
    if (!ul.children.length) ul.append(el("li", k === 0 ? "The start position." : "Nothing to show."));
    if (k === index.count - 1 && index.outcome) ul.append(el("li", resultWords(index.outcome), "result-line"));
    hp.append(ul);
    const moves = $("moves");
    const cur = moves.querySelector("li.current");
    if (cur) cur.classList.remove("current");
    const li = moves.children[k];
    // the move list scrolls itself, never the page (scrollIntoView moved the step bar off screen)
    if (li) { li.classList.add("current"); if (moves.closest("details").open) scrollInside(moves, li); }
    const text = await picture(fr.url);
    if (my === seq) showBoard(text);
    // fetch the neighbours ahead of time (autoplay, arrow keys)
    if (f + 1 < frames.length) picture(frames[f + 1].url);
    else if (k + 1 < index.count) step(k + 1).then(n => picture(framesOf(n, k + 1)[0].url));
  }

  function scrollInside(box, item) {  // bring item into view inside box (position: relative) only
    const top = item.offsetTop, bottom = top + item.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
  }
  async function forward() {
    const s = await step(k);
    if (f + 1 < framesOf(s, k).length) return go(k, f + 1);
    if (k + 1 < index.count) return go(k + 1, 0);
    stop();
  }
  async function backward() {
    if (f > 0) return go(k, f - 1);
    if (k > 0) return go(k - 1, -1);
  }
  function stop() { if (timer) { clearTimeout(timer); timer = null; } $("play").textContent = "▶ Play"; root.dataset.playing = ""; }
  function tick() { timer = setTimeout(async () => { if (!timer) return; await forward(); if (timer) tick(); }, 1000 / speed()); }
  function play() { if (timer) return stop(); $("play").textContent = "Pause"; root.dataset.playing = "1"; tick(); }

  $("first").onclick = () => { stop(); go(0, 0); };
  $("prevd").onclick = () => { stop(); go(k - 1, 0); };
  $("prev").onclick = () => { stop(); backward(); };
  $("play").onclick = play;
  $("next").onclick = () => { stop(); forward(); };
  $("nextd").onclick = () => { stop(); go(k + 1, 0); };
  $("last").onclick = () => { stop(); go(index.count - 1, -1); };
  $("seek").addEventListener("input", e => { stop(); go(Number(e.target.value), 0); });
  $("as-seat").addEventListener("change", () => go(k, f));
  const speeds = [...$("speed").options].map(o => o.value);
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.target.tagName === "SELECT") return;
    const keys = {
      ArrowLeft: () => e.shiftKey ? go(k - 1, 0) : backward(), ArrowRight: () => e.shiftKey ? go(k + 1, 0) : forward(),
      PageUp: () => go(k - 1, 0), PageDown: () => go(k + 1, 0), Home: () => go(0, 0), End: () => go(index.count - 1, -1),
    };
    if (keys[e.key]) { e.preventDefault(); stop(); keys[e.key](); return; }
    if (e.key === " ") { e.preventDefault(); play(); return; }
    if (e.key === "+" || e.key === "-") {
      const at = speeds.indexOf($("speed").value) + (e.key === "+" ? 1 : -1);
      if (at >= 0 && at < speeds.length) $("speed").value = speeds[at];
    }
  });
  function fromHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    return [Number(h.get("k") || 0), Number(h.get("f") || 0)];
  }
  window.addEventListener("hashchange", () => { const [a, b] = fromHash(); go(a, b, true); });

  fetch(`/web/matches/${M}/replay/index.json`).then(r => r.json()).then(j => {
    index = j;
    [...$("as-seat").options].forEach(o => { if (o.value) o.textContent = seatName(o.value); });
    const ol = $("moves");
    j.steps.forEach(s => {
      const moves = bySeat(s.moves).map(([seat, t]) => `${seatName(seat)}: ${plainMove(t)}`).join("; ");
      const li = el("li", s.k === 0 ? "start" : `${s.label || "turn " + s.turn} — ${moves || "(no orders)"}`);
      li.dataset.k = s.k;
      li.onclick = () => { stop(); go(s.k, 0); };
      ol.append(li);
    });
    const [a, b] = fromHash();
    go(a, b, true);
    root.focus({preventScroll: true});
  });
})();
