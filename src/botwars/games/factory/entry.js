// The factory seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the
// kit's shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  const CARD = {FWD1: "move 1 forward", FWD2: "move 2 forward", FWD3: "move 3 forward", RVS1: "back up 1",
                RVS2: "back up 2", RVS3: "back up 3", RT90: "turn right", LF90: "turn left", UTRN: "U-turn",
                SLF1: "slide 1 left", SRT1: "slide 1 right", IDLE: "do nothing"};
  const cardId = c => { const p = String(c).split(" "); return Number(p[p.length - 1]); };
  const cardText = c => { const [t, n] = String(c).split(" "); return `${CARD[t] || t} (priority ${n})`; };
  // a program card as its button reads (issue 23): "Turn left · priority 350", never the code "LF90 350"
  // (a node: on a phone the priority goes under the words, app.css .card-prio)
  const cardLabel = c => {
    const [t, n] = String(c).split(" "), w = CARD[t] || t, span = (cls, text) => { const e = document.createElement("span"); e.className = cls; e.textContent = text; return e; };
    const out = span("card-words", "");
    out.append(span("card-move", `${w[0].toUpperCase()}${w.slice(1)}`), span("card-sep", " · "), span("card-prio", `priority ${n}`));
    return out;
  };
  // the board's flags F1..Fn (F-3.8), counted in the board text the view carries
  const flagCount = view => Math.max(0, ...[...String(view.board || "").matchAll(/(?:^|\s)F(\d+)(?=[\s/]|$)/gm)].map(m => Number(m[1])));
  const cardsWord = k => `${k} card${k === 1 ? "" : "s"}`;  // "1 card", "5 cards"
  const parseSq = s => { const m = /^r(\d+)c(\d+)$/.exec(s || ""); return m ? [Number(m[1]), Number(m[2])] : null; };

  function seatsOf(view, ui) {  // players by name, coloured by their F-2.9 colour word from the page's palette
    const out = {}, words = ((ui && ui.palette) || {}).words || {};
    (view.players || []).forEach((p, i) => { const c = words[p.colour] || {}; out[p.name] = {name: c.name || p.name,
      colour: c.colour || "#666", letter: String(i + 1)}; });
    return out;
  }
  function tableLines(e, ui) {  // a stage/end report event: one line per robot column
    const rows = e.rows || [];
    const names = (rows.find(r => r[0] === "NAME") || []).slice(1);
    return names.map((n, i) => {
      const bits = rows.filter(r => !["NAME", "MODE"].includes(r[0]) && r[i + 1] && r[i + 1] !== "-")
        .map(r => `${r[0].toLowerCase()} ${r[i + 1]}`);
      return `${n}: ${bits.join("; ") || "nothing"}`;
    });
  }
  // ---- the report tables in plain words (issue 23 item 2) ------------------------------------
  // Each stage/end/fused/result section (an event or a stage section of /web/matches/ID/turn/N/
  // stages.json) as one sentence per robot; the table itself stays under "Details".
  const FACE = {N: "north", E: "east", S: "south", W: "west"};
  const OPTION = {RL: "Rear Laser", DL: "Double Laser", AA: "Ablative Armour", GS: "Gyro Stabiliser", FI: "Fence Insulation",
                  XM: "Extra Memory", HC: "Heavy Chassis", MP: "Mirror Plating", ML: "Main Laser"};
  const SQ = "(r\\d+(?:-\\d+)?c\\d+(?:-\\d+)?)";
  const EVENT_WORDS = [
    [`^move to ${SQ}$`, m => `moves to ${m[1]}`],
    ["^face ([NESW])$", m => `turns to face ${FACE[m[1]]}`],
    ["^idle$", () => "does nothing"],
    ["^obstruction encountered$", () => "is stopped by an obstacle"],
    [`^pushed to ${SQ}$`, m => `is pushed to ${m[1]}`],
    [`^teleport to ${SQ}$`, m => `enters a teleporter and is moved to ${m[1]}, the next free teleporter in letter order (A, then B, then C …, back to A)`],
    [`^switch ${SQ} (on|off)$`, m => `flips the switch on ${m[1]} ${m[2]}`],
    // x.self: the robot whose HITS cell names the eye (F-9.6): its laser reached it
    [`^eye ${SQ} (on|off)$`, (m, x) => `${x && x.self ? `${x.self}'s laser` : "a laser"} flips the electric eye on ${m[1]} (now ${m[2]})`],
    ["^fence -(\\d+) HP$", m => `touches an electric fence and loses ${m[1]} HP`],
    ["^armour (\\d+) left$", m => `its armour takes the hit (${m[1]} charges left)`],
    ["^option ([A-Z]{2}) lost$", m => `loses its ${OPTION[m[1]] || m[1]} option`],
    ["^fused register (\\d+)$", m => `register ${m[1]} locks (its card stays there)`],
    ["^fell into pit$", () => "falls into a pit"],
    ["^fell off board$", () => "falls off the board"],
    ["^destroyed$", () => "is destroyed"],
    [`^conveyor to ${SQ}$`, m => `a belt carries it to ${m[1]}`],
    [`^pusher to ${SQ}$`, m => `a pusher pushes it to ${m[1]}`],
    ["^gear face ([NESW])$", m => `a gear turns it to face ${FACE[m[1]]}`],
    ["^crushed$", () => "a crusher crushes it"],
    ["^laser -(\\d+) HP$", m => `a wall laser hits it (${m[1]} HP lost)`],
    // x.shooters: the robots whose HITS cell names this one (F-9.6): the laser's owners by name
    ["^shot -(\\d+) HP$", (m, x) => `${shotBy(x && x.shooters)} it (${m[1]} HP lost)`],
    ["^buzzsaw -(\\d+) HP$", m => `a buzzsaw cuts it (${m[1]} HP lost)`],
    ["^parked$", () => "parks on an open gate"],
    ["^exited$", () => "leaves the room through the gate"],
  ].map(([re, f]) => [new RegExp(re), f]);
  // one event of a MOVES/MECH cell, e.g. "conveyor to r2c3"; "@460 pushed to r3c4" happened
  // while another robot's card (priority 460) moved: cardOwner(460) names that robot
  // "Robot B's laser hits" / "the lasers of Robot B and Red's robot hit" (audit: "a robot's laser" named nobody)
  const shotBy = ws => !ws || !ws.length ? "a robot's laser hits" : ws.length === 1 ? `${ws[0]}'s laser hits` : `the lasers of ${list(ws)} hit`;
  function eventWords(text, cardOwner, x) {
    let t = String(text).trim(), by = "";
    const at = /^@(\d+) (.*)$/.exec(t);
    if (at) { t = at[2]; const o = cardOwner ? cardOwner(at[1]) : null; by = o ? ` (by ${o}'s move, its card of priority ${at[1]})` : ` (while the card of priority ${at[1]} moved)`; }
    for (const [re, f] of EVENT_WORDS) { const m = re.exec(t); if (m) return f(m, x) + by; }
    return t + by;
  }
  const cellEvents = (v, cardOwner, x) => String(v).split(/[;,]\s*/).filter(e => e && e !== "-").map(e => eventWords(e, cardOwner, x));
  const CHECK_WORDS = [
    ["^flag (\\d+)$", m => `touches flag ${m[1]}`],
    [`^checkpoint ${SQ}$`, m => `${m[1]} becomes its checkpoint`],
    [`^upgrade ${SQ}$`, m => `visits the upgrade station on ${m[1]}`],
    ["^cards (.*)$", m => `unlocks the ${m[1].split(" ").join(" and ")} cards`],
    ["^option ([A-Z]{2})$", m => `takes the ${OPTION[m[1]] || m[1]} option from the armoury`],
    ["^real$", () => "becomes solid again (no longer virtual)"],
  ].map(([re, f]) => [new RegExp(re), f]);
  const checkWords = v => String(v).split(/,\s*/).filter(x => x && x !== "-").map(x => {
    for (const [re, f] of CHECK_WORDS) { const m = re.exec(x.trim()); if (m) return f(m); }
    return x;
  });
  const cardWords = c => { const [t, n] = String(c).split(" "); return `“${CARD[t] || t}” (priority ${n})`; };
  const list = xs => xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
  const ordinal = r => { const n = Number(r), t = n % 100; return `${n}${t > 10 && t < 14 ? "th" : ({1: "st", 2: "nd", 3: "rd"})[n % 10] || "th"}`; };
  // a stage sentence's clauses, each with its own subject, joined by "; " (audit: "a wall laser
  // hits it (1 HP lost) and touches flag 3" read as the laser touching the flag; "moves to r3c9
  // and enters a teleporter and is moved to r9c1"): a clause without one gets "it"
  const OWN_SUBJECT = /^(a |an |the |its |it |register |r\d|[A-Z])/;
  // (the first clause follows the robot's name: "Red's robot plays …", "Red's robot's laser hits
  // Blue", "Red's robot: a belt carries it to r2c3")
  const clauses = (w, bits) => !bits.length ? `${w} does nothing` : bits.map((b, k) => k ? (OWN_SUBJECT.test(b) ? b : `it ${b}`) :
    /^its /.test(b) ? `${w}'s ${b.slice(4)}` : OWN_SUBJECT.test(b) ? `${w}: ${b}` : `${w} ${b}`).join("; ");
  function sectionSentences(sec, who) {  // who(nameCell) -> "Red's robot"
    const rows = sec.rows || [], get = (label, i) => { const r = rows.find(x => x[0] === label); const v = r ? r[i + 1] : undefined; return v && v !== "-" ? v : null; };
    if (sec.kind === "result") {
      const head = rows[0] || [], STATUS = {winner: "the winner", unfinished: "did not finish", finished: "finished", out: "out"};
      return rows.slice(1).map(r => {
        const cell = k => r[head.indexOf(k)];
        const bits = [];
        const flags = String(cell("FLAGS") || "").split(/,\s*/).filter(f => f && f !== "-");
        if (head.includes("FLAGS")) bits.push(flags.length ? `touched flag${flags.length === 1 ? "" : "s"} ${list(flags)}` : "touched no flag");
        const count = (n, one, many) => `${n} ${Number(n) === 1 ? one : many}`;
        if (head.includes("TURNS")) bits.push(cell("TURNS") && cell("TURNS") !== "-" ? `left room 5 on turn ${cell("TURNS")}` : count(cell("ROOMS"), "room done", "rooms done"));
        if (head.includes("ROBOTS")) bits.push(count(cell("ROBOTS"), "robot left", "robots left"));
        if (head.includes("LOST")) bits.push(Number(cell("LOST")) ? count(cell("LOST"), "robot lost", "robots lost") : "no robot lost");
        const st = cell("STATUS");
        // "1st: Blue, the winner — touched flags 1, 2 and 3; 3 robots left" (audit: "Place 1: Blue — flags 1,2,3, …")
        return `${ordinal(cell("RANK"))}: ${who(cell("NAME")).replace(/'s robot$/, "")}${st && st !== "-" ? `, ${STATUS[st] || st}` : ""} — ${bits.join("; ")}.`;
      });
    }
    const names = (rows.find(r => r[0] === "NAME") || []).slice(1);
    return names.map((n, i) => {
      const w = who(n), mode = get("MODE", i) || "";
      if (sec.kind === "fused") {
        const regs = String(get("FUSED", i) || "").split(/,\s*/).filter(Boolean).map(x => { const [r, t] = x.split(" "); return `${r.replace(/^R/, "register ")} (“${CARD[t] || t}”)`; });
        return `${w}: ${list(regs)} ${regs.length === 1 ? "is" : "are"} locked by damage; ${regs.length === 1 ? "its card plays" : "their cards play"} every turn until repaired.`;
      }
      if (sec.kind === "end") {
        const bits = [];
        const room = get("ROOM", i);
        if (/destroyed/.test(mode)) bits.push(get("REINST", i) ? `was destroyed; a new robot comes back on its checkpoint ${get("REINST", i)}` : "was destroyed and comes back in a later turn");
        else if (mode === "out") bits.push("is out of the game");
        if (room) bits.push(/^room /.test(room) ? `is in ${room}` : /^exited/.test(room) ? `has left room ${room.split(" ")[1]}` :
                              /^transit/.test(room) ? `is travelling back through the rooms (passing room ${room.split(" ")[1]})` : room === "done" ? "has finished all five rooms" : room);
        if (get("FLAGS", i)) bits.push(`has touched flag${get("FLAGS", i).includes(",") ? "s" : ""} ${list(get("FLAGS", i).split(/,\s*/))}`);
        const rep = get("REPAIR", i);
        if (rep) bits.push(rep.split(/,\s*/).map(x => /^\+(\d+) HP$/.test(x) ? `repairs ${x.slice(1)}` : x.replace(/^option ([A-Z]{2})$/, (_, o) => `gets the ${OPTION[o] || o} option`)).join(" and "));
        const rb = get("REBOOT", i);
        if (rb && rb !== "out") {
          const [hp, ...rest] = rb.split(/,\s*/);
          const robots = rest.find(x => /robots?$/.test(x));
          // F-1.1: a player owns three robots in all (lives); "2 robots left" alone read as robots on the board
          bits.push(`has ${hp}${robots ? ` and ${robots} left, this one included` : ""}`);
          if (rest.includes("reboot")) bits.push("will reboot next turn (sits it out and comes back with full HP)");
        }
        return `${w} ${list(bits) || "waits"}.`;
      }
      // a stage (one register)
      if (/exited/.test(mode)) return `${w} has already left the room.`;
      if (/transit/.test(mode)) return `${w} is travelling back through the rooms.`;
      if (/destroyed|out/.test(mode)) return `${w} is not on the board (${/out/.test(mode) ? "out of the game" : "destroyed"}).`;
      if (/parked/.test(mode)) return `${w} waits on its gate.`;
      const bits = [];
      const card = get("CARDS", i);
      if (/reboot/.test(mode)) bits.push("is rebooting and plays no card");
      else if (card) bits.push(`plays ${cardWords(card)}`);
      const moves = get("MOVES", i), mech = get("MECH", i), hits = get("HITS", i), check = get("CHECK", i);
      // the robot whose card has priority p this register (the CARDS row: "FWD3 830")
      const cardOwner = p => { const j = names.findIndex((_, k) => String(get("CARDS", k) || "").split(" ")[1] === String(p)); return j < 0 ? null : who(names[j]).replace(/^Robot /, "robot "); };
      // the robots whose laser hit this one: their HITS cells name it (F-9.6)
      const key = String(n).split(" ")[0], hitsOf = j => String(get("HITS", j) || "").split(/,\s*/);
      const shooters = names.map((m, j) => j !== i && hitsOf(j).includes(key) ? who(m) : null).filter(Boolean);
      if (moves) bits.push(...cellEvents(moves, cardOwner).map(x => card && x === "does nothing" ? "" : x).filter(Boolean));
      if (mech) bits.push(...cellEvents(mech, cardOwner, {shooters}));
      if (hits) {
        const parts = String(hits).split(/,\s*/), eyes = parts.filter(x => /^eye /.test(x)), hit = parts.filter(x => !/^eye /.test(x));
        if (hit.length) bits.push(`its laser hits ${list(hit.map(h => who(h).replace(/'s robot$/, "")))}`);
        eyes.forEach(x => bits.push(eventWords(x, null, {self: w})));
      }
      if (check) bits.push(...checkWords(check));
      const hp = get("HP", i);
      const hurt = /HP lost|loses \d+ HP|destroyed/.test(bits.join(" "));
      return `${clauses(w, bits)}${hurt && hp ? `; it has ${hp} HP left` : ""}.`;
    });
  }
  // The end screen in words (issue 23 item 2): F-8.1 to F-8.7 as sentences, flags as the score.
  function outcome(o, seat, ui) {
    // flags touched (F-7): the outcome's own count; a resignation's outcome has none (its scores are
    // 1 for the winner, 0 for the rest, no flags): counted from the last view's players instead
    const name = s => (kit.seats[s] || {name: s}).name, last = ui && ui.snap && ui.snap.view;
    const fromView = last && Array.isArray(last.players) ? Object.fromEntries(last.players.map(p => [p.name, (p.flags || []).length])) : null;
    const flags = (o.details || {}).flags || fromView || {};
    const seats = Object.keys(o.scores || flags), solo = seats.length === 1;
    const me = seat && seats.includes(seat) ? seat : null;
    const subj = s => (s === me ? "you" : name(s)), Subj = s => { const t = subj(s); return t[0].toUpperCase() + t.slice(1); };
    const winners = o.winner ? [o.winner] : solo ? [] : ((o.ranking || [])[0] || []).filter(s => o.reason === "flags" || (o.reason === "turn_limit" && flags[s] > 0));
    const f = k => `${k} flag${k === 1 ? "" : "s"}`;
    const scores = solo ? `Flags touched: ${flags[seats[0]] || 0}.` : `Flags touched: ${seats.map(s => `${name(s)} ${flags[s] || 0}`).join(", ")}.`;
    const out = {scores};
    const w = winners.length ? winners.map(subj).join(" and ") : null;
    if (o.reason === "flags") out.why = `${w ? w[0].toUpperCase() + w.slice(1) : "Someone"} touched the last flag first.`;
    else if (o.reason === "elimination") out.why = w ? `Every other robot is out of lives: ${w} ${winners.includes(me) ? "are" : "is"} the last one playing.` : "Every player ran out of robots.";
    else if (o.reason === "resign") {
      const quitters = seats.filter(s => !winners.includes(s));
      out.why = me && !winners.includes(me) ? "You resigned." : quitters.length === 1 ? `${Subj(quitters[0])} resigned.` :
        (w ? `The others resigned or are out; ${w} ${winners.includes(me) ? "are" : "is"} the last one playing.` : "A player resigned.");
    }
    else if (o.reason === "turn_limit") out.why = w ? `The turn limit was reached; ${w} touched the most flags (${f(flags[winners[0]])}).` :
      (solo ? `The turn limit was reached before ${me ? "you" : name(seats[0])} touched every flag (${f(flags[seats[0]] || 0)} touched).` : "The turn limit was reached and nobody touched a flag: a draw.");
    else if (o.reason === "time") out.why = "A player ran out of time.";
    if (solo && me) out.head = o.winner === me ? "You won" : "You finished";
    if (solo && !me) out.head = o.winner ? `${name(o.winner)} won` : `${name(seats[0])} finished`;
    if (!o.winner && winners.length > 1) out.head = me ? (winners.includes(me) ? "You share the win" : "You lost") : `Shared win: ${winners.map(name).join(" and ")}`;
    return out;
  }
  const kit = {
    outcome,
    // "expected 5 cards for free registers 1..5 (registers 4, 5 are fused…), got 2" (F-5.3, F-5.4; the
    // message bots read) as a player reads it
    refusal: m => String(m).replace(/expected (\d+) cards? for free registers 1\.\.\d+(?: \(registers ([\d, ]+) are fused and cannot be changed\))?, got (\d+)/,
      (_, k, fused, got) => `put ${cardsWord(Number(k))} in your registers (${Number(got) === 0 ? "none is there yet" : `there ${got === "1" ? "is 1" : `are ${got}`}`})` +
        (fused ? `; registers ${fused} are locked by damage and keep their cards` : "")),
    keys: "Hand: Enter puts the card in the next free register. Registers: Enter or Delete takes a card back, Shift+Left / Shift+Right (or ◀ ▶) move it earlier or later. Reboot: Space on the checkbox.",
    letterPieces: true,
    seats: {p1: {letter: "1"}, p2: {letter: "2"}, p3: {letter: "3"}, p4: {letter: "4"}},  // names, colours: the page's palette
    grid: {
      square: (c, r, m) => `r${m.rows - r}c${c + 1}`,
      cell: (name, m) => { const s = parseSq(name); return s ? [s[1] - 1, m.rows - s[0]] : null; },
    },
    summary(view, snap, ui) {
      Object.assign(kit.seats, seatsOf(view, ui));
      return (view.players || []).map(p => ({seat: p.name, lines: [
        p.out ? "out of the game" : `robot on ${p.robot && p.robot.square || "—"} facing ${p.robot && p.robot.facing || "?"}, ${p.robot ? p.robot.hp : "?"} HP` +
          (p.robot && p.robot.mode === "virtual" ? " (virtual: passes through robots)" : "") + (p.robot && p.robot.rebooting ? ", rebooting" : ""),
        `${p.robots_left} robot${p.robots_left === 1 ? "" : "s"} left · checkpoint ${p.checkpoint}`,
        `flags touched: ${(p.flags || []).length ? p.flags.join(", ") : "none"} · ${p.next_flag > flagCount(view) && flagCount(view) ? "every flag touched" : `next flag: F${p.next_flag}`}`]}));
    },
    awaited: view => `click ${cardsWord(view.free_registers || 0)} from your hand into your registers (the dotted path shows where ${(view.free_registers || 0) === 1 ? "it" : "they"} would take your robot)`,
    warnings(view) {
      const out = [];
      if (view.free_registers === 0) out.push("All your registers are locked (low HP): you send no cards this turn.");
      return out;
    },
    describe(e) {
      if (e.kind === "hand") return null;  // the new hand is shown in the order controls
      const said = kit.sectionWords(e);
      if (!said) return undefined;
      const head = e.kind === "stage" ? `Register ${e.stage}: ` : e.kind === "end" ? "End of turn: " : e.kind === "fused" ? "Locked registers: " : "Result: ";
      return head + said.join(" ");
    },
    sectionWords(sec) {  // a report section in sentences (issue 23 item 2); null: not a report table
      if (!["stage", "end", "fused", "result"].includes(sec.kind)) return null;
      return sectionSentences(sec, n => { const key = String(n).split(" ")[0], info = kit.seats[key]; return `${info ? info.name : key}'s robot`; });
    },
    lastMoves(events, ui) {  // every robot's path over the stages of the last turn, from the MOVES rows
      return ui.stageMoves(events, (n, e, m) => `${n}, stage ${e.stage}: ${m}`,
                           n => (kit.seats[n.split(" ")[0]] || {}).colour);
    },
    legend: [  // the board's elements: the drawn legend above (the game's legend hook); these: the page's marks
      ["white badge on a robot", "its player's seat number 1-8"],
      ["dotted line", "where each robot went during the last turn"],
      ["green dashed arrows", "your planned program on this board: walls, conveyors, pushers and pits included, other robots ignored"],
      ["Cards", "each card moves or turns your robot (move 1, 2 or 3 forward, back up, turn left or right, U-turn, slide); its priority number decides who moves first in a register (higher first)"],
    ],
    entry(box, view, h, ui) {
      const el = ui.el;
      const hand = view.hand || [], k = view.free_registers || 0, prog = [];
      const me = (view.players || []).find(p => p.seat === view.you) || {};
      const handBox = el("div", {class: "cards", role: "group", "aria-label": "your hand"}), regs = el("ol", {class: "registers", "aria-label": "your registers"});
      const reboot = el("input", {type: "checkbox", id: "reboot", dataset: {reboot: "1"}});
      const locked = el("ol", {class: "locked-registers", "aria-label": "your locked registers (their cards play every turn until repaired)"});
      function redraw(push = true) {
        handBox.innerHTML = ""; regs.innerHTML = "";
        hand.forEach(c => { if (!prog.includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)},
          title: cardText(c), "aria-label": cardText(c),
          onclick: () => { if (prog.length < k) { prog.push(c); redraw(); } else ui.say(`All ${k} registers are full: click a register card to take it back.`, true); }}, cardLabel(c))); });
        for (let i = 0; i < k; i++) regs.append(el("li", {}, ...(prog[i] ? ui.registerCard(prog, i, redraw, {id: cardId, describe: cardText, label: cardLabel}) : [el("span", {class: "empty"}, "empty")])));
        // F-7.4, F-7.5: the locked registers after the free ones, with the cards they keep and play
        // in their register every turn until repaired (audit: the panel showed only the free ones)
        // (a list of its own after the free registers: ".registers li" stays the registers to fill)
        locked.innerHTML = "";
        Object.entries((me.robot || {}).fused || {}).sort((a, b) => a[0] - b[0]).forEach(([n, c]) => locked.append(el("li", {value: Number(n)},
          el("span", {class: "locked-card", dataset: {lockedReg: n}, title: `register ${n}, locked by damage: ${cardText(c)}`}, cardLabel(c), " (locked by damage)"))));
        locked.hidden = !locked.children.length;
        ui.board.clear();
        const r = me.robot || {};
        if (r.square) ui.board.mark(r.square, "sel", "your robot");
        ui.board.draw();
        // the program's path on this board comes from the rules (the plan hook, F-6)
        if (r.square && prog.length) ui.plan({cards: prog.slice()}, steps => {
          ui.board.clear();
          ui.board.mark(r.square, "sel", "your robot");
          ui.drawPlan(steps);
          ui.board.draw();
        });
        if (push) ui.setOrders({type: "program", cards: prog.map(cardId), reboot: reboot.checked});
      }
      reboot.addEventListener("change", () => redraw());
      box.append(el("p", {class: "hint"}, `Click ${cardsWord(k)} into your registers, in the order they run (click a register to take its card back). Higher priority moves first.`),
        el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, locked,
        el("label", {}, reboot, " Reboot next turn (skip a turn, back to full HP)"));
      redraw();
      return {load(p) {
        prog.length = 0;
        ((p && p.cards) || []).forEach(id => { const c = hand.find(x => cardId(x) === Number(id)); if (c && !prog.includes(c) && prog.length < k) prog.push(c); });
        reboot.checked = !!(p && p.reboot);
        redraw(false);
      }};
    },
  };
  (window.botwarsGames = window.botwarsGames || {}).factory = kit;
})();
