// League pages (issue 15 item 4): upload form, challenge form, replace/retire form, waiting challenge page.
"use strict";
(function () {
  async function post(url, body, token, method) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    const r = await fetch(url, { method: method || "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.message || ("HTTP " + r.status));
    return data;
  }

  const up = document.getElementById("upload-form");
  if (up) {
    const file = document.getElementById("bot-file");
    const text = document.getElementById("bot-source");
    file.addEventListener("change", async () => { if (file.files[0]) text.value = await file.files[0].text(); });
    // only the kinds the chosen game takes (its option lists them in data-kinds: a kind a game adds)
    const game = document.getElementById("bot-game");
    const kind = document.getElementById("bot-kind");
    const kinds = () => {
      const ok = (game.selectedOptions[0].dataset.kinds || "").split(" ");
      for (const o of kind.options) o.disabled = !ok.includes(o.value);
      if (kind.selectedOptions[0].disabled) kind.value = ok[0];
    };
    game.addEventListener("change", kinds);
    kinds();
    up.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const err = document.getElementById("upload-error");
      err.textContent = "";
      const btn = document.getElementById("upload-btn");
      btn.disabled = true;
      try {
        const bot = await post("/api/league/bots", {
          name: document.getElementById("bot-name").value, game: document.getElementById("bot-game").value,
          kind: document.getElementById("bot-kind").value, source: text.value });
        const link = document.getElementById("bot-link");
        link.href = "/league/bots/" + bot.bot;
        link.textContent = bot.name;
        document.getElementById("bot-token").textContent = bot.token;
        document.getElementById("uploaded").hidden = false;
      } catch (e) { err.textContent = e.message; } finally { btn.disabled = false; }
    });
  }

  const ch = document.getElementById("challenge-form");
  if (ch) {
    ch.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const err = document.getElementById("challenge-error");
      err.textContent = "";
      try {
        const m = await post("/api/league/challenges", { bot: ch.dataset.bot,
          opponent: document.getElementById("opponent").value }, document.getElementById("owner-token").value);
        location.href = "/league/matches/" + m.match;
      } catch (e) { err.textContent = e.message; }
    });
  }

  const own = document.getElementById("owner-form");
  if (own) {
    const url = "/api/league/bots/" + own.dataset.bot;
    const err = document.getElementById("owner-error");
    const token = () => document.getElementById("owner-token-2").value;
    const file = document.getElementById("new-file");
    const text = document.getElementById("new-source");
    file.addEventListener("change", async () => { if (file.files[0]) text.value = await file.files[0].text(); });
    own.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      err.textContent = "";
      if (!text.value) { err.textContent = "choose or paste the new program first"; return; }
      try { await post(url, { source: text.value }, token(), "PUT"); location.reload(); }
      catch (e) { err.textContent = e.message; }
    });
    document.getElementById("retire-btn").addEventListener("click", async () => {
      err.textContent = "";
      if (!own.reportValidity() || !confirm("Retire this bot? It leaves the ladder for good.")) return;
      try { await post(url, undefined, token(), "DELETE"); location.reload(); }
      catch (e) { err.textContent = e.message; }
    });
  }

  const lm = document.getElementById("league-match");
  if (lm && lm.dataset.status === "queued") setTimeout(() => location.reload(), 2000);
})();
