// The arena seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the kit's
// shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  // a seat's name and colour from the page's ui (the replay viewer's too), else this kit's own
  const seatInfoOf = (ui, s) => (ui && ui.seatInfo ? ui.seatInfo(s) : (kit.seats || {})[s] || {name: String(s)});
  const DIRS = {N: [0, 1], E: [1, 0], S: [0, -1], W: [-1, 0]};
  const ACT = {M: "move", A: "attack", D: "defend", S: "self-destruct"};
  // why a move failed (a move_failed event's "why"), with the rule
  const WHY = {wall: "a wall or the edge is there", contested: "another robot moved there too",
    swap: "it tried to swap places head-on", blocked: "a robot that stays is there"};
  const seatOfPlayer = p => `p${p}`;
  function sideSeat(r, view) {  // a robot's seat: "F" friendly (the viewer's), "E" enemy, or its player
    if (r.player) return seatOfPlayer(r.player);
    if (r.side === "F") return seatOfPlayer(view.player || 1);
    return seatOfPlayer(view.player === 2 ? 1 : 2);
  }
  // The end screen in words (issue 23 item 2): R28 more robots wins, then more total HP (the
  // tie-break, named with its numbers), else a draw; resignations and time as such.
  function outcome(o, seat, ui) {
    const name = s => seatInfoOf(ui, s).name, other = s => (s === "p1" ? "p2" : "p1");
    // the final count (R28); a resignation's outcome has none: counted from the last view
    let robots = (o.details || {}).robots || {}, hp = (o.details || {}).hp || {};
    const last = ui && ui.snap && ui.snap.view;
    if (!("p1" in robots) && last && Array.isArray(last.robots)) {
      robots = {p1: 0, p2: 0}; hp = {p1: 0, p2: 0};
      for (const r of last.robots) {  // a seat's view says F (friend) / E (enemy), a spectator's the player
        const s = `p${r.player !== undefined ? r.player : (r.side === "F" ? last.player : 3 - last.player)}`;
        if (s in robots) { robots[s] += 1; hp[s] += r.hp; }
      }
    }
    const w = o.winner, l = w ? other(w) : null;
    const subj = s => (seat && s === seat ? "you" : name(s));
    const Subj = s => { const t = subj(s); return t[0].toUpperCase() + t.slice(1); };
    const has = s => (seat && s === seat ? "have" : "has");
    const n = k => `${k} robot${k === 1 ? "" : "s"}`;
    const scores = "p1" in robots ? `Final: ${name("p1")} ${n(robots.p1)} (${hp.p1} HP), ${name("p2")} ${n(robots.p2)} (${hp.p2} HP).` : "";
    let why;
    if (o.reason === "resign") why = w ? `${Subj(l)} resigned.` : "A player resigned.";
    else if (o.reason === "time" || o.reason === "timeout") why = w ? `${Subj(l)} ran out of time.` : "Time ran out.";
    else if (!w) why = `${n(robots.p1)} and ${hp.p1} HP each: a draw (equal robots, then equal total HP).`;
    else if (robots[w] !== robots[l]) why = `${Subj(w)} ${has(w)} more robots at the end: ${robots[w]} to ${robots[l]}` +
      (o.reason === "wipeout" ? ` (${subj(l)} ${has(l)} none left).` : ".");
    else why = `${n(robots[w])} each; ${subj(w)} ${seat && w === seat ? "win" : "wins"} on total HP ${hp[w]} to ${hp[l]}.`;
    return {why, scores};
  }
  const owners = {decision: null, square: {}, robot: {}, busy: new Set()};  // who ordered a square, who owns a robot id (see describe)
  const kit = {
    outcome,
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
    awaited: () => "click one of your robots, then a neighbouring square (move there, or attack an enemy on it); unchanged robots defend (half damage this turn)",
    warnings(view) {
      const t = view.turn;
      const out = [];
      if (t && t % 10 === 0) out.push(`Turn ${t} is a spawn turn (every 10th turn by default): a robot standing on a spawn point (dashed squares) after the moves dies and a new robot appears there. Move off them!`);
      if (t === view.max_turns) out.push("This is the last turn: the side with more robots wins (then total HP).");
      return out;
    },
    describe(e, ui) {
      // whose robot: the orders events come first in a turn and say which squares each side ordered;
      // a robot keeps its id through the turn, so a moved or attacking robot is known by it
      const DIR = {N: "north", E: "east", S: "south", W: "west"};
      const side = p => seatInfoOf(ui, seatOfPlayer(p)).name;
      if (e.decision !== owners.decision) { owners.decision = e.decision; owners.square = {}; owners.robot = {}; owners.busy = new Set(); }
      // R24: a robot that neither moved, attacked nor self-destructed (nor failed a move) defends;
      // a robot spawned this turn had no order to give and does not (its hit is the full one)
      const defending = sq => !owners.busy.has(sq);
      const whose = (robot, sq) => { const p = owners.robot[robot] || owners.square[sq]; return p ? `${side(p)}'s robot` : "A robot"; };
      if (e.kind === "orders") {
        const toks = String(e.orders || "").split(",").filter(Boolean);
        toks.forEach(t => { owners.square[t.split("-")[0]] = e.player; if (t.split("-")[1] !== "D") owners.busy.add(t.split("-")[0]); });
        const said = toks.map(t => { const [sq, a, d] = t.split("-"); return `the robot on ${sq} ${{M: "moves", A: "attacks", D: "defends", S: "self-destructs"}[a] || a}${d ? " " + (DIR[d] || d) : ""}`; });
        return `${side(e.player)} ordered: ${said.join("; ") || "nothing (every robot defends)"}.`;
      }
      if (e.kind === "spawn") { owners.robot[e.robot] = e.player; owners.busy.add(e.at); return `A new robot for ${side(e.player)} appeared on its spawn point ${e.at}.`; }
      if (e.kind === "spawn_kill") return `${side(e.player)}'s robot standing on spawn point ${e.at} died: this was a spawn turn.`;
      if (e.kind === "move") {
        if (owners.square[e.from]) owners.robot[e.robot] = owners.square[e.from];
        owners.busy.add(e.to);
        return `${whose(e.robot, e.from)} moved from ${e.from} to ${e.to}.`;
      }
      if (e.kind === "move_failed") {
        owners.busy.add(e.at);
        return `${whose(e.robot, e.at)} on ${e.at} could not move${e.to ? " to " + e.to : ""}` +
          `${WHY[e.why] ? ": " + WHY[e.why] : ""}; it stays, not defending.`;
      }
      if (e.kind === "attack") {
        if (owners.square[e.from]) owners.robot[e.robot] = owners.square[e.from];
        const target = e.target !== undefined && e.target !== null ? whose(e.target, null).replace(/^A robot$/, "the robot there") : null;
        return `${whose(e.robot, e.from)} on ${e.from} attacked ${e.to}: ` +
          (e.damage ? `${target || "the robot there"} lost ${e.damage} HP${defending(e.to) ? " (it was defending, so the hit was reduced)" : ""}.` : "nobody was there, it missed.");
      }
      if (e.kind === "blast") {
        const hits = (e.hits || []).map(h => `${h.at} (${h.damage} HP)`);
        return `${whose(e.robot, e.at)} on ${e.at} self-destructed${hits.length ? `, hitting the robots on ${hits.join(", ")}` : ""}.`;
      }
      if (e.kind === "removed") {
        const why = {attack: "attacks", blast: "a self-destruct blast", spawn: "a spawn (it stood on a spawn point)", self_destruct: "its own self-destruct"}[e.cause] || String(e.cause || "damage").replace(/_/g, " ");
        return `${side(e.player)}'s robot on ${e.at} was destroyed by ${why}.`;
      }
      if (e.kind === "death" || e.kind === "dead") return `A robot died on ${e.at || e.square || "its square"}.`;
      return undefined;
    },
    legend: [
      ["● red disc", "Red's robot; the number is its HP (a smaller mark: under half HP)"],
      ["■ blue square", "Blue's robot"],
      ["dashed square", "a spawn point (its colour: whose). On spawn turns (10, 20, …) a robot standing on one dies"],
      ["dark square", "a wall"],
      ["dashed arrow", "a move (the last turn's in the player's colour; yours, planned, in green)"],
      ["solid arrow", "an attack (damages a robot on that square)"],
      ["D / S in a corner", "defend / self-destruct order of the last turn"],
      ["bar under a robot", "its HP at a glance: green at half or more, red under half"],
      ["green dashed ring", "your robot will defend this turn (no order given: it stays and takes half damage)"],
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
      acts.append(el("button", {type: "button", dataset: {order: "D"}, title: "the robot stays and takes half damage this turn",
                                onclick: () => order("D")}, "Defend"),
                  el("button", {type: "button", dataset: {order: "S"}, title: "the robot dies and damages every robot around it",
                                onclick: () => order("S")}, "Self-destruct"));
      box.addEventListener("keydown", ev => {
        const d = {ArrowUp: "N", ArrowRight: "E", ArrowDown: "S", ArrowLeft: "W"}[ev.key];
        if (d) { ev.preventDefault(); order(ev.shiftKey ? "A" : "M", d); }
        else if (ev.key === "d" || ev.key === "D") order("D");
        else if (ev.key === "x" || ev.key === "X") order("S");
      });
      box.append(el("p", {class: "hint"}, "Click one of your robots (on the board or below), then a neighbouring square: moving there, or attacking an enemy on it. Robots you leave alone defend: they stay and take half damage this turn (with the usual settings)."),
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
