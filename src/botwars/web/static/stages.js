// Turns stage by stage (issue 14 item 1): the stage table of a turn of a game with stages
// (window.botwarsStages.table, shared with the replay viewer) and, on seat and spectator pages,
// the last resolved turn as the game masters published it: the board after every sub-step
// that moved something, then the stage's table. Reads only /web/matches/ID/turn/N/stages.json
// with the page's own token, so a seat sees what it may see (e.g. only its own tables).
"use strict";
(function () {
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };

  function table(sec) {  // one section: its header, the §9 table (first row = column names), extra lines
    const wrap = el("div");
    wrap.append(el("h3", sec.heading || sec.header || sec.title));
    const t = el("table", undefined, "stage " + sec.kind);
    const rows = sec.rows || [];
    if (rows.length) {
      const hr = el("tr");
      rows[0].forEach(c => { const h = el("th", c); h.scope = "col"; hr.append(h); });
      const th = el("thead"); th.append(hr); t.append(th);
      const body = el("tbody");
      rows.slice(1).forEach(r => {
        const tr = el("tr");
        r.forEach((c, j) => tr.append(el("td", c, j === 0 && sec.kind !== "result" ? "label" : undefined)));
        body.append(tr);
      });
      t.append(body);
    }
    wrap.append(t);
    (sec.extra || []).forEach(x => wrap.append(el("p", x, "extra")));
    return wrap;
  }
  window.botwarsStages = {table};

  const page = document.getElementById("page");
  const box = document.getElementById("last-turn");
  if (!page || !box) return;  // the replay viewer only uses table()
  if (!page.dataset.stages) return;  // a game without stages: nothing to ask for (the server would answer 404)
  const M = page.dataset.match, TOKEN = page.dataset.token || "";
  const body = box.querySelector(".stages-body");
  let shown = 0, seq = 0;
  // On the seat and spectator pages a section is said in sentences when the game's kit can say it
  // (kit.sectionWords), the report table one click further under "Details" (issue 23 item 2).
  const kit = (window.botwarsGames || {})[page.dataset.game] || {};
  const SEC = {end: "End of turn", fused: "Locked registers", result: "Result"};
  // a picture's label in words on the play pages ("stage end" read as engine talk); "unchanged": a
  // register in which nothing moved (the board as it stood after the previous picture)
  const FRAME_WORDS = {start: "before the cards", cards: "cards played", "stage end": "register ends", unchanged: "nothing moved"};
  function words(sec) {
    const said = kit.sectionWords ? kit.sectionWords(sec) : null;
    if (!said) return table(sec);
    const wrap = el("div", undefined, "stage-words");
    wrap.append(el("h3", sec.kind === "stage" ? `Register ${sec.stage}` : (SEC[sec.kind] || sec.kind)));
    const ul = el("ul");
    (said.length ? said : ["Nothing happened."]).forEach(x => ul.append(el("li", x)));
    const det = el("details", undefined, "event-details");
    det.append(el("summary", "Details (the report table)"), table(sec));
    wrap.append(ul, det);
    return wrap;
  }

  function render(n, sections) {
    body.innerHTML = "";
    const frames = [];
    sections.forEach((sec, si) => sec.frames.forEach(fr => frames.push({sec: si, label: fr.label, caption: fr.caption, svg: fr.svg})));
    const t = sections.map(sec => sec.turn).find(x => typeof x === "number");
    box.querySelector("summary").textContent = `Last turn register by register${t ? ` (turn ${t})` : ""}`;
    const strip = el("div", undefined, "frames");
    strip.setAttribute("role", "toolbar");
    strip.setAttribute("aria-label", "pictures of the last turn");
    const pic = el("div", undefined, "board stage-board");
    const tables = el("div", undefined, "stage-box");
    function show(j) {
      const fr = frames[j];
      [...strip.querySelectorAll("button")].forEach((b, i) => b.setAttribute("aria-pressed", String(i === j)));
      pic.innerHTML = fr.svg || "";
      tables.innerHTML = "";
      tables.append(words(sections[fr.sec]));
      for (let s = fr.sec + 1; s < sections.length && !sections[s].frames.length; s++) tables.append(words(sections[s]));
      box.dataset.frame = j;
    }
    let last = -1;
    frames.forEach((fr, j) => {
      if (fr.sec !== last) {
        const sec = sections[fr.sec];
        strip.append(el("span", (sec.kind === "stage" ? (kit.sectionWords ? `Register ${sec.stage}` : `S${sec.stage}`) : (kit.sectionWords ? SEC[sec.kind] || sec.kind : sec.kind)) + ":", "sep"));
        last = fr.sec;
      }
      const b = el("button", kit.sectionWords ? FRAME_WORDS[fr.label] || fr.label : fr.label);
      b.type = "button";
      // a picture's button names its register or section and its step (audit: a button read only
      // "nothing moved", which register it was said nowhere but in the label before it)
      const sec = sections[fr.sec], where = sec.kind === "stage" ? `register ${sec.stage}` : (SEC[sec.kind] || sec.kind).toLowerCase();
      const still = fr.label === "unchanged" && kit.sectionWords;
      if (still) b.textContent = `${where}: nothing moved`;
      b.setAttribute("aria-label", still ? `${where}: nothing moved; the board as it stood after the previous picture` : `${where}: ${fr.caption || b.textContent}`);
      if (fr.caption && !still) b.title = fr.caption;
      b.onclick = () => show(j);
      strip.append(b);
    });
    if (!frames.length) {  // sections without pictures (a seat that may not see the board)
      sections.forEach(sec => tables.append(words(sec)));
      body.append(tables);
      return;
    }
    body.append(strip, pic, tables);
    show(0);
  }

  async function load(n) {
    const my = ++seq;
    const q = TOKEN ? `&token=${encodeURIComponent(TOKEN)}` : "";
    let r;
    try { r = await fetch(`/web/matches/${M}/turn/${n}/stages.json?inline=1${q}`); } catch (e) { return; }
    if (my !== seq) return;
    if (r.status === 404) { box.hidden = true; return; }  // a game without stages, or nothing resolved yet
    if (!r.ok) return;
    const j = await r.json();
    if (my !== seq || !j.sections || !j.sections.length) return;
    box.hidden = false;
    render(n, j.sections);
  }

  function check() {
    const d = Number(page.dataset.decision || 0);
    const ended = !document.getElementById("outcome").hidden;
    const n = ended ? d : d - 1;  // once over, the decision number is the last point's own
    if (n >= 1 && n !== shown) { shown = n; load(n); }
  }
  new MutationObserver(check).observe(page, {attributes: true, attributeFilter: ["data-decision"]});
  new MutationObserver(check).observe(document.getElementById("outcome"), {attributes: true, attributeFilter: ["hidden"]});
  check();
})();
