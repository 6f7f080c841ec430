// The geeko seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the
// kit's shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  const CARD = {FWD1: "move 1 forward", FWD2: "move 2 forward", FWD3: "move 3 forward", RVS1: "back up 1",
                RVS2: "back up 2", RVS3: "back up 3", RT90: "turn right", LF90: "turn left", UTRN: "U-turn",
                SLF1: "slide 1 left", SRT1: "slide 1 right", IDLE: "do nothing"};
  const cardId = c => { const p = String(c).split(" "); return Number(p[p.length - 1]); };
  const cardText = c => { const [t, n] = String(c).split(" "); return `${CARD[t] || t} (priority ${n})`; };
  const parseSq = s => { const m = /^r(\d+)c(\d+)$/.exec(s || ""); return m ? [Number(m[1]), Number(m[2])] : null; };
  const seatName = n => `p${n}`;
  const kit = {
    keys: "Robot A / B: Enter on its button chooses it. Hand: Enter puts the card in the chosen robot's next register. Registers: Enter or Delete takes a card back, Shift+Left / Shift+Right (or ◀ ▶) move it. Reboot: the drop-down (arrow keys).",
    seats: {p1: {letter: "1"}, p2: {letter: "2"}, p3: {letter: "3"}, p4: {letter: "4"}},  // names, colours: the page's palette
    grid: {
      square: (c, r, m) => `r${m.rows - r}c${c + 1}`,
      cell: (name, m) => { const s = parseSq(name); return s ? [s[1] - 1, m.rows - s[0]] : null; },
    },
    summary(view, snap) {
      const out = [];
      const used = Math.max(0, (view.turn || 1) - 1), limit = view.config && view.config.turn_limit;
      if (view.you) {
        const rs = Object.entries(view.robots || {}).map(([k, r]) =>
          `robot ${k}: ${r.square ? `${r.square} facing ${r.facing}, ${r.hp} HP` : (r.transit ? "left the room (waiting for the other)" : "not on the board")}${r.rebooting ? ", rebooting" : ""}`);
        out.push({seat: seatName(view.you), lines: [`room ${view.room}/5`, `turns used: ${used}${limit ? ` (limit ${limit})` : ""} — your score is the turn you leave room 5; lower is better`, ...rs]});
      }
      if (!view.you) out.push({title: "Spectators", lines: ["Each player races through a private copy of the rooms; during the game only room numbers are public (G-10.6). The robots appear in the replay once the match is over."]});
      (view.others || []).forEach(o => out.push({seat: seatName(o.seat), lines: [`room ${o.room}/5`,
        o.finished ? "finished" : (o.out ? "out" : "playing"), view.you ? "(their robots are private until the end, G-10.6)" : ""].filter(Boolean)}));
      if (view.result && view.result.standings) out.push({title: "Standings", lines: view.result.standings.map(s =>
        `${s.rank}. ${seatName(s.seat)} — ${s.status}${s.score !== undefined ? `, score ${s.score}` : ""}`)});
      return out;
    },
    awaited: () => "choose robot A or B (click it on the board), then click cards into its registers; both robots get the same number of cards",
    warnings(view) {
      const out = [];
      const gates = Object.entries((view.devices || {}).gates || {});
      if (gates.length && gates.every(([, open]) => !open)) out.push(`Every gate of this room is closed now (${gates.map(g => g[0]).join(", ")}): find the switch that opens it.`);
      return out;
    },
    describe(e) {
      if (e.kind === "hand") return null;
      // a row's label, then the robot's entry, unless the entry already names it ("ROOM" + "room 1")
      const cellText = (label, v) => String(v).toLowerCase().startsWith(label.toLowerCase() + " ") ? String(v) : `${label.toLowerCase()} ${v}`;
      const lines = rows => {
        const names = (rows.find(r => r[0] === "NAME") || []).slice(1);
        return names.map((n, i) => `robot ${String(n).replace(/^p\d+-/, "")}: ` + rows.filter(r => !["NAME", "MODE"].includes(r[0]) && r[i + 1] && r[i + 1] !== "-")
          .map(r => cellText(r[0], r[i + 1])).join("; ")).join(" | ");
      };
      if (e.kind === "stage") return `Stage ${e.stage}: ${lines(e.rows || [])}`;
      if (e.kind === "end") return `End of turn: ${lines(e.rows || [])}`;
      if (e.kind === "fused") return `Locked registers: ${lines(e.rows || [])}`;
      return undefined;
    },
    lastMoves(events, ui) {  // the robots' paths over the stages of the last turn
      return ui.stageMoves(events, (n, e, m) => `robot ${n}, stage ${e.stage}: ${m}`);
    },
    legend: [  // the board's elements: the drawn legend above (the game's legend hook); these: the page's marks
      ["dotted line", "where your robots went during the last turn"],
      ["green dashed arrows", "your planned programs on this board (walls, conveyors and pits included; each robot alone)"],
      ["Cards", "FWDn forward n, RVSn back n, RT90/LF90 turn right/left, UTRN U-turn; the number is the priority"],
    ],
    entry(box, view, h, ui) {
      const el = ui.el;
      const hand = view.hand || [], all = view.robots || {};
      const robots = Object.keys(all).filter(r => all[r].free > 0 && all[r].square);
      const prog = Object.fromEntries(robots.map(r => [r, []]));
      let cur = robots[0];
      const handBox = el("div", {class: "cards", role: "group", "aria-label": "your hand"}), regs = el("div", {class: "registers-multi"});
      const reboot = el("select", {id: "reboot", "aria-label": "reboot"}, el("option", {value: ""}, "no reboot"),
        ...Object.keys(all).map(r => el("option", {value: r}, `reboot robot ${r}`)));
      reboot.addEventListener("change", () => redraw());
      const used = () => Object.values(prog).flat();
      function redraw(push = true) {
        handBox.innerHTML = ""; regs.innerHTML = "";
        hand.forEach(c => { if (!used().includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)}, title: cardText(c),
          "aria-label": `${c}: ${cardText(c)}`,
          onclick: () => { if (cur && prog[cur].length < all[cur].free) { prog[cur].push(c); redraw(); } else ui.say(`Robot ${cur} has no free register left.`, true); }}, c)); });
        robots.forEach(r => {
          const row = el("div", {class: "regrow" + (r === cur ? " sel" : ""), role: "group", "aria-label": `robot ${r} registers`},
            el("button", {type: "button", class: "robot" + (r === cur ? " sel" : ""), dataset: {robot: r}, "aria-pressed": String(r === cur),
              onclick: () => { cur = r; redraw(); }}, `Robot ${r} (${all[r].square}, ${all[r].free} free)`));
          prog[r].forEach((c, i) => row.append(...ui.registerCard(prog[r], i, redraw, {id: cardId, describe: cardText, who: `robot ${r}`})));
          regs.append(row);
        });
        const L = robots.length ? Math.min(...robots.map(r => prog[r].length)) : 0;
        const longer = robots.filter(r => prog[r].length > L);
        note.textContent = longer.length ? `Only the first ${L} card(s) of robot ${longer.join(", ")} count: every robot runs the same number of registers.` : "";
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
        "If no robot can use any card, send no cards at all (G-4.5)."),
        el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, note, el("label", {}, "Reboot (G-8.1) ", reboot));
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
  (window.botwarsGames = window.botwarsGames || {}).geeko = kit;
})();
