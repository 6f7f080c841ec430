// The dadoed seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the
// kit's shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  const COLS = "ABCDEFGH";
  const DIR = {N: [0, 1], E: [1, 0], S: [0, -1], W: [-1, 0]};
  // D-4.2 in words: [name, colour, what it does, condition]
  const CMD = {
    step: ["Step", "blue", "your bot walks 1 tile", "the first push is not blocked"],
    stride: ["Stride", "blue", "your bot walks 2 tiles", "the first push is not blocked"],
    dash: ["Dash", "blue", "your bot walks 3 tiles", "the first push is not blocked"],
    charge: ["Charge", "blue", "your bot walks 4 tiles", "the first push is not blocked"],
    north_3: ["March North", "blue", "your bot walks 3 tiles north", "the first push is not blocked"],
    south_3: ["March South", "blue", "your bot walks 3 tiles south", "the first push is not blocked"],
    east_3: ["March East", "blue", "your bot walks 3 tiles east", "the first push is not blocked"],
    west_3: ["March West", "blue", "your bot walks 3 tiles west", "the first push is not blocked"],
    spread_fire: ["Spread Fire", "gold", "a fire spreads to the next tile in a direction", "that tile is intact, without fire or boulder"],
    nudge_boulder: ["Nudge Boulder", "gold", "a boulder is pushed one tile (it may roll on)", "the push is not blocked"],
    root: ["Root", "red", "your bot becomes rooted (cannot be pushed)", "the bot is not rooted yet"],
    self_destruct: ["Self Destruct", "red", "your bot explodes, destroying what is around it", "none"],
    ignite: ["Ignite", "red", "your bot sets the next tile in a direction on fire", "that tile is intact and empty, without fire"],
    place_boulder: ["Place Boulder", "red", "a boulder appears on a tile (its fire goes out)", "the tile is intact, with no bot and no boulder"],
    douse: ["Douse", "red", "fires on and next to your bot go out", "a fire is on or next to the bot"],
    patch: ["Patch", "red", "a hole next to your bot becomes floor again", "the next tile is a hole"],
    drop_bot: ["Drop Bot", "green", "a bot from your reserve is placed on a tile", "the tile is intact and empty, without fire"],
  };
  // the command's colour in letters too (the coloured edge alone would not tell it)
  const colourTag = (el, c) => c ? el("span", {class: "cmdcol"}, ` · ${c}`) : null;
  const DIRNAME = {N: "north", E: "east", S: "south", W: "west"};
  const WALK = {step: 1, stride: 2, dash: 3, charge: 4, north_3: 3, south_3: 3, east_3: 3, west_3: 3};
  const REUSE = {blue: "blue and red copies are used up for good", red: "blue and red copies are used up for good",
                 gold: "gold copies come back once every gold copy has been used", green: "never runs out"};
  const cmdText = id => CMD[id] ? `${CMD[id][0]} (${CMD[id][1]}): ${CMD[id][2]}. Needs: ${CMD[id][3]}.` : id;
  const move = (tile, d, n) => {
    const c = COLS.indexOf(tile[0]) + DIR[d][0] * n, r = Number(tile.slice(1)) + DIR[d][1] * n;
    return c >= 0 && c < 8 && r >= 1 && r <= 8 ? `${COLS[c]}${r}` : null;
  };
  // an order's decision fields, in the order the controls ask them
  function fields(o) {
    if (o.type === "command") return [["tile", o.tile], ["direction", o.direction], ["bot", o.bot]];
    if (o.type === "super") return [["first direction", o.first && o.first.direction], ["second tile", o.second && o.second.tile],
                                    ["second direction", o.second && o.second.direction], ["second bot", o.second && o.second.bot]];
    return [];
  }
  // an order in the game's text notation with its command ids in words ("north_3 A1" -> "March North A1")
  const orderWords = t => String(t || "").replace(/\b[a-z]+(?:_[a-z0-9]+)*\b/g, w => CMD[w] ? CMD[w][0] : w);
  const superWords = pair => (pair || []).map(id => CMD[id] ? CMD[id][0] : id).join(" then ");
  const otherSide = p => (p === "blue" ? "orange" : "blue");
  const keyOf = o => o.type === "command" ? o.command : (o.type === "super" ? `super:${o.bot}` : o.type);
  // The end screen in words (issue 23 item 2; D-8.1 to D-8.5); the score is the bots left on the board.
  function outcome(o, seat) {
    const side = p => (kit.seats[p] || {name: p}).name;
    const w = o.winner, l = w ? otherSide(w) : null, me = seat || null;
    const subj = p => (p === me ? "you" : side(p)), Subj = p => { const t = subj(p); return t[0].toUpperCase() + t.slice(1); };
    const does = (p, a, b) => (p === me ? a : b);
    const why = {
      elimination: w && `${Subj(w)} knocked out ${l === me ? "your" : side(l) + "'s"} last bot on the board.`,
      no_legal_order: w && `${Subj(l)} had no legal order on ${does(l, "your", "their")} turn.`,
      resign: w && `${Subj(l)} resigned.`,
      refused: w && `${Subj(l)} sent too many refused orders in one turn.`,
      time: w && `${Subj(l)} ran out of time.`,
      setup_forfeit: w ? `${Subj(l)} did not choose super commands in time.` : "Neither side chose super commands in time: a draw.",
      turn_limit: "The turn limit was reached with bots on both sides: a draw.",
    }[o.reason] || null;
    const view = ((kit._ui || {}).snap || {}).view || {};
    const onBoard = p => Object.values(view.bots || {}).filter(b => b.owner === p && b.tile).length;
    const scores = view.bots ? `Bots left on the board: Blue ${onBoard("blue")}, Orange ${onBoard("orange")}.` : "";
    return {why, scores};
  }
  const kit = {
    outcome: (o, seat, ui) => { kit._ui = ui; return outcome(o, seat); },
    keys: "Commands: arrow keys move along the row, Enter chooses one; then Tab to the tile and direction buttons (or choose the tile with the board cursor) until \"Ready\" appears; Tab to Submit. Setup: Enter on a first and a second command for each bot.",
    seats: {blue: {name: "Blue", colour: "#1f77b4", letter: "B"}, orange: {name: "Orange", colour: "#ff7f0e", letter: "O"}},
    grid: {
      square: (c, r) => `${COLS[c]}${8 - r}`,
      cell: name => { const c = COLS.indexOf(String(name)[0]), r = Number(String(name).slice(1)); return c < 0 || !r ? null : [c, 8 - r]; },
    },
    summary(view) {
      const log = view.log || [], last = log[log.length - 1];
      const rows = last ? [{title: "Last move", lines: [`${(kit.seats[last.player] || {name: last.player}).name} played ${orderWords(last.order)} (magenta on the board)`]}] : [];
      return rows.concat(["blue", "orange"].map(p => {
        const bots = Object.entries(view.bots || {}).filter(([, b]) => b.owner === p);
        return {seat: p, lines: [
          ...bots.map(([lb, b]) => `bot ${lb}: ${b.tile || "in reserve"}${b.rooted ? ", rooted" : ""}${b.super ? `, super: ${superWords(b.super)}` : ""}`),
          `reserve (captured bots to drop): ${(view.reserves || {})[p] && view.reserves[p].length ? view.reserves[p].join(", ") : "none"}`,
          view.active === p ? "to move now" : ""].filter(Boolean)};
      }));
    },
    awaited: view => view.phase === "setup" ? "give each of your bots its super: a blue command then any other, four different commands" :
      "choose a command, then click its tile on the board, then a direction",
    warnings(view, snap) {
      const out = [];
      if (view.phase === "play" && snap.your_turn) {
        out.push("A walking (blue) command leaves a hole on the tile the bot starts from.");
        if (view.super_allowed === false) out.push("No super commands this turn (Blue's first turn).");
        const mine = Object.values(view.bots || {}).filter(b => b.owner === view.you && b.tile && (view.fire || []).includes(b.tile));
        if (mine.length) out.push(`A bot of yours stands on fire (${mine.map(b => b.tile).join(", ")}): it burns at the end of the turn unless the fire goes out or it leaves.`);
      }
      return out;
    },
    describe(e, ui) {
      const d = e;
      const side = p => (kit.seats[p] || {name: p}).name;
      const bots = ((ui.snap || {}).view || {}).bots || {};
      // a bot by its owner: a destroyed bot is named by the side that lost it (it went to the other's reserve)
      // (a bot now in a reserve was lost by the other side this turn or earlier)
      const bot = (lb, lostTo) => {
        const b = bots[lb], o = lostTo ? otherSide(lostTo) : b ? (b.tile ? b.owner : otherSide(b.owner)) : null;
        return o ? `${side(o)}'s bot ${lb}` : `Bot ${lb}`;
      };
      const obj = (x, lostTo) => x === "boulder" ? "A boulder" : bot(x, lostTo);
      switch (e.kind) {
        case "supers": return "The super commands are revealed: " + Object.entries(d).filter(([k]) => k.length === 1).map(([k, v]) => `bot ${k} ${superWords(v)}`).join("; ") + ".";
        case "move": return `${obj(d.object)} moved from ${d.from} to ${d.to}.`;
        case "hole": return `${d.tile} crumbled into a hole (a bot walked off it).`;
        case "fire_on": return `${d.tile} caught fire.`;
        case "fire_off": return `The fire on ${d.tile} went out.`;
        case "burn": return `${bot(d.bot, d.reserve)} burned on ${d.tile}: it stood on fire at the end of the turn${d.reserve ? `; it goes to ${side(d.reserve)}'s reserve` : ""}.`;
        case "fall": return `${obj(d.object, d.reserve)} fell ${d.tile === "off" ? "off the edge of the arena" : `into the hole at ${d.tile}`}${d.reserve ? `; it goes to ${side(d.reserve)}'s reserve` : ""}.`;
        case "drop": return `${side(d.owner)} dropped bot ${d.bot} onto ${d.tile}: it now plays for ${side(d.owner)}.`;
        case "patch": return `The hole at ${d.tile} was patched.`;
        case "root": return `${bot(d.bot)} is rooted: it cannot be pushed until it walks.`;
        case "unroot": return `${bot(d.bot)} walks, so it is no longer rooted.`;
        case "gold_refresh": return "Every gold command has been used, so all gold copies are back in the pool.";
        case "boulder_placed": return `A boulder was placed on ${d.tile}.`;
        case "blast": return `A bot self-destructed on ${d.centre}: every tile around it became a hole.`;
        case "blasted": return `${obj(d.object || d.bot, d.reserve)} was destroyed by the explosion on ${d.tile}${d.reserve ? `; it goes to ${side(d.reserve)}'s reserve` : ""}.`;
        case "order": case "command": return `${side(d.player)} played ${orderWords(d.order || d.command)}.`;
        case "result": return null;  // the end screen says it
        default: return undefined;
      }
    },
    legend: [
      ["A B (blue discs)", "Blue's bots; C D (orange) are Orange's. R and a brown ring: rooted"],
      ["flame", "fire: a bot on fire at the end of a turn burns"],
      ["grey disc", "boulder"],
      ["dark hatched tile", "hole: a bot or boulder moving onto it falls in"],
      ["magenta marks", "what the last command did: arrows = moves, crosses = falls/burns, boxes = new holes, fires, drops"],
      ["green dashed marks", "your planned order (not yet sent)"],
      ["Colours of commands", "blue: your bot walks (and leaves a hole behind); gold: moves a hazard (copies come back after all gold copies are used); red: other effects (used up for good); green: drop a captured bot (never runs out)"],
      ["Super", "a bot's own two-part command chosen at setup: a blue command then any command; it never uses pool copies"],
    ],
    entry(box, view, h, ui) {
      const el = ui.el;
      if (view.phase === "setup") return setupEntry(box, view, ui);
      const legal = (h.legal || []).filter(o => o.type !== "resign");
      if (!legal.length) { box.append(el("p", {class: "hint"}, "No legal order: you may only resign.")); return null; }
      let key = null, chosen = {};
      const cmdBox = el("div", {class: "pickgrid", role: "group", "aria-label": "command"});
      const help = el("p", {class: "cmdhelp", id: "d-help"}), stepBox = el("div", {id: "d-steps"});
      const keys = [...new Set(legal.map(keyOf))];
      const candidates = () => legal.filter(o => keyOf(o) === key && fields(o).every(([f, v]) => !(f in chosen) || (v || "") === chosen[f]));
      function nextField(cs) {
        for (const [f] of fields(cs[0] || {})) {
          if (f in chosen) continue;
          const vals = [...new Set(cs.map(o => (fields(o).find(x => x[0] === f) || [])[1] || ""))];
          if (vals.length === 1) { chosen[f] = vals[0]; continue; }  // only one way: taken
          return [f, vals];
        }
        return null;
      }
      function redraw(push = true) {
        cmdBox.innerHTML = "";
        keys.forEach(k => {
          const id = k.startsWith("super:") ? null : k, pool = id && view.pool ? view.pool[id] : null;
          const label = id ? `${CMD[id] ? CMD[id][0] : id}${pool && pool.left !== null ? ` ×${pool.left}` : ""}` : `Super of bot ${k.slice(6)}`;
          cmdBox.append(el("button", {type: "button", class: "cmd " + (id && CMD[id] ? CMD[id][1] : "super") + (k === key ? " sel" : ""),
            dataset: {command: k}, "aria-pressed": String(k === key), title: id ? cmdText(id) : "this bot's super (two commands in one turn)",
            onclick: () => { key = k; chosen = {}; redraw(); }}, label, colourTag(el, id && CMD[id] ? CMD[id][1] : "super")));
        });
        stepBox.innerHTML = "";
        ui.board.clear();
        if (!key) { help.textContent = "Choose a command. Hover a command for what it does."; ui.board.draw(); return; }
        const cs0 = candidates(), nf = nextField(cs0), cs = candidates();
        if (key.startsWith("super:")) {
          const b = view.bots[key.slice(6)];
          help.textContent = `Super of bot ${key.slice(6)}: ${b && b.super ? b.super.map(x => CMD[x] ? CMD[x][0] : x).join(", then ") : ""} — both parts in one turn; it never uses pool copies.`;
        } else {
          const c = CMD[key];
          help.textContent = c ? `${cmdText(key)} ${REUSE[c[1]] ? `Copies: ${REUSE[c[1]]}.` : ""}` : key;
        }
        Object.entries(chosen).forEach(([f, v]) => { if (v) stepBox.append(el("span", {class: "chosen"}, `${f}: ${v} `)); });
        if (nf) {
          const [f, vals] = nf;
          stepBox.append(el("div", {class: "cmdhelp"}, f.includes("tile") ? `Now click the ${f} on the board (marked), or:` : `Now choose the ${f}:`),
            el("div", {class: "seg", role: "group", "aria-label": f}, ...vals.map(v => el("button", {type: "button", dataset: {field: f, value: v},
              "aria-label": `${f}: ${v ? (DIRNAME[v] ? `${v} (${DIRNAME[v]})` : v) : "none"}`,
              onclick: () => { chosen[f] = v; redraw(); }}, v || "—"))));
          if (f.includes("tile")) vals.forEach(v => v && ui.board.mark(v, "plan", `${f} ${v}`));
          pending = [f, vals];
        } else pending = null;
        const o = cs.length === 1 || !nf ? cs[0] : null;
        const tile = chosen.tile || (key.startsWith("super:") && view.bots[key.slice(6)] ? view.bots[key.slice(6)].tile : null);
        if (tile) ui.board.mark(tile, "sel", "acting tile");
        if (o && o.type === "command" && tile) {
          const n = WALK[o.command], d = o.direction || {north_3: "N", south_3: "S", east_3: "E", west_3: "W"}[o.command];
          if (d) { const to = move(tile, d, n || 1) || move(tile, d, 1); if (to) ui.board.arrow(tile, to, "move", `${CMD[o.command] ? CMD[o.command][0] : o.command} ${d}`); }
        }
        ui.board.draw();
        stepBox.append(el("p", {class: o ? "ready" : "cmdhelp", id: "d-ready"}, o ? `Ready: ${describeOrder(o)}. Press Submit.` : ""));
        if (push && o) ui.setOrders(o);
      }
      let pending = null;
      ui.board.onClick(t => {
        if (pending && pending[1].includes(t)) { chosen[pending[0]] = t; redraw(); return; }
        if (pending && pending[0].includes("direction")) {  // a neighbour of the acting tile gives the direction
          const from = chosen.tile || chosen["second tile"] || (key.startsWith("super:") ? view.bots[key.slice(6)].tile : null);
          const d = from && Object.keys(DIR).find(k => move(from, k, 1) === t);
          if (d && pending[1].includes(d)) { chosen[pending[0]] = d; redraw(); return; }
        }
        if (!key) {  // a tile first: the commands that can act there
          const ks = [...new Set(legal.filter(o => o.tile === t).map(keyOf))];
          ui.say(ks.length ? `From ${t}: ${ks.map(k => CMD[k] ? CMD[k][0] : k).join(", ")}. Choose one.` : `No command acts on ${t}.`, !ks.length);
        }
      });
      function describeOrder(o) {
        if (o.type === "super") {
          const names = ((view.bots[o.bot] || {}).super || ["first", "second"]).map(x => CMD[x] ? CMD[x][0] : x);
          const part = (n, p) => `${n}${p && p.tile ? ` from ${p.tile}` : ""}${p && p.direction ? ` to the ${p.direction}` : ""}${p && p.bot ? ` (bot ${p.bot})` : ""}`;
          return `super of bot ${o.bot}: ${part(names[0], o.first)}, then ${part(names[1], o.second)}`;
        }
        return `${CMD[o.command] ? CMD[o.command][0] : o.command}${o.tile ? ` from ${o.tile}` : ""}${o.direction ? ` to the ${o.direction}` : ""}${o.bot ? ` (bot ${o.bot})` : ""}`;
      }
      box.append(el("p", {class: "hint"}, `${legal.length} legal orders. Choose a command, then its tile (click the board) and direction.`),
        cmdBox, help, stepBox);
      redraw();
      return {load(p) {
        if (!p || !p.type) return;
        key = keyOf(p); chosen = {};
        fields(p).forEach(([f, v]) => { if (v !== undefined) chosen[f] = v; });
        redraw(false);
      }};
    },
  };

  // D-3.4 setup: each bot gets [a blue command, any command], four different ids in all
  function setupEntry(box, view, ui) {
    const el = ui.el;
    const mine = Object.entries(view.bots || {}).filter(([, b]) => b.owner === view.you).map(([lb]) => lb);
    const ids = Object.keys(view.pool || CMD), blue = ids.filter(i => CMD[i] && CMD[i][1] === "blue");
    const sup = Object.fromEntries(mine.map(lb => [lb, [null, null]]));
    let cur = mine[0];
    const body = el("div", {});
    function used(except) {
      return mine.flatMap(lb => sup[lb].map((x, i) => (lb === except[0] && i === except[1]) ? null : x)).filter(Boolean);
    }
    function redraw(push = true) {
      body.innerHTML = "";
      mine.forEach(lb => {
        const part = (i, list, label) => el("div", {class: "setup-part"}, el("div", {class: "cmdhelp"}, label),
          el("div", {class: "pickgrid", role: "group", "aria-label": `bot ${lb} ${label}`}, ...list.map(id => el("button", {type: "button",
            class: "cmd " + (CMD[id] ? CMD[id][1] : "") + (sup[lb][i] === id ? " on" : ""), dataset: {bot: lb, part: i, id},
            "aria-pressed": String(sup[lb][i] === id), title: cmdText(id), disabled: used([lb, i]).includes(id) ? "disabled" : null,
            onclick: () => { sup[lb][i] = sup[lb][i] === id ? null : id; cur = lb; redraw(); }}, CMD[id] ? CMD[id][0] : id, colourTag(el, CMD[id] ? CMD[id][1] : "")))));
        body.append(el("fieldset", {class: "setup-bot" + (lb === cur ? " sel" : ""), dataset: {bot: lb}},
          el("legend", {}, `Bot ${lb} (${view.bots[lb].tile}): super = ${sup[lb].map(x => x ? (CMD[x] ? CMD[x][0] : x) : "?").join(" + ")}`),
          part(0, blue, "First: a blue (walking) command"), part(1, ids, "Second: any command")));
      });
      ui.board.clear();
      if (cur && view.bots[cur]) ui.board.mark(view.bots[cur].tile, "sel", `bot ${cur}`);
      ui.board.draw();
      const done = mine.every(lb => sup[lb][0] && sup[lb][1]);
      status.textContent = done ? "Both supers chosen: press Submit." : "Pick a first and a second command for every bot (greyed: already used by your other choices).";
      if (push && done) ui.setOrders({type: "setup", supers: Object.fromEntries(mine.map(lb => [lb, sup[lb].slice()]))});
    }
    const status = el("p", {class: "cmdhelp", role: "status", id: "setup-status"});
    ui.board.onClick(t => { const lb = mine.find(x => view.bots[x].tile === t); if (lb) { cur = lb; redraw(false); } });
    box.append(el("p", {class: "hint"}, "Setup: give each of your bots a super — its own two-part command, usable on any later turn (not on Blue's first). " +
      "The first part must be a blue (walking) command; the four commands must all differ. The opponent's choices stay secret until both are in."),
      body, status);
    redraw();
    return {load(p) {
      if (!p || !p.supers) return;
      mine.forEach(lb => { const s = p.supers[lb]; sup[lb] = Array.isArray(s) ? [s[0] || null, s[1] || null] : [null, null]; });
      redraw(false);
    }};
  }
  (window.botwarsGames = window.botwarsGames || {}).dadoed = kit;
})();
