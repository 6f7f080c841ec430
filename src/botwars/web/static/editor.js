// The board editor (issue 14 item 4): a palette from the game's editor spec, a grid of squares to
// click, the board text written as the game's format, and the game's own check run live through
// POST /web/editor/GAME/check (problems shown on their squares and in a list, ACCEPT/REJECT
// where the mode has an entry test, the game's SVG drawing as the preview). No game is named here.
"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const root = $("editor");
  const GAME = root.dataset.game;
  const SPEC = JSON.parse($("editor-spec").textContent);
  const S = {mode: null, rows: 8, cols: 8, cells: {}, starts: [], tool: null, seq: 0, play: null};

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "dataset") Object.assign(e.dataset, v); else e.setAttribute(k, v);
    }
    kids.forEach(k => e.append(k));
    return e;
  }
  const mode = () => SPEC.modes.find(m => m.id === S.mode);
  const key = (r, c) => `r${r}c${c}`;
  const tools = () => SPEC.tools.filter(t => !t.modes || t.modes.includes(S.mode));

  // ---- the model and its text -----------------------------------------------------------
  function blank(rows, cols) {
    S.rows = rows; S.cols = cols; S.cells = {};
    for (let r = 1; r <= rows; r++) for (let c = 1; c <= cols; c++) S.cells[key(r, c)] = {base: ".", items: []};
    const n = mode().starts;
    S.starts = n === 1 ? [[key(1, 1), "N"]] : [[key(1, 1), "N"], [key(1, cols), "N"]];
  }
  const token = cell => cell.base + (cell.items.length ? "/" + cell.items.join("") : "");
  function boardText() {
    const out = [`board: ${$("board-id").value.trim() || "my-board"}`];
    const name = $("board-name").value.trim();
    if (name) out.push(`name: ${name}`);
    out.push(`rows: ${S.rows}`, `cols: ${S.cols}`, "start: " + S.starts.map(([sq, f]) => `${sq} ${f}`).join(", "), "grid:");
    const toks = Object.values(S.cells).map(token);
    const w = Math.max(6, ...toks.map(t => t.length)) + 1;
    const lw = `r${S.rows}`.length + 3;
    let head = "#".padEnd(lw);
    for (let c = 1; c <= S.cols; c++) head += `c${c}`.padEnd(w);
    out.push(head.trimEnd());
    for (let r = S.rows; r >= 1; r--) {
      let line = `r${r}`.padEnd(lw);
      for (let c = 1; c <= S.cols; c++) line += token(S.cells[key(r, c)]).padEnd(w);
      out.push(line.trimEnd());
    }
    out.push("end");
    return out.join("\n") + "\n";
  }
  function fromBoard(b) {  // the parsed grid the checker returns
    S.rows = b.rows; S.cols = b.cols; S.cells = {};
    b.cells.forEach((row, i) => row.forEach((tok, j) => {
      const [base, sides] = tok.split("/");
      S.cells[key(b.rows - i, j + 1)] = {base, items: sides ? sides.match(/[a-z][NESW][^a-z]*/g) || [] : []};
    }));
    S.starts = b.starts.map(s => [s[0], s[1]]);
    $("board-id").value = b.id;
    $("board-name").value = b.name || "";
    $("rows").value = b.rows; $("cols").value = b.cols;
  }

  // ---- the palette ----------------------------------------------------------------------
  function renderModes() {
    const sel = $("mode");
    sel.innerHTML = "";
    SPEC.modes.forEach(m => sel.append(el("option", {value: m.id}, m.label)));
    $("mode-label").hidden = SPEC.modes.length < 2;
    sel.value = S.mode;
  }
  function renderTools() {
    const box = $("tools");
    box.innerHTML = "";
    let group = null, row = null;
    tools().forEach(t => {
      if (t.group !== group) { group = t.group; row = el("div", {class: "tool-group"}, el("span", {class: "group"}, group)); box.append(row); }
      const b = el("button", {type: "button", class: "tool", dataset: {tool: t.id}, title: t.doc, "aria-pressed": "false"}, t.label);
      b.addEventListener("click", () => pick(t.id));
      row.append(b);
    });
    pick(tools()[0].id);
  }
  function pick(id) {
    S.tool = tools().find(t => t.id === id);
    document.querySelectorAll("#tools .tool").forEach(b => b.setAttribute("aria-pressed", String(b.dataset.tool === id)));
    const box = $("tool-params");
    box.innerHTML = "";
    S.tool.params.forEach(p => {
      let input;
      if (p.choices) {
        input = el("select", {dataset: {param: p.name}, "aria-label": p.label});
        p.choices.forEach((c, i) => input.append(el("option", {value: c}, p.labels ? p.labels[i] : c)));
      } else input = el("input", {dataset: {param: p.name}, "aria-label": p.label, pattern: p.pattern, value: "1", size: 6});
      box.append(el("label", {}, p.label + " ", input));
    });
    $("side-box").hidden = S.tool.place !== "item";
    $("start-box").hidden = S.tool.place !== "start";
    $("tool-error").textContent = "";
  }
  function filled() {  // the tool's token with its fields, or throws naming the bad one
    let t = S.tool.template;
    for (const p of S.tool.params) {
      const v = root.querySelector(`#tool-params [data-param="${p.name}"]`).value.trim();
      if (p.pattern && !new RegExp(`^(?:${p.pattern})$`).test(v)) throw new Error(`${p.label}: "${v}" is not ${p.pattern}`);
      t = t.replace(`{${p.name}}`, v);
    }
    return t.replace("{side}", root.querySelector("input[name=side]:checked").value);
  }

  // ---- placing --------------------------------------------------------------------------
  function place(sq) {
    const cell = S.cells[sq], t = S.tool;
    $("tool-error").textContent = "";
    try {
      if (t.place === "erase") { cell.base = "."; cell.items = []; }
      else if (t.place === "start") {
        const which = Number($("start-which").value || 0);
        S.starts[which] = [sq, $("facing").value];
      } else if (t.place === "base") cell.base = filled();
      else if (t.place === "item") {
        const tok = filled(), group = "wf".includes(tok[0]) ? "wf" : "plbe";
        const had = cell.items.find(i => group.includes(i[0]) && i[1] === tok[1]);
        cell.items = cell.items.filter(i => i !== had);
        if (had !== tok) cell.items.push(tok);  // the same item again takes it away
      }
    } catch (e) { $("tool-error").textContent = e.message; return; }
    changed();
  }

  // ---- the grid -------------------------------------------------------------------------
  function renderGrid() {
    const g = $("grid");
    g.innerHTML = "";
    g.style.gridTemplateColumns = `repeat(${S.cols}, minmax(2.6rem, 1fr))`;
    const starts = {};
    S.starts.forEach(([sq, f], i) => { starts[sq] = (S.starts.length > 1 ? "AB"[i] : "S") + f; });
    for (let r = S.rows; r >= 1; r--) for (let c = 1; c <= S.cols; c++) {
      const sq = key(r, c), cell = S.cells[sq];
      const b = el("button", {type: "button", class: "sq", role: "gridcell", dataset: {square: sq, base: cell.base.slice(0, 2)},
        title: `${sq}: ${token(cell)}`, "aria-label": `${sq} ${token(cell)}`}, el("span", {class: "tok"}, cell.base));
      cell.items.forEach(i => {
        if ("wf".includes(i[0])) b.classList.add(`${i[0]}${i[1]}`);
        else b.append(el("span", {class: `mount m${i[1]}`}, i));
      });
      if (starts[sq]) b.append(el("span", {class: "start"}, starts[sq]));
      b.addEventListener("click", () => place(sq));
      g.append(b);
    }
  }
  function changed() {
    renderGrid();
    $("text").value = boardText();
    schedule();
  }

  // ---- the live check -------------------------------------------------------------------
  let timer = null;
  function schedule() { clearTimeout(timer); timer = setTimeout(() => check($("text").value, false), 120); }
  async function check(text, load) {
    const seq = ++S.seq;
    $("status").textContent = "checking…";
    let r, j;
    try {
      r = await fetch(`/web/editor/${GAME}/check`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({text, mode: S.mode})});
      j = await r.json();
    } catch (e) { $("status").textContent = "could not reach the server"; return; }
    if (seq !== S.seq) return;  // a newer check is under way
    if (!r.ok) { show({problems: [{square: null, message: j.message}], verdict: null, svg: null, play: null}); return; }
    if (load && j.board) { fromBoard(j.board); renderGrid(); $("text").value = text; }
    show(j);
  }
  function show(j) {
    root.dataset.checked = String(S.seq);
    $("status").textContent = j.problems.length ? `${j.problems.length} problem(s)` : "no problems";
    const v = $("verdict");
    v.textContent = j.verdict || "";
    v.className = "verdict " + (j.verdict === "ACCEPT" ? "ok" : j.verdict ? "bad" : "");
    document.querySelectorAll("#grid .sq").forEach(b => {
      b.classList.remove("bad"); b.removeAttribute("data-problem");
      b.querySelectorAll(".mark").forEach(m => m.remove());
    });
    const ul = $("problems");
    ul.innerHTML = "";
    if (!j.problems.length) ul.append(el("li", {class: "none"}, "none"));
    j.problems.forEach(p => {
      const li = el("li", {dataset: {square: p.square || ""}}, p.square ? el("strong", {}, p.square + ": ") : "", p.message);
      const b = p.square && root.querySelector(`#grid .sq[data-square="${p.square}"]`);
      if (b) {
        b.classList.add("bad");
        b.dataset.problem = (b.dataset.problem ? b.dataset.problem + "\n" : "") + p.message;
        b.title = `${b.title}\n${p.message}`;
        if (!b.querySelector(".mark")) b.append(el("span", {class: "mark", "aria-hidden": "true"}, "!"));
        li.addEventListener("click", () => b.focus());
      }
      ul.append(li);
    });
    $("preview").innerHTML = j.svg || "<p class='hint'>no preview: the text is not a board yet</p>";
    S.play = j.play;
    $("play").disabled = !j.play;
    fillOpponents();
  }

  // ---- load, save, play -----------------------------------------------------------------
  $("load-text").addEventListener("click", () => check($("text").value, true));
  $("load-file").addEventListener("change", async ev => {
    const f = ev.target.files[0];
    if (!f) return;
    const text = await f.text();
    $("text").value = text;
    check(text, true);
  });
  $("save").addEventListener("click", () => {
    const blob = new Blob([boardText()], {type: "text/plain"});
    const a = el("a", {href: URL.createObjectURL(blob), download: `${$("board-id").value.trim() || "board"}.board`});
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  });
  let games = null;
  async function fillOpponents() {
    const want = S.play ? S.play.game : null;
    const sel = $("opponent");
    if (!want || sel.dataset.game === want) return;
    if (!games) { try { games = await (await fetch("/api/games")).json(); } catch (e) { return; } }
    const g = (Array.isArray(games) ? games : games.games || []).find(x => x.id === want);
    sel.innerHTML = "";
    sel.dataset.game = want;
    sel.append(el("option", {value: ""}, "nobody (play alone)"));
    (g ? g.bots : []).forEach((b, i) => sel.append(el("option", {value: `builtin:${b}`}, `bot ${b}`)));
    if (g && g.bots.length) sel.value = `builtin:${g.bots[0]}`;
  }
  $("play").addEventListener("click", async () => {
    if (!S.play) return;
    $("play-error").textContent = "";
    const seats = ["remote"];
    if ($("opponent").value) seats.push($("opponent").value);
    // the server draws the seed; the clock is the lobby's presets (issue 24 item 6)
    const preset = $("clock-preset").value;
    const body = {game: S.play.game, seats, config: S.play.config, clock: preset !== "off"};
    if (["blitz", "daily", "pbem"].includes(preset)) body.clock_preset = preset;
    const r = await fetch("/api/matches", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const j = await r.json();
    if (!r.ok) { $("play-error").textContent = `Could not create the match: ${j.message}`; return; }
    const url = `/play/${j.match}?token=${encodeURIComponent(j.seats[0].token)}`;
    $("play-links").innerHTML = "";
    $("play-links").append("Match ready: ", el("a", {href: url, id: "play-link"}, "open your seat"));
    location.href = url;
  });

  // ---- modes and sizes ------------------------------------------------------------------
  function newBoard() {
    const m = mode();
    const clamp = (v, [lo, hi]) => Math.min(hi, Math.max(lo, Number(v) || lo));
    blank(clamp($("rows").value, m.rows), clamp($("cols").value, m.cols));
    $("rows").value = S.rows; $("cols").value = S.cols;
    changed();
  }
  function setMode(id) {
    S.mode = id;
    const m = mode();
    [["rows", m.rows], ["cols", m.cols]].forEach(([f, [lo, hi]]) => { $(f).min = lo; $(f).max = hi; });
    $("rows").value = m.size[0]; $("cols").value = m.size[1];
    const which = $("start-which");
    which.innerHTML = "";
    for (let i = 0; i < m.starts; i++) which.append(el("option", {value: i}, m.starts > 1 ? "AB"[i] : "the robots"));
    $("start-which-label").hidden = m.starts < 2;
    $("verdict").hidden = !m.verdict;
    renderTools();
    newBoard();
  }
  $("mode").addEventListener("change", ev => setMode(ev.target.value));
  $("new-board").addEventListener("click", newBoard);
  ["board-id", "board-name"].forEach(id => $(id).addEventListener("input", () => { $("text").value = boardText(); schedule(); }));
  S.mode = SPEC.modes[0].id;
  renderModes();
  setMode(S.mode);
})();
