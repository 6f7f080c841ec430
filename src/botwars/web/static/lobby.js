// The lobby: show the chosen game's form, create the match through POST /api/matches.
"use strict";
(function () {
  const game = document.getElementById("game");
  const forms = document.querySelectorAll(".game-form");
  function show() {
    forms.forEach(f => { f.hidden = f.dataset.game !== game.value; });
  }
  game.addEventListener("change", show);
  show();
  document.getElementById("new-match").addEventListener("submit", async ev => {
    ev.preventDefault();
    const err = document.getElementById("create-error");
    err.textContent = "";
    const f = document.querySelector(`.game-form[data-game="${game.value}"]`);
    const seats = [...f.querySelectorAll("select[name=seat]")].map(s => s.value).filter(v => v);
    const config = {};
    f.querySelectorAll("input[name=param]").forEach(i => { if (i.value.trim() !== "") config[i.dataset.name] = i.value.trim(); });
    const body = {game: game.value, seats, config, seed: Number(document.getElementById("seed").value || 0),
                  clock: document.getElementById("clock").checked};
    const r = await fetch("/api/matches", {method: "POST", headers: {"Content-Type": "application/json"},
                                           body: JSON.stringify(body)});
    const j = await r.json();
    if (!r.ok) { err.textContent = `${j.error}: ${j.message}`; return; }
    document.getElementById("match-id").textContent = j.match;
    const ul = document.getElementById("seat-links");
    ul.innerHTML = "";
    j.seats.forEach(s => {
      const li = document.createElement("li");
      if (s.agent !== "remote") { li.textContent = `${s.seat}: ${s.agent} (played by the server)`; ul.appendChild(li); return; }
      const a = document.createElement("a");
      a.href = `/play/${j.match}?token=${encodeURIComponent(s.token)}`;
      a.textContent = `${s.seat} (${s.agent})`;
      a.className = "seat-link";
      a.dataset.seat = s.seat;
      li.appendChild(a);
      ul.appendChild(li);
    });
    const sp = document.getElementById("spectator-link");
    sp.href = `/watch/${j.match}`;
    sp.textContent = `${location.origin}/watch/${j.match}`;
    document.getElementById("links").hidden = false;
  });
})();
