// Past-turn pages and the whole-game document (turn.html): each point's events in the game's own
// sentences (the seat page's kit: /web/games/GAME/entry.js), above the game master's tables,
// which stay one click away (issue 23 item 2: no engine tables by default). An event the kit does
// not put in words is left to the tables; a point with no sentence at all opens them.
"use strict";
(function () {
  const root = document.getElementById("archive");
  if (!root) return;
  const GAME = root.dataset.game, SEAT = root.dataset.seat || null;
  const KIT = (window.botwarsGames || {})[GAME] || {};
  const PALETTE = JSON.parse(root.dataset.palette || "{}");
  const seatInfo = window.botwarsSeatsOf(KIT, PALETTE);  // static/seats.js
  const el = (tag, attrs, ...kids) => { const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    kids.forEach(k => k !== null && k !== undefined && e.append(k)); return e; };
  const ui = {seat: SEAT, seatName: s => seatInfo(s).name, seatInfo, el};
  // a game without a drawn legend: the seat page's own legend, in words (a past-turn page said
  // only "the seat and spectator pages explain the board's pieces")
  const card = document.getElementById("legend");
  if (card && !card.querySelector(".legend-svg") && (KIT.legend || []).length) {
    const dl = el("dl", {class: "legend"});
    KIT.legend.forEach(([a, b]) => dl.append(el("dt", {}, a), el("dd", {}, b)));
    card.querySelector("h2").after(dl);
    card.querySelectorAll(".legend-elsewhere").forEach(x => x.remove());
  }
  document.querySelectorAll(".point-words").forEach(box => {
    let events = [];
    try { events = JSON.parse(box.dataset.events || "[]"); } catch (e) { events = []; }
    const lines = [];
    for (const e of events) {
      let t;
      try { t = KIT.describe ? KIT.describe(e, ui) : undefined; } catch (err) { t = undefined; }
      if (typeof t === "string" && t) lines.push(t);
    }
    lines.forEach(t => box.append(el("li", {}, t)));
    if (!lines.length) {
      box.hidden = true;
      box.closest(".archive-point").querySelectorAll("details.gm-table, details.gm-report").forEach(d => { d.open = true; });
    }
  });
})();
