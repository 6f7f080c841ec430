// The geeko seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the
// kit's shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  // a seat's name and colour from the page's ui (the replay viewer's too), else this kit's own
  const seatInfoOf = (ui, s) => (ui && ui.seatInfo ? ui.seatInfo(s) : (kit.seats || {})[s] || {name: String(s)});
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
  const parseSq = s => { const m = /^r(\d+)c(\d+)$/.exec(s || ""); return m ? [Number(m[1]), Number(m[2])] : null; };
  const seatName = n => `p${n}`;
  // a robot off the board by its mode (G-10.2): exited (left the room, waits for the other),
  // transit (travelling back through the rooms, G-5.5), destroyed (back in a later turn)
  const ROBOT_AWAY = r => r.mode === "exited" ? "left the room (waiting for the other)"
    : r.mode === "transit" || r.transit ? "destroyed; its replacement is on its way through the rooms (it arrives in a later turn)"
    : /destroyed/.test(r.mode || "") ? "destroyed (it comes back in a later turn)" : "not on the board";
  // a standings row's status (the engine's words) as the page says it
  const STANDING = {winner: "won", finished: "left room 5", unfinished: "did not finish", out: "out of the race (no robot left)"};
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
        const cells = String(get("FUSED", i) || "").split(/,\s*/).filter(Boolean);
        const regs = cells.map(x => { const [r, t] = x.split(" "); return `${r.replace(/^R/, "register ")} (“${CARD[t] || t}”)`; });
        // G-4.3, G-4.7: register i locks while HP ≤ i, so the free registers are 1 to (lowest locked − 1);
        // a locked card plays only when the turn reaches its register: when the program fills every
        // free register (or none is free); a shorter program stops at L (audit: "their cards play
        // every turn" while the log said "Register 7: Robot A does nothing")
        const free = Math.min(...cells.map(x => Number(x.split(" ")[0].replace(/^R/, "")))) - 1, one = regs.length === 1;
        return `${w}: ${list(regs)} ${one ? "is" : "are"} locked by damage and keep${one ? "s its card" : " their cards"} until repaired. ` +
          (free < 1 ? `No register is free, so ${one ? "it plays" : "they play"} every turn.` :
            `${one ? "It plays" : "They play"} only in a turn whose program fills ${free === 1 ? "its 1 free register" : `all ${free} free registers (1 to ${free})`}; a shorter program stops before ${one ? "it" : "them"}.`);
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
          bits.push(`has ${hp}${robots ? ` and ${robots} left` : ""}`);
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
  const kit = {
    keys: "Robot A / B: Enter on its button chooses it. Hand: Enter puts the card in the chosen robot's next register. Registers: Enter or Delete takes a card back, Shift+Left / Shift+Right (or ◀ ▶) move it. Reboot: the drop-down (arrow keys).",
    seats: {p1: {letter: "1"}, p2: {letter: "2"}, p3: {letter: "3"}, p4: {letter: "4"}},  // names, colours: the page's palette
    grid: {
      square: (c, r, m) => `r${m.rows - r}c${c + 1}`,
      cell: (name, m) => { const s = parseSq(name); return s ? [s[1] - 1, m.rows - s[0]] : null; },
    },
    summary(view, snap) {
      kit.me = view.you ? seatName(view.you) : null;  // whose robots the report sentences call "Robot A"
      const out = [];
      // turns played: view.turn is the turn being programmed, or the last one once the match is over
      const used = view.phase === "over" ? (view.turn || 0) : Math.max(0, (view.turn || 1) - 1), limit = view.config && view.config.turn_limit;
      if (view.you) {
        // G-9.1: once the player finished, both robots are through room 5 (audit: "left the room
        // (waiting for the other)" stayed beside both after the finish)
        const done = typeof view.finished === "number";
        const rs = Object.entries(view.robots || {}).map(([k, r]) =>
          `robot ${k}: ${done ? `finished (left room 5 on turn ${view.finished})` : r.square ? `${r.square} facing ${r.facing}, ${r.hp} HP` : ROBOT_AWAY(r)}${r.rebooting && !done ? ", rebooting" : ""}`);
        out.push({seat: seatName(view.you), lines: [`room ${view.room}/5`, `turns used: ${used}${limit ? ` (limit ${limit})` : ""} — your score is the turn you leave room 5; lower is better`, ...rs]});
      }
      if (!view.you) out.push({title: "Spectators", lines: ["Each player races through a private copy of the rooms; during the game only room numbers are public. The robots appear in the replay once the match is over."]});
      (view.others || []).forEach(o => out.push({seat: seatName(o.seat), lines: [`room ${o.room}/5`,
        o.finished ? "finished" : (o.out ? "out" : (view.phase === "over" ? "did not finish" : "still playing")),
        view.you && view.phase !== "over" ? "(their robots are private until the end)" : ""].filter(Boolean)}));
      if (view.result && view.result.standings) out.push({title: "Standings", lines: view.result.standings.map(s =>
        `${s.rank}. ${((kit.seats || {})[s.seat] || {name: s.seat}).name} — ${STANDING[s.status] || s.status}${s.score !== undefined ? `, score ${s.score}` : ""}`)});
      return out;
    },
    // what to do now, for the robots actually on the board (newcomer audit: "click robot A or B"
    // was asked with one of them, or both, away between rooms)
    awaited: v => {
      const on = Object.entries((v && v.robots) || {}).filter(([, r]) => r && r.square).map(([k]) => k);
      if (!on.length) return "neither of your robots is on the board this turn: submit to go on (there is nothing to program)";
      if (on.length === 1) return `program robot ${on[0]}, your only robot on the board now: click cards into its registers`;
      return "choose robot A or B (click it on the board), then click cards into its registers; both robots get the same number of cards";
    },
    warnings(view, snap) {
      const out = [];
      if (view.you && typeof view.finished === "number" && snap && snap.status !== "ended")  // done, the race goes on
        out.push(`You are done: your robots left room 5 on turn ${view.finished} (your score; lower is better). The match goes on until the other players finish or the turn limit.`);
      else if (view.you && snap && !snap.your_turn && snap.status !== "ended" && Object.values(view.robots || {}).every(r => !r.square))
        out.push("Your robots are between rooms or travelling back: no cards for you this turn. The page moves on by itself.");
      const gates = Object.entries((view.devices || {}).gates || {});
      if (gates.length && gates.every(([, open]) => !open)) out.push(`Every gate of this room is closed now (${gates.map(g => g[0]).join(", ")}): find the switch with the gate's number in its corner: it opens the gate.`);
      return out;
    },
    describe(e, ui) {
      if (e.kind === "hand") return null;
      if (e.kind === "resign") return `${seatInfoOf(ui, e.seat).name} resigned.`;
      const said = kit.sectionWords(e);
      if (!said) return undefined;
      const head = e.kind === "stage" ? `Register ${e.stage}: ` : e.kind === "end" ? "End of turn: " : e.kind === "fused" ? "Locked registers: " : "Result: ";
      return head + said.join(" ");
    },
    sectionWords(sec) {  // a report section in sentences (issue 23 item 2); null: not a report table
      if (!["stage", "end", "fused", "result"].includes(sec.kind)) return null;
      return sectionSentences(sec, n => {  // "p1-A": your robot A, or Red's robot A (after the end)
        const m = /^(p\d+)(?:-([AB]))?$/.exec(String(n));
        if (!m) return `${n}'s robot`;
        const owner = (kit.seats[m[1]] || {name: m[1]}).name;
        if (!m[2]) return `${owner}'s robot`;
        return m[1] === kit.me ? `Robot ${m[2]}` : `${owner}'s robot ${m[2]}`;
      });
    },
    lastMoves(events, ui) {  // the robots' paths over the stages of the last turn
      return ui.stageMoves(events, (n, e, m) => `robot ${n}, stage ${e.stage}: ${m}`);
    },
    legend: [  // the board's elements: the drawn legend above (the game's legend hook); these: the page's marks
      ["dotted line", "where your robots went during the last turn"],
      ["green dashed arrows", "your planned programs on this board (walls, conveyors and pits included; each robot alone)"],
      ["Cards", "each card moves or turns a robot (move 1, 2 or 3 forward, back up, turn left or right, U-turn, slide, do nothing); its priority number decides who moves first in a register (higher first)"],
    ],
    entry(box, view, h, ui) {
      const el = ui.el;
      const hand = view.hand || [], all = view.robots || {};
      const robots = Object.keys(all).filter(r => all[r].free > 0 && all[r].square);
      const prog = Object.fromEntries(robots.map(r => [r, []]));
      let cur = robots[0];
      const handBox = el("div", {class: "cards", role: "group", "aria-label": "your hand"}), regs = el("div", {class: "registers-multi"});
      // G-8.1, F-7.7: only a robot on the board may be declared (parked, exited, in transit or
      // destroyed ones are refused); audit: "reboot robot A" was offered while A had left the room
      const canReboot = Object.keys(all).filter(r => all[r].square && all[r].mode !== "parked");
      const reboot = el("select", {id: "reboot", "aria-label": "reboot"}, el("option", {value: ""}, "no reboot"),
        ...canReboot.map(r => el("option", {value: r}, `reboot robot ${r}`)));
      reboot.addEventListener("change", () => redraw());
      const used = () => Object.values(prog).flat();
      // a robot's locked registers (G-4.3) with their cards, under its program; G-4.7: they play only
      // if the program fills every free register (audit: the panel showed none of them)
      function lockedRow(r, robot) {
        const cells = Object.entries(robot.fused || {}).sort((a, b) => a[0] - b[0]);
        if (!cells.length) return null;
        const row = el("div", {class: "regrow locked-regs", role: "group", "aria-label": `robot ${r} locked registers`},
          el("span", {class: "hint"}, !robot.free ? `Robot ${r} (${robot.square}): every register is locked by damage; these cards play every turn:` :
            `Locked by damage (they play only if robot ${r}'s program fills ${robot.free === 1 ? "its 1 free register" : `all ${robot.free} free registers`}):`));
        cells.forEach(([n, c]) => row.append(el("span", {class: "locked-card", dataset: {lockedReg: n}, title: `register ${n}, locked: ${cardText(c)}`},
          `Register ${n}: `, cardLabel(c))));
        return row;
      }
      function redraw(push = true) {
        handBox.innerHTML = ""; regs.innerHTML = "";
        hand.forEach(c => { if (!used().includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)}, title: cardText(c),
          "aria-label": cardText(c),
          onclick: () => { if (cur && prog[cur].length < all[cur].free) { prog[cur].push(c); redraw(); } else ui.say(`Robot ${cur} has no free register left.`, true); }}, cardLabel(c))); });
        robots.forEach(r => {
          const row = el("div", {class: "regrow" + (r === cur ? " sel" : ""), role: "group", "aria-label": `robot ${r} registers`},
            el("button", {type: "button", class: "robot" + (r === cur ? " sel" : ""), dataset: {robot: r}, "aria-pressed": String(r === cur),
              onclick: () => { cur = r; redraw(); }}, `Robot ${r} (${all[r].square}: ${prog[r].length} of ${all[r].free} registers filled)`));
          prog[r].forEach((c, i) => row.append(...ui.registerCard(prog[r], i, redraw, {id: cardId, describe: cardText, label: cardLabel, who: `robot ${r}`})));
          regs.append(row);
          const locked = lockedRow(r, all[r]);
          if (locked) regs.append(locked);
        });
        Object.keys(all).filter(r => !robots.includes(r) && all[r].square && all[r].mode !== "parked" && !all[r].rebooting).forEach(r => {  // fully locked (free 0)
          const locked = lockedRow(r, all[r]);
          if (locked) regs.append(locked);
        });
        const L = robots.length ? Math.min(...robots.map(r => prog[r].length)) : 0;
        const longer = robots.filter(r => prog[r].length > L);
        const empty = robots.filter(r => !prog[r].length);
        // G-4.5: both robots run the same number of registers (1 to 9): a robot left without
        // cards would throw the other's away, so Submit waits for it (newcomer audit)
        // unequal programs: Submit waits (it used to send the first L cards of each and say "Only
        // the first 1 card of robot A count", while the board drew the longer program)
        const counts = robots.map(r => `robot ${r} has ${prog[r].length} card${prog[r].length === 1 ? "" : "s"}`).join(" and ");
        note.textContent = L && longer.length ? `${counts[0].toUpperCase()}${counts.slice(1)}: every robot runs the same number of registers, so give them the same number.` : "";
        if (empty.length && empty.length < robots.length)
          ui.ready(false, `Give robot ${empty.join(" and ")} cards too: both robots run the same number of registers.`);
        else if (L && longer.length)
          ui.ready(false, `Give your robots the same number of cards (${counts}): add cards to the shorter program or take some back from the longer.`);
        else if (!L && robots.length)
          ui.ready(false, robots.length === 1 ? `Click cards into robot ${robots[0]}'s registers (at least one).` :
            "Click cards into your robots' registers (at least one each).");
        else ui.ready(true);
        ui.board.clear();
        robots.forEach(r => { if (r === cur) ui.board.mark(all[r].square, "sel", `robot ${r} (chosen)`); });
        ui.board.draw();
        // the programs' paths on this room come from the rules (the plan hook), each robot alone
        if (robots.some(r => prog[r].length)) {
          const body = {};
          robots.forEach(r => { body[r] = prog[r].slice(); });
          ui.plan(body, steps => {
            ui.board.clear();
            robots.forEach(r => { if (r === cur) ui.board.mark(all[r].square, "sel", `robot ${r} (chosen)`); });
            ui.drawPlan(steps, s => `robot ${s.robot}, `);
            ui.board.draw();
          });
        }
        if (push) {
          const p = {type: "program", length: L, reboot: reboot.value || null};
          robots.forEach(r => { p[r] = prog[r].slice(0, L).map(cardId); });
          ui.setOrders(p);
        }
      }
      const note = el("p", {class: "cmdhelp", role: "status"});
      ui.board.onClick(sq => { const r = robots.find(x => all[x].square === sq); if (r) { cur = r; redraw(false); } });
      box.append(el("p", {class: "hint"}, "Choose robot A or B (on the board or its button), then click cards into its registers. Both robots get the same number of cards. " +
        "If no robot can use any card, send no cards at all."),
        el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, note, el("label", {}, "Reboot ", reboot));
      redraw();
      return {load(p) {
        robots.forEach(r => {
          prog[r] = [];
          ((p && p[r]) || []).forEach(id => { const c = hand.find(x => cardId(x) === Number(id)); if (c && !used().includes(c)) prog[r].push(c); });
        });
        reboot.value = (p && p.reboot) || "";
        redraw(false);
      }};
    },
  };
  // G-9.3: the finished players of rank 1 all win (a tie on score and robots shares the win);
  // if nobody finished, nobody wins. The result banner asks this rather than reading "draw".
  kit.winners = o => {
    const first = (o.ranking || [])[0] || [], turns = (o.details || {}).turns || {};
    const won = first.filter(s => turns[s] !== undefined && turns[s] !== "-");
    return won.length ? won : [];
  };
  // The end screen in words (issue 23 item 2; G-9.1 to G-9.5): the score is the turn the robots
  // left room 5, lower is better; a solo run "finishes" whatever its end.
  kit.outcome = (o, seat) => {
    const d = o.details || {}, turns = d.turns || {}, rooms = d.rooms || {};
    const name = s => (kit.seats[s] || {name: s}).name;
    const seats = Object.keys(o.scores || turns), solo = seats.length === 1;
    const me = seat && seats.includes(seat) ? seat : null;
    const subj = s => (s === me ? "you" : name(s)), Subj = s => { const t = subj(s); return t[0].toUpperCase() + t.slice(1); };
    const done = s => turns[s] !== undefined && turns[s] !== "-";
    const run = s => done(s) ? `left room 5 on turn ${turns[s]}` : `completed ${rooms[s] || 0} of the 5 rooms`;
    const winners = kit.winners(o), out = {};
    const ended = {finished: "Every player has finished or is out.", turn_limit: "The turn limit was reached.", resign: ""}[o.reason];
    if (solo) {
      const s = seats[0];
      out.head = me ? "You finished" : `${name(s)} finished`;
      out.why = (o.reason === "resign" ? `${Subj(s)} resigned; ${subj(s)} ${run(s)}.` :
        done(s) ? `${Subj(s)} ${run(s)}; lower is better.` : `The turn limit came first: ${subj(s)} ${run(s)}.`);
      out.scores = "";
      return out;
    }
    const quitters = o.reason === "resign" ? seats.filter(s => !done(s) && !winners.includes(s)) : [];
    out.why = [o.reason === "resign" && me && quitters.includes(me) && !winners.length ? "You resigned." : ended || "",
      winners.length ? `${winners.map(subj).join(" and ").replace(/^./, c => c.toUpperCase())} left room 5 first (on turn ${turns[winners[0]]}); lower is better.` :
        "Nobody left room 5, so nobody wins."].filter(Boolean).join(" ");
    out.scores = `Final: ${seats.map(s => `${name(s)} ${run(s)}`).join("; ")}.`;
    return out;
  };
  (window.botwarsGames = window.botwarsGames || {}).geeko = kit;
})();
