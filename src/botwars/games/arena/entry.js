// The arena seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the kit's
// shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  const DIRS = {N: [0, 1], E: [1, 0], S: [0, -1], W: [-1, 0]};
  const ACT = {M: "move", A: "attack", D: "defend", S: "self-destruct"};
  // why a move failed (a move_failed event's "why"), with the rule
  const WHY = {wall: "a wall or the edge is there (R16a)", contested: "another robot moved there too (R16b)",
    swap: "it tried to swap places head-on (R16c)", blocked: "a robot that stays is there (R17)"};
  const seatOfPlayer = p => `p${p}`;
  function sideSeat(r, view) {  // a robot's seat: "F" friendly (the viewer's), "E" enemy, or its player
    if (r.player) return seatOfPlayer(r.player);
    if (r.side === "F") return seatOfPlayer(view.player || 1);
    return seatOfPlayer(view.player === 2 ? 1 : 2);
  }
  const kit = {
    keys: "Orders: Tab to a robot's button and press Enter to choose it; then arrow keys = move, Shift+arrow keys = attack, D = defend, X = self-destruct (or Tab to the order buttons).",
    seats: {p1: {letter: "R"}, p2: {letter: "B"}},  // names and colours: the page's palette (render/palette.py)
    grid: {
      square: (c, r, m) => `${c + 1}:${m.rows - r}`,
      cell: (name, m) => { const [x, y] = String(name).split(":").map(Number); return [x - 1, m.rows - y]; },
    },
    summary(view) {
      const by = {p1: [], p2: []};
      (view.robots || []).forEach(r => (by[sideSeat(r, view)] = by[sideSeat(r, view)] || []).push(r));
      return Object.entries(by).map(([seat, rs]) => ({seat, lines: [
        `${rs.length} robot${rs.length === 1 ? "" : "s"}, ${rs.reduce((t, r) => t + r.hp, 0)} HP in all`,
        rs.length ? rs.map(r => `${r.x}:${r.y} ${r.hp} HP`).join(" · ") : "none (new robots come on the next spawn turn)"]}));
    },
    awaited: () => "click one of your robots, then a neighbouring square (move there, or attack an enemy on it); unchanged robots defend",
    warnings(view) {
      const t = view.turn;
      const out = [];
      if (t && t % 10 === 0) out.push(`Turn ${t} is a spawn turn (every 10th turn by default, R19): a robot standing on a spawn point (dashed squares) after the moves dies and a new robot appears there. Move off them!`);
      if (t === view.max_turns) out.push("This is the last turn: the side with more robots wins (then total HP).");
      return out;
    },
    describe(e, ui) {
      if (e.kind === "orders") {
        const toks = String(e.orders || "").split(",").filter(Boolean);
        const said = toks.map(t => { const [sq, a, d] = t.split("-"); return `${sq} ${ACT[a] || a}${d ? " " + d : ""}`; });
        return `${ui.seatName(seatOfPlayer(e.player))} ordered: ${said.join("; ") || "nothing (all defend)"}`;
      }
      if (e.kind === "spawn") return `A new robot for ${ui.seatName(seatOfPlayer(e.player))} appeared at ${e.at}.`;
      if (e.kind === "spawn_kill") return `A robot of ${ui.seatName(seatOfPlayer(e.player))} standing on spawn point ${e.at} died (spawn turn).`;
      if (e.kind === "move") return `Robot moved ${e.from} → ${e.to}.`;
      if (e.kind === "move_failed") return `The robot on ${e.at} could not move${e.to ? " to " + e.to : ""}` +
        `${WHY[e.why] ? ": " + WHY[e.why] : ""}; it stays, not defending (R18).`;
      if (e.kind === "attack") return `Attack ${e.from} → ${e.to}${e.damage ? `: ${e.damage} damage` : " (missed)"}.`;
      if (e.kind === "blast") return `Self-destruct at ${e.at}.`;
      if (e.kind === "death" || e.kind === "dead") return `A robot died at ${e.at || e.square || "?"}.`;
      return undefined;
    },
    legend: [
      ["● red disc", "a robot of Red (p1); the number is its HP (a smaller mark: under half HP)"],
      ["■ blue square", "a robot of Blue (p2)"],
      ["dashed square", "a spawn point (its colour: whose). On spawn turns (10, 20, …) a robot standing on one dies"],
      ["dark square", "a wall"],
      ["dashed arrow", "a move (the last turn's in the player's colour; yours, planned, in green)"],
      ["solid arrow", "an attack (damages a robot on that square)"],
      ["D / S in a corner", "defend / self-destruct order"],
      ["Keys", "select a robot with its button; arrows = move, Shift+arrows = attack, D = defend, X = self-destruct"],
    ],
    entry(box, view, h, ui) {
      const el = ui.el;
      const mine = (view.robots || []).filter(r => r.side === "F" || (r.player && r.player === view.player));
      const orders = {};
      mine.forEach(r => { orders[`${r.x}:${r.y}`] = {x: r.x, y: r.y, action: "D"}; });
      let sel = mine.length ? `${mine[0].x}:${mine[0].y}` : null;
      const list = el("div", {class: "robots", role: "group", "aria-label": "your robots"});
      const acts = el("div", {class: "acts", role: "group", "aria-label": "order for the chosen robot"});
      const label = o => ACT[o.action] + (o.dir ? " " + o.dir : "");
      function redraw(push = true) {
        list.innerHTML = "";
        mine.forEach(r => {
          const k = `${r.x}:${r.y}`;
          list.append(el("button", {type: "button", class: "robot" + (k === sel ? " sel" : ""), dataset: {sq: k},
            "aria-pressed": String(k === sel), onclick: () => { sel = k; redraw(); }}, `${k} (${r.hp} HP) → ${label(orders[k])}`));
        });
        ui.board.clear();
        Object.values(orders).forEach(o => {
          const k = `${o.x}:${o.y}`;
          if (k === sel) ui.board.mark(k, "sel", "chosen robot");
          if (o.action === "M" || o.action === "A") ui.board.arrow(k, `${o.x + DIRS[o.dir][0]}:${o.y + DIRS[o.dir][1]}`, o.action === "M" ? "move" : "attack", `${k} ${label(o)}`);
          else ui.board.mark(k, o.action === "S" ? "danger" : "plan", `${k} ${label(o)}`, o.action === "S" ? "S" : "D");
        });
        ui.board.draw();
        if (push) ui.setOrders({orders: Object.values(orders)});
      }
      function order(action, dir) {
        if (!sel) { ui.say("Choose one of your robots first.", true); return; }
        const [x, y] = sel.split(":").map(Number);
        orders[sel] = dir ? {x, y, action, dir} : {x, y, action};
        redraw();
      }
      ui.board.onClick(sq => {
        if (orders[sq]) { sel = sq; redraw(false); return; }
        if (!sel) return;
        const [x, y] = sel.split(":").map(Number), [a, b] = sq.split(":").map(Number);
        const d = Object.keys(DIRS).find(k => x + DIRS[k][0] === a && y + DIRS[k][1] === b);
        if (!d) { ui.say(`${sq} is not next to the robot at ${sel}: a robot moves or attacks one square N, E, S or W.`, true); return; }
        const enemy = (view.robots || []).some(r => r.x === a && r.y === b && !mine.includes(r));
        order(enemy ? "A" : "M", d);
        ui.say(`${sel}: ${enemy ? "attack" : "move"} ${d} planned.`, false);
      });
      for (const a of ["M", "A"]) for (const d of ["N", "E", "S", "W"])
        acts.append(el("button", {type: "button", dataset: {order: a + d}, onclick: () => order(a, d)}, `${ACT[a]} ${d}`));
      acts.append(el("button", {type: "button", dataset: {order: "D"}, onclick: () => order("D")}, "Defend"),
                  el("button", {type: "button", dataset: {order: "S"}, title: "the robot dies and damages every robot around it",
                                onclick: () => order("S")}, "Self-destruct"));
      box.addEventListener("keydown", ev => {
        const d = {ArrowUp: "N", ArrowRight: "E", ArrowDown: "S", ArrowLeft: "W"}[ev.key];
        if (d) { ev.preventDefault(); order(ev.shiftKey ? "A" : "M", d); }
        else if (ev.key === "d" || ev.key === "D") order("D");
        else if (ev.key === "x" || ev.key === "X") order("S");
      });
      box.append(el("p", {class: "hint"}, "Click one of your robots (on the board or below), then a neighbouring square: moving there, or attacking an enemy on it. Robots you leave alone defend."),
        list, acts);
      redraw();
      return {load(p) {
        const os = (p && p.orders) || [];
        mine.forEach(r => { orders[`${r.x}:${r.y}`] = {x: r.x, y: r.y, action: "D"}; });
        os.forEach(o => { const k = `${o.x}:${o.y}`; if (orders[k]) orders[k] = o.dir ? {x: o.x, y: o.y, action: o.action, dir: o.dir} : {x: o.x, y: o.y, action: o.action}; });
        redraw(false);
      }};
    },
  };
  (window.botwarsGames = window.botwarsGames || {}).arena = kit;
})();
