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
  // the board's command icons (games/dadoed/icons.py, sent with the page helpers): one picture
  // of a command on the board and on its button
  let ICONS = {};
  function iconOf(el, id) {
    const c = id && ICONS[id];
    if (!c || !c.icon) return null;
    const span = el("span", {class: "cmdicon", "aria-hidden": "true"});
    span.innerHTML = c.icon;
    return span;
  }
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
  // The cause of an event (issue 23 item 2: every event names who and why): the view's log holds
  // each turn's player, its order in the game's notation ("dash H8 East 3", "super A: charge A1
  // North 4 + spread_fire") and its events (D-12.6). Returns {player, name, walker, words}: the
  // command's name, the bot that walked (a blue command's bot, D-6.5; null for other commands)
  // and "Blue's bot A (Dash)" / "Orange's Nudge Boulder" for a sentence; null when the event is
  // not in the log (the log is the whole game, so only a turn the view no longer holds).
  const sameEvent = (x, e) => x.type === e.kind && Object.keys(x).every(k => k === "type" || JSON.stringify(x[k]) === JSON.stringify(e[k]));
  function cause(e, view) {
    const log = view.log || [];
    let turn = null;
    for (let i = log.length - 1; i >= 0 && !turn; i--) if ((log[i].events || []).some(x => sameEvent(x, e))) turn = log[i];
    if (!turn) return null;
    const text = String(turn.order || ""), side = (kit.seats[turn.player] || {name: turn.player}).name;
    const sup = /^super ([A-Z]): ([a-z_0-9]+)/.exec(text), cmd = /^([a-z_0-9]+) ([A-H][1-8])/.exec(text);
    const id = sup ? sup[2] : cmd ? cmd[1] : null, name = id && CMD[id] ? CMD[id][0] : (id || "its order");
    let walker = sup ? sup[1] : null;
    if (!walker && cmd && WALK[id]) {  // the bot that stood on the order's tile: it moved from there, or fell at once
      const evs = turn.events || [];
      const moved = evs.find(x => x.type === "move" && x.from === cmd[2]);
      const at = evs.findIndex(x => x.type === "hole" && x.tile === cmd[2]);
      const fell = at >= 0 ? evs.slice(at).find(x => x.type === "fall") : null;
      walker = moved ? moved.object : fell ? fell.object : null;
    }
    if (walker === "boulder") walker = null;
    // a super names both its parts: its second (a Nudge Boulder after a Dash) may be what moved
    // something (the audit read a boulder in another column "pushed by … (its super, Dash first)")
    const second = sup ? /\+ ([a-z_0-9]+)/.exec(text) : null, name2 = second ? (CMD[second[1]] ? CMD[second[1]][0] : second[1]) : null;
    return {player: turn.player, id, name, walker, boulderMoved: (turn.events || []).some(x => x.type === "move" && x.object === "boulder"), words: walker ? (sup ? `${side}'s bot ${walker} with its super, ${name}${name2 ? ` then ${name2}` : ""}` : `${side}'s bot ${walker} (${name})`) : `${side}'s ${name}`};
  }
  // Who owned bot `lb` just before event `e` (issue 23: the history named a captured bot by its
  // owner now, so a turn before the capture read "Orange's bot A walked" for Blue's bot A). The
  // log is rewound from the owners now (view.bots; a bot in a reserve is held by that side, and
  // a drop keeps the holder): every capture after `e` (a fall, burn or blast that sends a bot to
  // a reserve, D-7) gave the bot to the other side, so before it the bot was the other side's.
  // Null: `e` is not in the log.
  const captures = new Set(["fall", "burn", "blasted"]);
  function ownerBefore(lb, e, view) {
    const own = Object.fromEntries(Object.entries(view.bots || {}).map(([k, b]) => [k, b.owner]));
    const log = view.log || [];
    for (let i = log.length - 1; i >= 0; i--) {
      const evs = log[i].events || [];
      for (let j = evs.length - 1; j >= 0; j--) {
        const x = evs[j], who = x.object || x.bot;
        // a capture sends the bot to the other side's reserve (D-7): before it, the bot was the
        // other side's; the log's burn names no reserve, so the holder after it says which
        if (captures.has(x.type) && who && who !== "boulder" && (x.reserve || own[who]))
          own[who] = otherSide(x.reserve || own[who]);
        if (sameEvent(x, e)) return own[lb] || null;
      }
    }
    return null;
  }
  const keyOf = o => o.type === "command" ? o.command : (o.type === "super" ? `super:${o.bot}` : o.type);
  // The end screen in words (issue 23 item 2; D-8.1 to D-8.5); the score is the bots left on the board.
  function outcome(o, seat) {
    const side = p => (kit.seats[p] || {name: p}).name;
    const w = o.winner, l = w ? otherSide(w) : null, me = seat || null;
    const subj = p => (p === me ? "you" : side(p)), Subj = p => { const t = subj(p); return t[0].toUpperCase() + t.slice(1); };
    const does = (p, a, b) => (p === me ? a : b);
    const why = {
      // D-8.1: the side left with no bot on the board loses, however its last bot went (pushed, burnt, or
      // its own walk off the edge); naming the winner as the one who "knocked it out" blamed the wrong side
      elimination: w && `${Subj(l)} ${does(l, "have", "has")} no bot left on the board (captured bots in reserve do not count).`,
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
    seats: {blue: {letter: "B"}, orange: {letter: "O"}},  // names and colours: the page's palette (render/palette.py)
    grid: {
      square: (c, r) => `${COLS[c]}${8 - r}`,
      cell: name => { const c = COLS.indexOf(String(name)[0]), r = Number(String(name).slice(1)); return c < 0 || !r ? null : [c, 8 - r]; },
    },
    summary(view, snap) {
      const log = view.log || [], last = log[log.length - 1];
      const rows = last ? [{title: "Last move", lines: [`${(kit.seats[last.player] || {name: last.player}).name} played ${orderWords(last.order)} (magenta on the board)`]}] : [];
      return rows.concat(["blue", "orange"].map(p => {
        const bots = Object.entries(view.bots || {}).filter(([, b]) => b.owner === p);
        return {seat: p, lines: [
          ...bots.map(([lb, b]) => `bot ${lb}: ${b.tile || "in reserve"}${b.rooted ? ", rooted" : ""}${b.super ? `, super: ${superWords(b.super)}` : ""}`),
          `reserve (captured bots to drop): ${(view.reserves || {})[p] && view.reserves[p].length ? view.reserves[p].join(", ") : "none"}`,
          view.active === p && !(snap && snap.status === "ended") ? "to move now" : ""].filter(Boolean)};
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
      const view = (ui.snap || {}).view || {};
      const bots = view.bots || {};
      // who and why (issue 23 item 2): the turn this event belongs to (the view's log) names the
      // player and the command; a walking command's walker is the bot that set things moving
      const c = cause(e, view), by = c ? c.words : null;
      const pushed = x => (c && c.walker === x) ? null : by;
      // a bot by its owner: a destroyed bot is named by the side that lost it (it went to the other's reserve)
      // (a bot now in a reserve was lost by the other side this turn or earlier)
      const bot = (lb, lostTo) => {
        const b = bots[lb], then = ownerBefore(lb, e, view);
        const o = then || (lostTo ? otherSide(lostTo) : b ? (b.tile ? b.owner : otherSide(b.owner)) : null);
        return o ? `${side(o)}'s bot ${lb}` : `Bot ${lb}`;
      };
      const obj = (x, lostTo) => x === "boulder" ? "A boulder" : bot(x, lostTo);
      switch (e.kind) {
        case "supers": return "The super commands are revealed: " + Object.entries(d).filter(([k]) => k.length === 1).map(([k, v]) => `bot ${k} ${superWords(v)}`).join("; ") + ".";
        case "move": {
          if (c && c.walker === d.object) {
            // D-6.12: a walker that pushes a boulder halts after that step (the audit read "Dash"
            // and a walk of 2 tiles as a contradiction)
            const n = WALK[c.id], went = Math.abs(COLS.indexOf(d.to[0]) - COLS.indexOf(d.from[0])) + Math.abs(Number(d.to.slice(1)) - Number(d.from.slice(1)));
            const short = n && went < n && c.boulderMoved ? `: it stopped after ${went} of its ${n} tiles, because a bot that pushes a boulder halts and the boulder rolls on` : "";
            return `${bot(d.object)} walked from ${d.from} to ${d.to} (${c.name})${short}.`;
          }
          const far = Math.abs(COLS.indexOf(d.to[0]) - COLS.indexOf(d.from[0])) + Math.abs(Number(d.to.slice(1)) - Number(d.from.slice(1))) > 1;
          if (d.object === "boulder" && by && far) return `A boulder was pushed and rolled from ${d.from} to ${d.to}, set moving by ${by}.`;
          return pushed(d.object) ? `${obj(d.object)} was pushed from ${d.from} to ${d.to} by ${by}.` : `${obj(d.object)} moved from ${d.from} to ${d.to}.`;
        }
        case "hole": return `${d.tile} crumbled into a hole: ${c && c.walker ? `${side(c.player)}'s bot ${c.walker}` : "a bot"} walked off it (a walking command always leaves a hole).`;
        case "fire_on": return `${d.tile} caught fire${by ? ` (${by})` : ""}.`;
        case "fire_off": return `The fire on ${d.tile} went out.`;
        case "burn": {
          // D-7: a burned bot is captured by the other side (the log names no reserve): say so, the
          // audit's player saw its bot vanish after "burned"
          const then = ownerBefore(d.bot, e, view), to = d.reserve || (then ? otherSide(then) : null);
          return `${bot(d.bot, d.reserve)} burned on ${d.tile}: it stood on fire at the end of the turn${to ? `; ${side(to)} captures it (it goes to ${to === ui.seat ? "your" : side(to) + "'s"} reserve, to be dropped back later)` : ""}.`;
        }
        case "fall": {
          const where = d.tile === "off" ? "off the edge of the arena" : `into the hole at ${d.tile}`;
          const lost = d.reserve ? `; it goes to ${side(d.reserve)}'s reserve` : "";
          if (c && c.walker === d.object) return `${bot(d.object, d.reserve)} walked ${where} (${c.name})${lost}.`;
          return `${obj(d.object, d.reserve)} ${by ? `was pushed ${where} by ${by}` : `fell ${where}`}${lost}.`;
        }
        case "drop": return `${side(d.owner)} dropped bot ${d.bot} onto ${d.tile}: it now plays for ${side(d.owner)}.`;
        case "patch": return `The hole at ${d.tile} was patched${c ? ` by ${side(c.player)}` : ""}.`;
        case "root": return `${bot(d.bot)} is rooted: it cannot be pushed until it walks.`;
        case "unroot": return `${bot(d.bot)} walks, so it is no longer rooted.`;
        case "gold_refresh": return "Every gold command has been used, so all gold copies are back in the pool.";
        case "boulder_placed": return c ? `${side(c.player)} placed a boulder on ${d.tile}.` : `A boulder was placed on ${d.tile}.`;
        case "blast": {
          // the exploding bot by its letter; D-7.4: a blast that wins the game stops, and the bots
          // not yet destroyed stay on their holes (the audit saw two bots "survive" a blast)
          const near = t => Math.max(Math.abs(COLS.indexOf(t[0]) - COLS.indexOf(d.centre[0])), Math.abs(Number(t.slice(1)) - Number(d.centre.slice(1)))) <= 1;
          const ended = (ui.snap || {}).status === "ended" || !!view.result;
          const standing = ended ? Object.entries(bots).filter(([, b]) => b.tile && near(b.tile)).map(([k]) => k) : [];
          const blasted = ((view.log || []).find(t => (t.events || []).some(x => sameEvent(x, e))) || {events: []}).events
            .find(x => x.type === "blasted" && x.tile === d.centre);
          const who = blasted ? blasted.object || blasted.bot : (Object.entries(bots).find(([, b]) => b.tile === d.centre) || [])[0];
          const name = who ? `${c ? side(c.player) + "'s bot" : "Bot"} ${who}` : `${c ? `${side(c.player)}'s bot` : "A bot"}`;
          return `${name} self-destructed on ${d.centre}: every tile around it became a hole.` + (standing.length ?
            ` The game was won during the explosion, so ${standing.length === 1 ? `bot ${standing[0]} stays` : `bots ${standing.join(" and ")} stay`} on ${standing.length === 1 ? "its hole" : "their holes"} instead of being destroyed.` : "");
        }
        case "blasted": return `${obj(d.object || d.bot, d.reserve)} was destroyed by the explosion on ${d.tile}${d.reserve ? `; it goes to ${side(d.reserve)}'s reserve` : ""}.`;
        case "order": case "command": return `${side(d.player)} played ${orderWords(d.order || d.command)}.`;
        case "result": return null;  // the end screen says it
        default: return undefined;
      }
    },
    legend: [
      ["blue and orange discs", "Blue's and Orange's bots. A letter names a bot for the whole game: Blue starts with A B, Orange with C D; a captured bot keeps its letter and takes the colour of the side that drops it. R and a brown ring: rooted"],
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
      ICONS = (h && h.commands) || ICONS;
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
            onclick: () => { key = k; chosen = {}; redraw(); }}, iconOf(el, id), label, colourTag(el, id && CMD[id] ? CMD[id][1] : "super")));
        });
        stepBox.innerHTML = "";
        ui.board.clear();
        // Submit waits for a whole order (newcomer audit: Step and its tile without a direction was
        // sent and refused as "empty order")
        if (!key) { help.textContent = "Choose a command: what it does shows here."; ui.board.draw(); ui.ready(false, "Choose a command first: every turn plays one."); return; }
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
        const what = key.startsWith("super:") ? `the super of bot ${key.slice(6)}` : (CMD[key] ? CMD[key][0] : key);
        ui.ready(!!o, o ? "" : `Choose the ${nf ? nf[0] : "rest"} for ${what} (on the board or with the buttons), then Submit.`);
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
          const part = (n, p) => `${n}${p && p.tile ? ` from ${p.tile}` : ""}${p && p.direction ? ` to the ${DIRNAME[p.direction] || p.direction}` : ""}${p && p.bot ? ` (bot ${p.bot})` : ""}`;
          return `super of bot ${o.bot}: ${part(names[0], o.first)}, then ${part(names[1], o.second)}`;
        }
        return `${CMD[o.command] ? CMD[o.command][0] : o.command}${o.tile ? ` from ${o.tile}` : ""}${o.direction ? ` to the ${DIRNAME[o.direction] || o.direction}` : ""}${o.bot ? ` (bot ${o.bot})` : ""}`;
      }
      box.append(el("p", {class: "hint"}, "Choose a command, then its tile (click the board) and direction."),
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

  // ---- setup, guided (D-3.4): per bot a blue command first, then any other; four different ids ----
  // What a command does, in a sentence a newcomer reads before choosing it (D-4.2, D-6, D-7.4).
  const EFFECT = {
    step: "Your bot walks 1 tile in a direction you choose, pushing whatever stands in its way. The tile it leaves becomes a hole.",
    stride: "Your bot walks 2 tiles in a direction you choose, pushing whatever stands in its way. The tile it starts from becomes a hole.",
    dash: "Your bot walks 3 tiles in a direction you choose, pushing whatever stands in its way. The tile it starts from becomes a hole.",
    charge: "Your bot walks 4 tiles in a direction you choose, pushing whatever stands in its way. The tile it starts from becomes a hole.",
    north_3: "Your bot walks 3 tiles north (always north), pushing whatever stands in its way. The tile it starts from becomes a hole.",
    south_3: "Your bot walks 3 tiles south (always south), pushing whatever stands in its way. The tile it starts from becomes a hole.",
    east_3: "Your bot walks 3 tiles east (always east), pushing whatever stands in its way. The tile it starts from becomes a hole.",
    west_3: "Your bot walks 3 tiles west (always west), pushing whatever stands in its way. The tile it starts from becomes a hole.",
    spread_fire: "A fire anywhere spreads to the next tile in a direction you choose (a bot standing there burns at the end of the turn).",
    nudge_boulder: "Any boulder is pushed one tile in a direction you choose; it keeps rolling until it hits a boulder or a rooted bot, or falls.",
    root: "Your bot becomes rooted: nothing can push it until it walks again.",
    self_destruct: "Your bot explodes: it and every tile around it become holes, and every bot there is destroyed (yours last; if that already wins the game, yours survives).",
    ignite: "Your bot sets the next tile in a direction you choose on fire.",
    place_boulder: "A boulder appears on a tile you choose (without a bot); a fire there goes out.",
    douse: "The fires on your bot's tile and on the four tiles next to it go out.",
    patch: "A hole next to your bot becomes floor again.",
    drop_bot: "A bot from your reserve (a bot you captured) is placed on a free tile you choose; it fights for you from then on.",
  };
  const COLOUR_WORDS = {blue: "blue: walks the bot", gold: "gold: moves a hazard", red: "red: other effects", green: "green: drops a captured bot"};

  // A small 5×5 board showing what command `id` does (an SVG string; role img, named by EFFECT).
  function miniBoard(id) {
    const S = 16, N = 5, at = (c, r) => [c * S + S / 2, r * S + S / 2], parts = [];
    for (let r = 0; r < N; r++) for (let c = 0; c < N; c++)
      parts.push(`<rect x="${c * S}" y="${r * S}" width="${S}" height="${S}" fill="${(r + c) % 2 ? "#e9ecef" : "#f6f7f9"}" stroke="#c3c9d0" stroke-width=".5"/>`);
    const bot = (c, r, txt, dashed) => { const [x, y] = at(c, r); return `<circle cx="${x}" cy="${y}" r="6" fill="#1f77b4" stroke="#0b3a5e"${dashed ? ' stroke-dasharray="2 1.5" fill-opacity=".55"' : ""}/>` +
      `<text x="${x}" y="${y + 3}" font-size="8" text-anchor="middle" fill="#fff" font-family="sans-serif" font-weight="bold">${txt}</text>`; };
    const hole = (c, r) => `<rect x="${c * S + 1}" y="${r * S + 1}" width="${S - 2}" height="${S - 2}" fill="#2b2f33"/>` +
      `<path d="M${c * S + 2} ${r * S + S - 2}L${c * S + S - 2} ${r * S + 2}" stroke="#777" stroke-width="1"/>`;
    const fire = (c, r, faded) => { const [x, y] = at(c, r); return `<path d="M${x} ${y - 6}C${x + 5} ${y - 1} ${x + 5} ${y + 5} ${x} ${y + 6}C${x - 5} ${y + 5} ${x - 5} ${y - 1} ${x} ${y - 6}Z" fill="#f97316" stroke="#b42318" stroke-width=".8"${faded ? ' opacity=".35"' : ""}/>`; };
    const boulder = (c, r, faded) => { const [x, y] = at(c, r); return `<circle cx="${x}" cy="${y}" r="5.5" fill="#8a8f96" stroke="#4b5058"${faded ? ' opacity=".4"' : ""}/>`; };
    const arrow = (a, b, colour) => { const [x1, y1] = at(...a), [x2, y2] = at(...b), ang = Math.atan2(y2 - y1, x2 - x1), h = 4;
      return `<line x1="${x1}" y1="${y1}" x2="${x2 - 5 * Math.cos(ang)}" y2="${y2 - 5 * Math.sin(ang)}" stroke="${colour || "#0a8f3c"}" stroke-width="2"/>` +
        `<polygon points="${x2 - 3 * Math.cos(ang)},${y2 - 3 * Math.sin(ang)} ${x2 - 3 * Math.cos(ang) - h * Math.cos(ang - .5)},${y2 - 3 * Math.sin(ang) - h * Math.sin(ang - .5)} ` +
        `${x2 - 3 * Math.cos(ang) - h * Math.cos(ang + .5)},${y2 - 3 * Math.sin(ang) - h * Math.sin(ang + .5)}" fill="${colour || "#0a8f3c"}"/>`; };
    const cross = (c, r) => { const [x, y] = at(c, r); return `<path d="M${x - 5} ${y - 5}L${x + 5} ${y + 5}M${x + 5} ${y - 5}L${x - 5} ${y + 5}" stroke="#0a8f3c" stroke-width="2"/>`; };
    const walk = {step: [[1, 2], [2, 2]], stride: [[1, 2], [3, 2]], dash: [[0, 2], [3, 2]], charge: [[0, 2], [4, 2]],
                  north_3: [[2, 4], [2, 1]], south_3: [[2, 0], [2, 3]], east_3: [[0, 2], [3, 2]], west_3: [[4, 2], [1, 2]]}[id];
    if (walk) parts.push(hole(...walk[0]), arrow(walk[0], walk[1]), bot(...walk[1], "A"));
    else if (id === "spread_fire") parts.push(fire(1, 2), arrow([1, 2], [2, 2], "#b42318"), fire(2, 2));
    else if (id === "nudge_boulder") parts.push(boulder(1, 2, true), arrow([1, 2], [3, 2], "#4b5058"), boulder(3, 2));
    else if (id === "root") parts.push(bot(2, 2, "A"), `<circle cx="40" cy="40" r="8.5" fill="none" stroke="#8b5a2b" stroke-width="2.5"/>`);
    else if (id === "self_destruct") { for (let r = 1; r <= 3; r++) for (let c = 1; c <= 3; c++) parts.push(hole(c, r)); parts.push(bot(2, 2, "A", true), `<rect x="15" y="15" width="50" height="50" fill="none" stroke="#b42318" stroke-width="2"/>`); }
    else if (id === "ignite") parts.push(bot(2, 2, "A"), arrow([2, 2], [3, 2], "#b42318"), fire(3, 2));
    else if (id === "place_boulder") parts.push(fire(2, 2, true), boulder(2, 2), `<text x="40" y="14" font-size="9" text-anchor="middle" fill="#0a8f3c" font-family="sans-serif">+</text>`);
    else if (id === "douse") parts.push(bot(2, 2, "A"), fire(3, 2, true), fire(2, 1, true), cross(3, 2), cross(2, 1));
    else if (id === "patch") parts.push(bot(2, 2, "A"), `<rect x="49" y="33" width="14" height="14" fill="#f6f7f9" stroke="#0a8f3c" stroke-width="2" stroke-dasharray="2 1.5"/>`);
    else if (id === "drop_bot") parts.push(arrow([0, 0], [2, 2]), bot(2, 2, "C", true));
    return `<svg xmlns="http://www.w3.org/2000/svg" class="mini-board" viewBox="0 0 ${N * S} ${N * S}" width="${N * S * 1.5}" height="${N * S * 1.5}">${parts.join("")}</svg>`;
  }

  function setupEntry(box, view, ui) {
    const el = ui.el;
    const mine = Object.entries(view.bots || {}).filter(([, b]) => b.owner === view.you).map(([lb]) => lb).sort();
    const ids = Object.keys(view.pool || CMD), blue = ids.filter(i => CMD[i] && CMD[i][1] === "blue");
    const sup = Object.fromEntries(mine.map(lb => [lb, [null, null]]));
    const nameOf = id => CMD[id] ? CMD[id][0] : id, colourOf = id => CMD[id] ? CMD[id][1] : "";
    const copies = id => { const p = (view.pool || {})[id]; return !p ? null : (p.copies === null || p.copies === undefined ? "∞" : p.copies); };
    let cur = mine[0], shown = null;  // the bot being set up; the command described in the detail card
    const steps = el("div", {class: "setup-steps", role: "group", "aria-label": "your bots"});
    const body = el("div", {id: "setup-body"}), detail = el("div", {class: "setup-detail", id: "setup-detail", "aria-live": "polite"});
    const status = el("p", {class: "cmdhelp", role: "status", id: "setup-status"});
    const owner = id => { for (const lb of mine) { const i = sup[lb].indexOf(id); if (i >= 0) return [lb, i]; } return null; };
    const partName = i => i === 0 ? "first" : "second";
    // what is still missing, as the sentence Submit shows while it is disabled
    function missing() {
      for (const lb of mine) for (const i of [0, 1]) if (!sup[lb][i]) return `Pick a ${partName(i)} command for bot ${lb}.`;
      return null;
    }
    function pick(lb, i, id) {
      const o = owner(id);
      if (o && !(o[0] === lb && o[1] === i)) {  // D-3.4c: the four commands differ
        ui.say(`${nameOf(id)} is already bot ${o[0]}'s ${partName(o[1])} command: the four commands of your two supers must all differ. ` +
               `Choose another one, or first change bot ${o[0]}'s ${partName(o[1])} command.`, true);
        return;
      }
      sup[lb][i] = id;  // a second click keeps the pick: it never takes it back (the second click of a double click is ignored: it could land on the next bot's buttons)
      shown = id;
      if (sup[lb][0] && sup[lb][1]) { const next = mine.find(x => !(sup[x][0] && sup[x][1])); if (next) cur = next; }
      redraw();
    }
    function describe(id) {
      detail.innerHTML = "";
      if (!id) { detail.append(el("p", {class: "hint"}, "Point at a command (or focus it) to see what it does.")); return; }
      const pic = el("div", {class: "mini", role: "img", "aria-label": `picture: ${EFFECT[id] || cmdText(id)}`});
      pic.innerHTML = miniBoard(id);
      const n = copies(id);
      detail.append(pic, el("div", {},
        el("p", {class: "setup-name"}, el("b", {}, nameOf(id)), ` (${COLOUR_WORDS[colourOf(id)] || colourOf(id)})`),
        el("p", {id: "setup-effect"}, EFFECT[id] || cmdText(id)),
        CMD[id] && CMD[id][3] !== "none" ? el("p", {class: "cmdhelp"}, `It can only be played when ${CMD[id][3]}.`) : null,
        el("p", {class: "cmdhelp"}, n === null ? "" : `In the shared pool: ${n} ${n === 1 ? "copy" : "copies"}. As part of a super it never uses them up.`)));
    }
    function button(lb, i, id) {
      const o = owner(id), taken = o && !(o[0] === lb && o[1] === i), on = sup[lb][i] === id, n = copies(id);
      return el("button", {type: "button", class: "cmd " + colourOf(id) + (on ? " on" : "") + (taken ? " used" : ""),
        dataset: {bot: lb, part: i, id}, "aria-pressed": String(on),
        "aria-label": taken ? `${nameOf(id)}: already bot ${o[0]}'s ${partName(o[1])} command` : null,
        title: taken ? `already bot ${o[0]}'s ${partName(o[1])} command` : EFFECT[id] || cmdText(id),
        onclick: ev => { if (ev.detail < 2) pick(lb, i, id); }, onmouseenter: () => describe(id), onfocus: () => describe(id)},
        iconOf(el, id), nameOf(id), colourTag(el, colourOf(id)), n === null ? null : el("span", {class: "cmdcol"}, ` · pool ${n}`));
    }
    function redraw(push = true) {
      steps.innerHTML = "";
      mine.forEach((lb, k) => {
        const done = sup[lb][0] && sup[lb][1];
        steps.append(el("button", {type: "button", class: "setup-step" + (lb === cur ? " sel" : "") + (done ? " done" : ""),
          dataset: {stepBot: lb}, "aria-pressed": String(lb === cur), onclick: () => { cur = lb; redraw(false); }},
          `${done ? "✓ " : ""}${k + 1}. Bot ${lb} (${view.bots[lb].tile}): ` +
          (sup[lb][0] || sup[lb][1] ? sup[lb].map(x => x ? nameOf(x) : "…").join(" then ") : "not chosen yet")));
      });
      body.innerHTML = "";
      const lb = cur;
      body.append(el("fieldset", {class: "setup-bot sel", dataset: {bot: lb}},
        el("legend", {}, `Bot ${lb} on ${view.bots[lb].tile}: its super is ` + sup[lb].map(x => x ? nameOf(x) : "?").join(" then ")),
        el("p", {class: "cmdhelp"}, el("b", {}, "1. "), "First part: a blue command (your bot walks)."),
        el("div", {class: "pickgrid", role: "group", "aria-label": `bot ${lb} first command`}, ...blue.map(id => button(lb, 0, id))),
        sup[lb][0] ? el("p", {class: "cmdhelp"}, el("b", {}, "2. "), `Second part: any other command, played right after ${nameOf(sup[lb][0])}.`) : null,
        sup[lb][0] ? el("div", {class: "pickgrid", role: "group", "aria-label": `bot ${lb} second command`}, ...ids.map(id => button(lb, 1, id))) : null));
      describe(shown || sup[lb][1] || sup[lb][0]);
      ui.board.clear();
      mine.forEach(x => ui.board.mark(view.bots[x].tile, x === cur ? "sel" : "plan", `bot ${x}`, x));
      ui.board.draw();
      const need = missing();
      status.textContent = need ? need : "Both supers chosen: press Submit.";
      status.classList.toggle("ready", !need);
      ui.ready(!need, need);
      // the picks so far (incomplete ones too, so a reload keeps them; Submit stays off until complete)
      if (push) ui.setOrders({type: "setup", supers: Object.fromEntries(mine.map(x => [x, sup[x].slice()]))});
    }
    ui.board.onClick(t => { const lb = mine.find(x => view.bots[x].tile === t); if (lb) { cur = lb; redraw(false); } });
    box.append(el("p", {class: "hint"}, "Before the first turn, give each of your two bots a super: its own two-part command, " +
      "a blue (walking) command and then any other, played together in one turn whenever you like (not on Blue's first turn). " +
      "The four commands must all differ. Your opponent chooses in secret too; all supers are shown once both are in."),
      steps, body, detail, status,
      el("p", {class: "cmdhelp pool", id: "setup-pool"}, el("b", {}, "The shared pool, copies of each command: "),
        ids.map(id => `${nameOf(id)} ${copies(id) === null ? "" : copies(id)}`).join(" · ")));
    redraw(false);
    return {load(p) {
      if (!p || !p.supers) return;
      mine.forEach(lb => { const s = p.supers[lb]; sup[lb] = Array.isArray(s) ? [s[0] || null, s[1] || null] : [null, null]; });
      cur = mine.find(x => !(sup[x][0] && sup[x][1])) || cur;
      redraw(false);
    }};
  }
  (window.botwarsGames = window.botwarsGames || {}).dadoed = kit;
})();
