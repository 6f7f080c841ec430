// Replay viewer: step and seek through an ended match (buttons, slider, arrow keys, Home/End).
"use strict";
(function () {
  const root = document.getElementById("replay");
  const M = root.dataset.match;
  const $ = id => document.getElementById(id);
  let steps = [], k = 0;
  async function go(i) {
    if (!steps.length) return;
    k = Math.max(0, Math.min(steps.length - 1, i));
    const s = steps[k];
    root.dataset.k = k;
    $("pos").textContent = k === 0 ? `start (0 / ${steps.length - 1})` : `decision ${s.n} · turn ${s.turn} (${k} / ${steps.length - 1})`;
    $("seek").value = k;
    $("orders").textContent = k === 0 ? "" : Object.entries(s.orders).map(([seat, o]) => `${seat}: ${JSON.stringify(o)}`).join("\n");
    $("report").innerHTML = s.report || "<p>No report for this step.</p>";
    const ol = $("events");
    ol.innerHTML = "";
    s.events.forEach(e => { const li = document.createElement("li"); li.textContent = JSON.stringify(e); ol.append(li); });
    const r = await fetch(`/web/matches/${M}/replay/${k}.svg`);
    if (r.ok && Number(root.dataset.k) === k) $("board").innerHTML = await r.text();
  }
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(k - 1);
  $("next").onclick = () => go(k + 1);
  $("last").onclick = () => go(steps.length - 1);
  $("seek").addEventListener("input", e => go(Number(e.target.value)));
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    const to = {ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: steps.length - 1}[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  fetch(`/web/matches/${M}/replay.json`).then(r => r.json()).then(j => { steps = j.steps; go(0); root.focus(); });
})();
