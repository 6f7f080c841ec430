// The game master's page: every seat with its state and the GM's actions (issue 24 item 1).
// Reads GET /api/matches/{id}/gm and posts /api/matches/{id}/gm/ACTION with the GM token
// (Authorization: Bearer). Every answer is shown in words; a refusal shows the server's sentence.
"use strict";
(function () {
  const root = document.getElementById("gm");
  const M = root.dataset.match, TOKEN = root.dataset.token;
  const $ = id => document.getElementById(id);
  const auth = {"Authorization": `Bearer ${TOKEN}`};
  let last = null;

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(e.dataset, v); else e.setAttribute(k, v);
    }
    kids.forEach(k => e.append(k));
    return e;
  }
  function say(text, bad) {
    const m = $("gm-msg");
    m.textContent = text;
    m.classList.toggle("error", !!bad);
    m.classList.toggle("ok", !bad);
  }
  function span(s) {
    if (s === null || s === undefined) return "no clock";
    s = Math.max(0, Math.round(s));
    const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), mi = Math.floor(s % 3600 / 60), se = s % 60;
    if (d) return `${d} d ${h} h`;
    if (h) return `${h} h ${mi} min`;
    if (mi) return `${mi} min ${se} s`;
    return `${se} s`;
  }
  function seen(t) {
    if (!t) return "not since the server started";
    const ago = Date.now() / 1000 - t;
    return ago < 60 ? "just now" : `${span(ago)} ago`;
  }
  const reason = () => $("gm-reason").value.trim();
  // a seat as the players' pages name it: "Ana (Red, p1)", or "Red (p1)" before it has a name
  const label = s => s.name ? `${s.name} (${s.colour}, ${s.seat})` : `${s.colour} (${s.seat})`;
  const labelOf = seat => { const s = last && last.seats.find(x => x.seat === seat); return s ? label(s) : seat; };

  async function act(action, body, done) {
    say("Sending…", false);
    const r = await fetch(`/api/matches/${M}/gm/${action}`, {method: "POST",
      headers: {...auth, "Content-Type": "application/json"}, body: JSON.stringify({reason: reason(), ...body})});
    let j = {};
    try { j = await r.json(); } catch (e) { j = {message: `the server answered ${r.status}`}; }
    if (!r.ok) { say(`Refused: ${j.message}`, true); return null; }
    say(`Done. ${j.text}`, false);
    $("gm-reason").value = "";  // a reason belongs to one action: the next one must not carry it silently
    if (done) done(j);
    await load();
    return j;
  }

  function seatRow(s, v) {
    const bot = s.agent.startsWith("builtin:") ? s.agent.slice(8) : null;
    const turn = v.status === "ended" ? "–" : s.submitted ? (s.adjudicated ? "orders set by you" : "submitted")
      : s.awaited ? "awaited" : "nothing to give";
    const left = s.awaited ? span(s.time_left_s) + (s.extended_s ? ` (extended by ${span(s.extended_s)})` : "") : "–";
    const acts = el("div", {class: "row"});
    if (v.status !== "ended") {
      const hours = el("input", {type: "number", min: "0.01", step: "any", value: "24", size: "4", "aria-label": `hours to add for seat ${s.seat}`});
      acts.append(el("label", {}, "+", hours, " h"),
        el("button", {type: "button", class: "gm-extend", dataset: {seat: s.seat}, disabled: !s.awaited || null,
          onclick: () => act("extend", {seat: s.seat, seconds: Number(hours.value) * 3600})}, "Extend"));
      if (bot) {
        acts.append(el("button", {type: "button", class: "gm-back", dataset: {seat: s.seat},
          onclick: () => act("replace", {seat: s.seat, to: "remote"})}, "Give back to its player"));
      } else {
        const pick = el("select", {"aria-label": `built-in bot for seat ${s.seat}`}, ...v.bots.map(b => el("option", {value: b}, b)));
        acts.append(pick, el("button", {type: "button", class: "gm-to-bot", dataset: {seat: s.seat},
          onclick: () => act("replace", {seat: s.seat, to: `builtin:${pick.value}`})}, "Hand to bot"));
      }
      acts.append(el("button", {type: "button", class: "gm-set-orders", dataset: {seat: s.seat}, disabled: !(s.awaited || s.submitted) || null,
      onclick: () => { $("gm-adj-seat").value = s.seat; openSeat(s.seat); $("gm-adjudicate-card").scrollIntoView(); }}, "Set orders"));
    acts.append(el("button", {type: "button", class: "gm-new-link", dataset: {seat: s.seat},
        onclick: () => {
          if (!confirm(`Give seat ${label(s)} a new link? Its old link stops working.`)) return;
          act("replace", {seat: s.seat, to: "remote", new_token: true}, j => {
            const full = j.url;
            $("gm-msg").append(" New link for the player (shown once): ", el("input", {class: "copy", readonly: "readonly", value: full, size: 50, "aria-label": `new link for seat ${s.seat}`}));
          });
        }}, "New link"));
    }
    return el("tr", {dataset: {seat: s.seat}}, el("th", {}, label(s)), el("td", {}, bot ? `built-in bot ${bot}` : "a player"),
      el("td", {class: "gm-turn"}, turn), el("td", {}, left), el("td", {}, seen(s.last_seen)), el("td", {}, acts));
  }

  function render(v) {
    last = v;
    root.dataset.status = v.status;
    root.dataset.paused = String(v.paused);
    const st = $("gm-state");
    if (v.status === "ended") {
      const o = v.outcome || {};
      st.textContent = `The match has ended: ${o.winner ? labelOf(o.winner) + " won" : "no winner"}` + (o.details && o.details.note ? ` (${o.details.note}).` : ".");
    } else st.textContent = `${v.setup ? "Setup" : `Turn ${v.turn + 1}`} · ` +
      (v.paused ? "paused: every clock stands still." : "running.");
    // the archive (issue 24 item 7): past turns once one is played; the whole game after the end
    $("gm-turns-line").hidden = !(v.decision > 1 || v.status === "ended");
    $("gm-document").hidden = v.status !== "ended";
    $("gm-archive").hidden = $("gm-turns-line").hidden && $("gm-document").hidden;
    $("gm-pause").disabled = v.status === "ended" || v.paused;
    $("gm-resume").disabled = v.status === "ended" || !v.paused;
    $("gm-extend-all").disabled = v.status === "ended";
    for (const id of ["gm-adjudicate", "gm-cancel", "gm-end", "gm-abort"]) $(id).disabled = v.status === "ended";
    const tb = $("gm-seats");
    // the table is drawn again on every refresh (5 s): a GM's half-made choice (hours, a bot) stays
    const kept = {};
    tb.querySelectorAll("tr[data-seat]").forEach(tr => { kept[tr.dataset.seat] = [...tr.querySelectorAll("input, select")].map(x => x.value); });
    tb.innerHTML = "";
    v.seats.forEach(s => {
      const row = seatRow(s, v), k = kept[s.seat], xs = [...row.querySelectorAll("input, select")];
      if (k && k.length === xs.length) xs.forEach((x, i) => { if (x.tagName !== "SELECT" || [...x.options].some(o => o.value === k[i])) x.value = k[i]; });
      tb.append(row);
    });
    const adj = $("gm-adj-seat"), keep = adj.value;
    adj.innerHTML = "";
    v.seats.forEach(s => adj.append(el("option", {value: s.seat}, label(s))));
    if (keep) adj.value = keep;
    if (!$("gm-seat-frame").dataset.seat && v.status !== "ended") openSeat(adj.value);
    if (v.status === "ended") $("gm-seat-frame").hidden = true;  // nothing to set once the match is over
    const win = $("gm-winner"), wkeep = win.value;
    win.innerHTML = "";
    win.append(el("option", {value: ""}, "a draw"), ...v.seats.map(s => el("option", {value: s.seat}, `${label(s)} wins`)));
    win.value = wkeep;
    const notes = $("gm-notes");
    notes.innerHTML = "";
    if (!v.notes.length) notes.append(el("li", {class: "hint"}, "Nothing yet."));
    [...v.notes].reverse().forEach(n => notes.append(el("li", {}, `${new Date(n.at * 1000).toLocaleString()}: ${n.text}`)));
  }

  async function load() {
    const r = await fetch(`/api/matches/${M}/gm`, {headers: auth});
    const j = await r.json();
    if (!r.ok) { say(j.message, true); return; }
    render(j);
  }

  // the seat's own order controls (its page kit, in the game master's mode: /gm/ID/seat/SEAT)
  function openSeat(seat) {
    const f = $("gm-seat-frame");
    if (!seat || f.dataset.seat === seat) return;
    f.dataset.seat = seat;
    f.hidden = false;
    f.src = `/gm/${M}/seat/${encodeURIComponent(seat)}?token=${encodeURIComponent(TOKEN)}`;
  }
  $("gm-adj-seat").addEventListener("change", () => openSeat($("gm-adj-seat").value));
  window.addEventListener("message", ev => { if (ev.origin === location.origin && ev.data && ev.data.botwarsGm) load(); });
  function needReason() {  // every GM action but an extension or a hand-over says why
    if (reason()) return true;
    say("Give a reason first (it is shown to the players).", true);
    $("gm-reason").focus();
    return false;
  }
  $("gm-pause").addEventListener("click", () => { if (needReason()) act("pause", {}); });
  $("gm-resume").addEventListener("click", () => { if (needReason()) act("resume", {}); });
  $("gm-extend-all").addEventListener("click", () => act("extend", {seconds: Number($("gm-all-hours").value) * 3600}));
  function orders() {
    const raw = $("gm-adj-orders").value.trim();
    try { return JSON.parse(raw); } catch (e) { return raw; }  // the game's text notation
  }
  $("gm-adjudicate").addEventListener("click", () => {
    if (!reason()) { say("Give a reason first (it is shown to the players).", true); $("gm-reason").focus(); return; }
    if (!$("gm-adj-orders").value.trim()) { say("Write the seat's orders first.", true); $("gm-adj-orders").focus(); return; }
    act("adjudicate", {seat: $("gm-adj-seat").value, orders: orders()});
  });
  $("gm-cancel").addEventListener("click", () => {
    if (!reason()) { say("Give a reason first (it is shown to the players).", true); $("gm-reason").focus(); return; }
    act("adjudicate", {seat: $("gm-adj-seat").value, cancel: true}, () => {
      const f = $("gm-seat-frame");  // the frame shows the seat again without the cancelled orders
      if (f.dataset.seat) f.src = f.src;
    });
  });
  $("gm-end").addEventListener("click", () => {
    if (!reason()) { say("Give a reason first (it is shown to the players).", true); $("gm-reason").focus(); return; }
    const w = $("gm-winner").value || null;
    if (!confirm(`End the match now (${w ? labelOf(w) + " wins" : "a draw"})? This cannot be undone.`)) return;
    act("end", {winner: w});
  });
  $("gm-abort").addEventListener("click", () => {
    if (!reason()) { say("Give a reason first (it is shown to the players).", true); $("gm-reason").focus(); return; }
    if (!confirm("Abort the match? There will be no result. This cannot be undone.")) return;
    act("abort", {});
  });
  load();
  setInterval(() => { if (!last || last.status !== "ended") load(); }, 5000);
})();
