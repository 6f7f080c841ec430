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
    $("rules-link").hidden = game.selectedOptions[0] && game.selectedOptions[0].dataset.rules === "0";  // no rules page
    document.querySelectorAll(".howto-link").forEach(a => { a.hidden = a.dataset.howto !== game.value; });
    clockWords();
  }
  // what the chosen clock means in the chosen game (each game turns a preset into its own clock)
  function clockWords() {
    const o = game.selectedOptions[0], words = o ? JSON.parse(o.dataset.clock || "{}") : {};
    const w = words[$("clock-preset").value];
    $("clock-words").textContent = w ? `In this game this clock gives ${w}.` : "";
    // the options the preset sets show its values, not the game's defaults it replaces
    const preset = $("clock-preset").value, off = preset === "off";
    const set = (o ? JSON.parse(o.dataset.clockParams || "{}") : {})[preset] || {};
    const typed = [];
    document.querySelectorAll(`.game-form[data-game="${game.value}"] input[name=param]`).forEach(i => {
      const mine = i.dataset.name in set;
      // without a clock its options are not used: say so and take no value (newcomer audit: "No
      // time limit" still showed a turn time of 432000)
      i.disabled = off && mine;
      i.placeholder = off && mine ? "not used without a clock" : mine ? `${set[i.dataset.name]} (the clock's)` : (i.dataset.default || "");
      if (mine && !off && i.value.trim() !== "") typed.push(`${i.dataset.label || i.dataset.name} ${i.value.trim()} (the clock's: ${set[i.dataset.name]})`);
    });
    // a value typed into an option the clock sets wins over the clock: say so beside the clock's words
    $("clock-typed").textContent = typed.length ? `Your own value replaces the clock's: ${typed.join("; ")}. Clear the field to use the clock's.` : "";
  }
  // a seat left out needs no name field: six of them made the phone lobby three screens long
  function seatNames() {
    document.querySelectorAll(".game-form select[name=seat]").forEach(sel => {
      const lab = sel.closest(".game-form").querySelector(`label.seat-name[data-index="${sel.dataset.index}"]`);
      if (lab) lab.hidden = sel.value === "";
    });
  }
  document.querySelectorAll(".game-form select[name=seat]").forEach(sel => sel.addEventListener("change", seatNames));
  seatNames();
  $("clock-preset").addEventListener("change", clockWords);
  document.querySelectorAll(".game-form input[name=param]").forEach(i => i.addEventListener("input", clockWords));
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
  // a link to copy: the clipboard where the browser allows it (a secure page), else the text is
  // selected and copied the old way; the button says what happened
  async function copyLink(input, btn) {
    let done = false;
    try { if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(input.value); done = true; } } catch (e) { done = false; }
    if (!done) { input.focus(); input.select(); try { done = document.execCommand("copy"); } catch (e) { done = false; } }
    btn.textContent = done ? "Copied" : "Select and copy it (Ctrl+C)";
    if (!done) { input.focus(); input.select(); }
    setTimeout(() => { btn.textContent = "Copy"; }, 3000);
  }
  function copyRow(value, label, id) {
    const inp = el("input", {class: "copy", readonly: "readonly", value, size: "50", "aria-label": label});
    if (id) inp.id = id;
    const btn = el("button", {type: "button", class: "copy-btn"}, "Copy");
    btn.addEventListener("click", () => copyLink(inp, btn));
    return [inp, btn];
  }
  const who = a => a === "remote" ? "a person" : String(a).replace("builtin:", "bot ");
  const seatWho = s => s.name ? s.name : who(s.agent);
  // a game and a seat as players call them: the game's name from the game menu ("Submarine
  // Warfare", not the game id), the winner by name or colour ("Ana", "Blue"; not "p2")
  const gameName = id => { const o = [...game.options].find(x => x.value === id); return o ? o.textContent : id; };
  const winnerWord = m => { const s = (m.seats || []).find(x => x.seat === m.outcome.winner); return s ? (s.name || s.colour || s.seat) : m.outcome.winner; };

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
      if (i.disabled) return;  // a clock option without a clock
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
    if (!r.ok) { err.textContent = `Could not create the match: ${fieldWords(f, j.message)}`; return; }
    $("match-id").textContent = j.match;
    const ul = $("seat-links");
    ul.innerHTML = "";
    const mineNow = [];
    j.seats.forEach((s, i) => {
      const li = el("li", {});
      const seatWord = s.colour || s.seat;  // "Red", never the engine's "p1" (issue 23)
      if (s.agent !== "remote") { li.append(`${seatWord}: ${who(s.agent)} (played by the server)`); ul.append(li); return; }
      const named = s.name ? ` — ${s.name}` : "";
      const url = `/play/${j.match}?token=${encodeURIComponent(s.token)}`;
      const a = el("a", {href: url, class: "seat-link", dataset: {seat: s.seat, who: picks[i]}}, picks[i] === "me" ? `Open your seat (${seatWord})${named}` : `${seatWord}${named}: a friend's link`);
      li.append(a);
      if (picks[i] === "friend") {
        const full = location.origin + url;
        li.append(" — send them this: ", ...copyRow(full, `link for ${seatWord}`));
      } else mineNow.push({match: j.match, game: j.game, seat: s.seat, colour: s.colour, url, at: Date.now()});
      ul.append(li);
    });
    // the game master's link: shown once (the server keeps only its hash), with a Copy button,
    // and kept in this browser's "My matches" (the match's creator is its game master)
    const gmBox = $("gm-link-box");
    if (gmBox && j.gm_token) {
      const gmPath = `/gm/${j.match}?token=${encodeURIComponent(j.gm_token)}`;
      gmBox.innerHTML = "";
      gmBox.append("Game master (pause, extend, replace, adjudicate, end): ", el("a", {href: gmPath, id: "gm-link"}, "open the game master's page"),
        " — shown only now by the server: keep it. This browser keeps it under “My matches”; copy it to keep it elsewhere: ",
        ...copyRow(location.origin + gmPath, "the game master's link", "gm-link-copy"));
      gmBox.hidden = false;
      mineNow.unshift({match: j.match, game: j.game, seat: null, gm: true, url: gmPath, at: Date.now()});
    }
    remember(mineNow);
    renderMine();
    const sp = $("spectator-link");
    sp.href = `/watch/${j.match}`;
    sp.textContent = `${location.origin}/watch/${j.match}`;
    $("links").hidden = false;
    refreshLists();
  });

  // a refusal names the option as its field does ("“Most turns”: must be at least 1, got -5"),
  // never the parameter's id ("config: parameter max_turns: …"), and marks and focuses the field
  function fieldWords(form, message) {
    form.querySelectorAll("[aria-invalid]").forEach(i => i.removeAttribute("aria-invalid"));
    const m = /^config: parameter ([A-Za-z0-9_]+):?\s*(.*)$/s.exec(String(message || ""));
    if (!m) return message;
    const field = form.querySelector(`[name=param][data-name="${m[1]}"]`);
    if (!field) return message;
    const label = field.dataset.label || (field.closest("label") ? field.closest("label").firstChild.textContent.trim() : m[1]);
    const opts = field.closest("details");
    if (opts) opts.open = true;
    field.setAttribute("aria-invalid", "true");
    field.focus();
    const said = m[2].replace(/^expected an integer(?: of at most (\d+) digits)?/, (_, d) => d ? `needs a whole number of at most ${d} digits` : "needs a whole number")
      .replace(/^expected a (finite )?number/, "needs a number").replace(/, got (.*)$/, " (you gave $1)");
    return `the option “${label}” ${said}. Change it (under Options) and try again.`;
  }
  function renderMine() {
    const ul = $("my-matches"), items = mine();
    ul.innerHTML = "";
    if (!items.length) { ul.append(el("li", {}, "none yet")); return; }
    items.forEach((m, i) => {
      const li = m.gm
        ? el("li", {dataset: {match: m.match, gm: "yes"}}, `${gameName(m.game)} · game master · ${new Date(m.at).toLocaleString()} · `,
            el("a", {href: m.url, class: "gm-resume"}, "the game master's page"), " · ", el("a", {href: `/replay/${m.match}`}, "replay (when over)"), " ")
        : el("li", {dataset: {match: m.match}}, `${gameName(m.game)} · ${m.colour || `seat ${m.seat}`} · ${new Date(m.at).toLocaleString()} · `,
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
      fill("running", run, m => el("li", {dataset: {match: m.match}}, `${gameName(m.game)} · turn ${m.turn} · ${m.seats.map(s => `${s.colour || s.seat}: ${seatWho(s)}`).join(", ")} · `,
        el("a", {href: `/watch/${m.match}`}, "watch")));
      fill("ended", end, m => el("li", {dataset: {match: m.match}}, `${gameName(m.game)} · ${m.turn} turns · ${m.outcome ? (m.outcome.winner ? `${winnerWord(m)} won` : "draw") : ""} · `,
        el("a", {href: `/replay/${m.match}`}, "replay")));
      $("live-note").textContent = `(updated ${new Date().toLocaleTimeString()})`;
    } catch (e) { $("live-note").textContent = "(could not update: server unreachable)"; }
  }
  setInterval(refreshLists, 5000);
})();
