// The lobby: the chosen game's form, create the match (POST /api/matches), "My matches" from
// browser storage, and the running / finished lists refreshed every few seconds.
"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const game = $("game");
  const forms = document.querySelectorAll(".game-form");
  const MINE = "botwars:my-matches";
  function show() {
    forms.forEach(f => { f.hidden = f.dataset.game !== game.value; });
    $("rules-link").href = `/rules/${game.value}`;
    document.querySelectorAll(".howto-link").forEach(a => { a.hidden = a.dataset.howto !== game.value; });
  }
  game.addEventListener("change", show);
  show();
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) { if (k === "class") e.className = v; else if (k === "dataset") Object.assign(e.dataset, v); else e.setAttribute(k, v); }
    kids.forEach(k => e.append(k));
    return e;
  }
  const mine = () => { try { return JSON.parse(localStorage.getItem(MINE) || "[]"); } catch (e) { return []; } };
  function remember(items) {
    try { localStorage.setItem(MINE, JSON.stringify([...items, ...mine()].slice(0, 40))); } catch (e) { /* storage off */ }
  }
  const who = a => a === "remote" ? "a person" : String(a).replace("builtin:", "bot ");
  const seatWho = s => s.name ? s.name : who(s.agent);

  // file parameters: an uploaded file's text becomes the value (a board, map or room set)
  document.querySelectorAll("input[data-upload]").forEach(inp => inp.addEventListener("change", async () => {
    const f = inp.files[0];
    if (!f) return;
    const target = inp.closest(".game-form").querySelector(`[name=param][data-name="${inp.dataset.upload}"]`);
    const text = await f.text();
    if (target.tagName === "SELECT") {
      const o = el("option", {value: text}, `uploaded: ${f.name}`);
      target.append(o); target.value = text;
    } else target.value = text;
  }));

  $("new-match").addEventListener("submit", async ev => {
    ev.preventDefault();
    const err = $("create-error");
    err.textContent = "";
    const f = document.querySelector(`.game-form[data-game="${game.value}"]`);
    const chosen = [...f.querySelectorAll("select[name=seat]")].map((s, i) => [s.value, i]).filter(([v]) => v);
    const picks = chosen.map(([v]) => v);
    const nameInputs = [...f.querySelectorAll("input[name=seat-name]")];
    const names = chosen.map(([, i]) => (nameInputs[i] && nameInputs[i].value.trim()) || null);
    const seats = picks.map(v => v === "me" || v === "friend" ? "remote" : v);
    const config = {};
    f.querySelectorAll("[name=param]").forEach(i => {
      const v = i.value.trim();
      const dflt = i.tagName === "SELECT" ? i.querySelector("option[selected]") : null;
      if (v !== "" && !(dflt && dflt.value === i.value)) config[i.dataset.name] = v;
    });
    const preset = $("clock-preset").value;
    const body = {game: game.value, seats, config, clock: preset !== "off"};
    if (["blitz", "daily", "pbem"].includes(preset)) body.clock_preset = preset;
    if (names.some(n => n)) body.names = names;
    // an empty seed field: the server draws a secret one (a seed the players know reveals every deal)
    if ($("seed").value.trim() !== "") body.seed = Number($("seed").value);
    const r = await fetch("/api/matches", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const j = await r.json();
    if (!r.ok) { err.textContent = `Could not create the match: ${j.message}`; return; }
    $("match-id").textContent = j.match;
    const ul = $("seat-links");
    ul.innerHTML = "";
    const mineNow = [];
    j.seats.forEach((s, i) => {
      const li = el("li", {});
      if (s.agent !== "remote") { li.append(`Seat ${s.seat}: ${who(s.agent)} (played by the server)`); ul.append(li); return; }
      const named = s.name ? ` — ${s.name}` : "";
      const url = `/play/${j.match}?token=${encodeURIComponent(s.token)}`;
      const a = el("a", {href: url, class: "seat-link", dataset: {seat: s.seat, who: picks[i]}}, picks[i] === "me" ? `Open your seat (${s.seat})${named}` : `Seat ${s.seat}${named}: a friend's link`);
      li.append(a);
      if (picks[i] === "friend") {
        const full = location.origin + url;
        li.append(" — send them this: ", el("input", {class: "copy", readonly: "readonly", value: full, "aria-label": `link for seat ${s.seat}`}),
          el("button", {type: "button", class: "copy-btn"}, "Copy"));
        li.querySelector(".copy-btn").addEventListener("click", () => { navigator.clipboard && navigator.clipboard.writeText(full); });
      } else mineNow.push({match: j.match, game: j.game, seat: s.seat, url, at: Date.now()});
      ul.append(li);
    });
    remember(mineNow);
    renderMine();
    // the game master's link: shown once (the server keeps only its hash)
    const gmBox = $("gm-link-box");
    if (gmBox && j.gm_url) {
      const gmPath = `/gm/${j.match}?token=${encodeURIComponent(j.gm_token)}`;
      gmBox.innerHTML = "";
      gmBox.append("Game master (pause, extend, replace, adjudicate, end): ", el("a", {href: gmPath, id: "gm-link"}, "open the game master's page"),
        " — shown only now: keep this link (bookmark it); it is the only way back to the game master's page.");
      gmBox.hidden = false;
    }
    const sp = $("spectator-link");
    sp.href = `/watch/${j.match}`;
    sp.textContent = `${location.origin}/watch/${j.match}`;
    $("links").hidden = false;
    refreshLists();
  });

  function renderMine() {
    const ul = $("my-matches"), items = mine();
    ul.innerHTML = "";
    if (!items.length) { ul.append(el("li", {}, "none yet")); return; }
    items.forEach((m, i) => {
      const li = el("li", {dataset: {match: m.match}}, `${m.game} · seat ${m.seat} · ${new Date(m.at).toLocaleString()} · `,
        el("a", {href: m.url, class: "resume"}, "resume"), " · ", el("a", {href: `/replay/${m.match}`}, "replay (when over)"), " ");
      const rm = el("button", {type: "button", "aria-label": `forget ${m.match}`}, "forget");
      rm.addEventListener("click", () => { const all = mine(); all.splice(i, 1); localStorage.setItem(MINE, JSON.stringify(all)); renderMine(); });
      li.append(rm);
      ul.append(li);
    });
  }
  renderMine();

  async function refreshLists() {
    try {
      const [run, end] = await Promise.all(["running", "ended"].map(s => fetch(`/api/matches?status=${s}&limit=50`).then(r => r.json())));
      const fill = (id, items, line) => {
        const ul = $(id);
        ul.innerHTML = "";
        if (!items.length) ul.append(el("li", {}, "none"));
        items.forEach(m => ul.append(line(m)));
      };
      fill("running", run, m => el("li", {dataset: {match: m.match}}, `${m.game} · turn ${m.turn} · ${m.seats.map(s => `${s.seat}: ${seatWho(s)}`).join(", ")} · `,
        el("a", {href: `/watch/${m.match}`}, "watch")));
      fill("ended", end, m => el("li", {dataset: {match: m.match}}, `${m.game} · ${m.turn} turns · ${m.outcome ? (m.outcome.winner ? `${m.outcome.winner} won` : "draw") : ""} · `,
        el("a", {href: `/replay/${m.match}`}, "replay")));
      $("live-note").textContent = `(updated ${new Date().toLocaleTimeString()})`;
    } catch (e) { $("live-note").textContent = "(could not update: server unreachable)"; }
  }
  setInterval(refreshLists, 5000);
})();
