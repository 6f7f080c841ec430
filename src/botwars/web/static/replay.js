// Replay viewer: step and seek through an ended match (buttons, slider, arrow keys, Home/End);
// the events in words from the game's kit (entry.js), the board as any seat saw it.
"use strict";
(function () {
  const root = document.getElementById("replay");
  const M = root.dataset.match, KIT = (window.botwarsGames || {})[root.dataset.game] || {};
  const $ = id => document.getElementById(id);
  const seatName = s => { const i = (KIT.seats || {})[s]; return i ? (i.name.toLowerCase() === String(s).toLowerCase() ? i.name : `${i.name} (${s})`) : s; };
  const ui = {seatName};
  let steps = [], k = 0;
  function words(e) {
    const flat = Object.assign({kind: e.type || e.kind}, e.data || e);
    const t = KIT.describe ? KIT.describe(flat, ui) : undefined;
    if (t === null) return null;
    return t || `${String(flat.kind).replace(/_/g, " ")}: ${JSON.stringify(e.data || e)}`;
  }
  async function go(i) {
    if (!steps.length) return;
    k = Math.max(0, Math.min(steps.length - 1, i));
    const s = steps[k];
    root.dataset.k = k;
    $("pos").textContent = k === 0 ? `start (0 / ${steps.length - 1})` : `decision point ${s.n} · ${s.label} (${k} / ${steps.length - 1})`;
    $("seek").value = k;
    $("orders").textContent = k === 0 ? "" : Object.entries(s.orders).map(([seat, o]) => `${seatName(seat)}: ${JSON.stringify(o)}`).join("\n");
    $("report").innerHTML = s.report || "<p>No report for this step.</p>";
    const ol = $("events"), hp = $("happened");
    ol.innerHTML = ""; hp.innerHTML = "";
    const ul = document.createElement("ul");
    ul.className = "happened";
    s.events.forEach(e => {
      const li = document.createElement("li"); li.textContent = JSON.stringify(e); ol.append(li);
      const w = words(e);
      if (w) { const x = document.createElement("li"); x.textContent = w; ul.append(x); }
    });
    if (!ul.children.length) { const x = document.createElement("li"); x.textContent = k === 0 ? "The start position." : "Nothing to show."; ul.append(x); }
    hp.append(ul);
    const seat = $("as-seat").value;
    const r = await fetch(`/web/matches/${M}/replay/${k}.svg${seat ? `?seat=${encodeURIComponent(seat)}` : ""}`);
    if (r.ok && Number(root.dataset.k) === k) $("board").innerHTML = await r.text();
  }
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(k - 1);
  $("next").onclick = () => go(k + 1);
  $("last").onclick = () => go(steps.length - 1);
  $("seek").addEventListener("input", e => go(Number(e.target.value)));
  $("as-seat").addEventListener("change", () => go(k));
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.target.tagName === "SELECT") return;
    const to = {ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: steps.length - 1}[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  fetch(`/web/matches/${M}/replay.json`).then(r => r.json()).then(j => {
    steps = j.steps;
    const sel = $("as-seat");
    [...sel.options].forEach(o => { if (o.value) o.textContent = seatName(o.value); });
    go(0); root.focus();
  });
})();
