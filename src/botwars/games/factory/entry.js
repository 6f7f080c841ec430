// The factory seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the
// kit's shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  const CARD = {FWD1: "move 1 forward", FWD2: "move 2 forward", FWD3: "move 3 forward", RVS1: "back up 1",
                RVS2: "back up 2", RVS3: "back up 3", RT90: "turn right", LF90: "turn left", UTRN: "U-turn",
                SLF1: "slide 1 left", SRT1: "slide 1 right", IDLE: "do nothing"};
  const cardId = c => { const p = String(c).split(" "); return Number(p[p.length - 1]); };
  const cardText = c => { const [t, n] = String(c).split(" "); return `${CARD[t] || t} (priority ${n})`; };
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
  const kit = {
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
        `flags touched: ${(p.flags || []).length ? p.flags.join(", ") : "none"} · next flag: F${p.next_flag}`]}));
    },
    awaited: view => `click ${view.free_registers || 0} cards from your hand into your registers (the dotted path shows where they would take your robot)`,
    warnings(view) {
      const out = [];
      if (view.free_registers === 0) out.push("All your registers are locked (low HP): you send no cards this turn.");
      return out;
    },
    describe(e) {
      if (e.kind === "hand") return null;  // the new hand is shown in the order controls
      if (e.kind === "stage") return `Stage ${e.stage}: ` + tableLines(e).join(" | ");
      if (e.kind === "end") return "End of turn: " + tableLines(e).join(" | ");
      if (e.kind === "fused") return "Locked registers: " + tableLines(e).join(" | ");
      if (e.kind === "result") return "Result: " + (e.rows || []).slice(1).map(r => `${r[0]}. ${r[1]} (flags ${r[2]}, ${r[5]})`).join("; ");
      return undefined;
    },
    lastMoves(events, ui) {  // every robot's path over the stages of the last turn, from the MOVES rows
      return ui.stageMoves(events, (n, e, m) => `${n}, stage ${e.stage}: ${m}`,
                           n => (kit.seats[n.split(" ")[0]] || {}).colour);
    },
    legend: [  // the board's elements: the drawn legend above (the game's legend hook); these: the page's marks
      ["white badge on a robot", "its player's seat number 1-8"],
      ["dotted line", "where each robot went during the last turn"],
      ["green dashed arrows", "your planned program on this board: walls, conveyors, pushers and pits included, other robots ignored"],
      ["Cards", "FWDn forward n, RVSn back n, RT90/LF90 turn right/left, UTRN U-turn, SLF1/SRT1 slide; the number is the priority (higher moves first)"],
    ],
    entry(box, view, h, ui) {
      const el = ui.el;
      const hand = view.hand || [], k = view.free_registers || 0, prog = [];
      const me = (view.players || []).find(p => p.seat === view.you) || {};
      const handBox = el("div", {class: "cards", role: "group", "aria-label": "your hand"}), regs = el("ol", {class: "registers", "aria-label": "your registers"});
      const reboot = el("input", {type: "checkbox", id: "reboot", dataset: {reboot: "1"}});
      function redraw(push = true) {
        handBox.innerHTML = ""; regs.innerHTML = "";
        hand.forEach(c => { if (!prog.includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)},
          title: cardText(c), "aria-label": `${c}: ${cardText(c)}`,
          onclick: () => { if (prog.length < k) { prog.push(c); redraw(); } else ui.say(`All ${k} registers are full: click a register card to take it back.`, true); }}, c)); });
        for (let i = 0; i < k; i++) regs.append(el("li", {}, ...(prog[i] ? ui.registerCard(prog, i, redraw, {id: cardId, describe: cardText}) : [el("span", {class: "empty"}, "empty")])));
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
      box.append(el("p", {class: "hint"}, `Click ${k} cards into your registers, in the order they run (click a register to take its card back). Hover a card for what it does.`),
        el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs,
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
