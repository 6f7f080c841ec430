// The submarine seat page's kit (declared as GAME.web_entry; loaded before /static/play.js; the
// kit's shape is described at the top of play.js and in docs/web.md).
"use strict";
(function () {
  // a seat's name and colour from the page's ui (the replay viewer's too), else this kit's own
  const TOUCH = () => document.documentElement.classList.contains("touch");
  const seatInfoOf = (ui, s) => (ui && ui.seatInfo ? ui.seatInfo(s) : (kit.seats || {})[s] || {name: String(s)});
  const COLS = "ABCDEFG";
  const DIR = {N: [0, 1], E: [1, 0], S: [0, -1], W: [-1, 0]};
  // S-4.4 and S-6.2: [AP, parameter key or null, words]
  const ACT = {
    move: [1, "dir", "move one space (into a sub: a collision)"],
    surface: [0, null, "come up to the surface"],
    submerge: [1, null, "dive: enemies no longer see it"],
    replace: [2, "special", "swap its special for one none of your subs holds"],
    torpedo: [2, "dir", "the first sub within 3 spaces in a direction surfaces and takes 2 damage"],
    depth_charge: [3, "space", "a space at most 3 steps away (counting steps along rows and columns) and its neighbours: every sub there surfaces and takes 1 damage, yours too"],
    sonar: [2, null, "find every enemy sub within 2 spaces"],
    mine: [1, "space", "lay a mine on a neighbouring space (not D4, D3, C4, E4, D5): an enemy entering it takes 2 damage"],
    heal: [2, "space", "a neighbouring sub of yours gains 2 HP (max 5)"],
    nullify: [2, "special", "suppress a special for the opponent until the end of their next turn"],
  };
  const PASSIVE = {armor: "a plate absorbs 1 damage, renewed each turn", ram: "deals 3 and takes 0 when it rams on your turn",
                   overclock: "+1 AP at the start of each of your turns"};
  const SPECIAL_NAME = {torpedo: "Torpedo", depth_charge: "Depth Charge", sonar: "Sonar", mine: "Mine", heal: "Heal",
                        nullify: "Nullify", armor: "Armor", ram: "Battering Ram", overclock: "Overclock"};
  const spName = id => SPECIAL_NAME[id] || id;  // a special as a player reads it ("Depth Charge", never depth_charge)
  const DIRNAME = {N: "north", E: "east", S: "south", W: "west"};
  const SPECIAL_TEXT = id => ACT[id] ? `${spName(id)} (active, ${ACT[id][0]} AP): ${ACT[id][2]}` : (PASSIVE[id] ? `${spName(id)} (passive): ${PASSIVE[id]}` : id);
  // an action's button label: the specials by their names (S-3.3), the other actions as words
  const ACTION_NAME = {move: "Move", surface: "Surface", submerge: "Submerge", replace: "Replace special"};
  const actName = a => ACTION_NAME[a] || spName(a);
  const parse = s => { const c = COLS.indexOf(String(s)[0]), r = Number(String(s).slice(1)); return c < 0 || !r ? null : [c + 1, r]; };
  const name = (c, r) => c >= 1 && c <= 7 && r >= 1 && r <= 7 ? `${COLS[c - 1]}${r}` : null;
  const stepTo = (sp, d) => { const p = parse(sp); return p ? name(p[0] + DIR[d][0], p[1] + DIR[d][1]) : null; };
  const dist = (a, b) => { const p = parse(a), q = parse(b); return Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]); };
  // a planned action in words ("sub b: Depth Charge at D4", "sub c: Replace special with Heal"), never ids
  const actText = a => `sub ${a.sub}: ${actName(a.action)}${a.dir ? " " + (DIRNAME[a.dir] || a.dir) : ""}${a.space ? " at " + a.space : ""}` +
    `${a.special ? (a.action === "replace" ? " with " : " ") + spName(a.special) : ""}`;
  const clean = a => Object.fromEntries(Object.entries(a).filter(([k]) => ["sub", "action", "dir", "space", "special"].includes(k)));
  const cost = a => (ACT[a.action] || [0])[0];
  // the surfaced subs of seat p that this page may see: a seat sees the enemy's as
  // visible_enemy_subs, a spectator every surfaced sub as surfaced_subs (S-3.1: p1 a–e, p2 v–z)
  const seenSubs = (view, p) => view.you ? Object.entries(view.visible_enemy_subs || {}) :
    Object.entries(view.surfaced_subs || {}).filter(([k]) => ("abcde".includes(k) ? "p1" : "p2") === p);

  // S-7.2: a score is its owner's secret; the other side (and a spectator) learns only that it
  // reached 25 (announced once) and, at the end, the final scores.
  function scoreKnown(view, p) {
    const a = (view.announced_25 || {})[p];
    return a ? "score: 25 or more (the exact score is secret)" : "score: under 25 (the exact score is secret)";
  }
  function scoreFacts(view, ui) {  // both scores as far as this page may know them, and how points come
    const name = p => ui ? ui.seatName(p) : p, res = view.result, lines = [];
    if (res && res.scores) lines.push(`Final scores: ${["p1", "p2"].map(p => `${name(p)} ${res.scores[p]}`).join(", ")}.`);
    else ["p1", "p2"].forEach(p => lines.push(p === view.you && view.own_subs ? `${name(p)} (you): ${view.score || 0} points of the 50 needed to win.` :
      `${name(p)}: ${(view.announced_25 || {})[p] ? "25 points or more" : "under 25 points"} (the exact score is secret until the end).`));
    if (!res) lines.push("Why only this much: a player's score is secret until the end; everyone is told when a player reaches 25.");
    lines.push("Points: at the end of your own turn each of your subs on a gold space scores its number (D4: 4; D3, C4, E4, D5: 2; C3, E3, C5, E5: 1), doubled if the sub is surfaced.",
               "You win with 50 points at the end of your turn, or by sinking every enemy sub.");
    if (view.you && !view.setup && view.ap !== null && view.ap !== undefined) lines.push(`Action points this turn: ${view.ap} (5 each turn, +1 with Overclock).`);
    return lines;
  }
  // The end screen in words (issue 23 item 2; S-7.3 to S-7.11), with both final scores.
  function outcome(o, seat, ui) {
    const side = p => seatInfoOf(ui, p).name, sc = o.scores || {};
    const w = o.winner, l = w ? (w === "p1" ? "p2" : "p1") : null, me = seat || null;
    const subj = p => (p === me ? "you" : side(p)), Subj = p => { const t = subj(p); return t[0].toUpperCase() + t.slice(1); };
    const why = {
      elimination: w && `${Subj(w)} sank every one of ${l === me ? "your" : side(l) + "'s"} subs.`,
      points: w && `${Subj(w)} reached ${sc[w]} points (50 wins).`,
      mutual_destruction: w ? `The last subs of both sides sank together; ${subj(w)} had more points.` : "The last subs of both sides sank together with equal points: a draw.",
      time: w && `${Subj(l)} ran out of time.`,
      resign: w && `${Subj(l)} resigned.`,
      refused: w && `${Subj(l)} sent too many refused orders in one turn.`,
      round_cap: "The round limit was reached: a draw.",
      setup_forfeit: w ? `${Subj(l)} did not place ${l === me ? "your" : "their"} fleet in time.` : "Neither side placed its fleet in time: a draw.",
    }[o.reason] || null;
    const scores = "p1" in sc ? `Final score: ${side("p1")} ${sc.p1}, ${side("p2")} ${sc.p2}.` : "";
    return {why, scores};
  }
  const kit = {
    outcome,
    keys: "Subs and actions: arrow keys move along a row, Enter chooses; then the direction, space or special; Tab to Add (the AP left is read out beside it), then Submit. Remove: Enter on an action's remove button. Setup: choose a sub, then its space (or the board cursor) and its special.",
    pieces(view) {  // the board in words: own subs, seen enemy subs
      const me = view.you, other = me === "p1" ? "p2" : "p1", out = [];
      if (view.own_subs) out.push({seat: me, items: Object.entries(view.own_subs).map(([k, s]) =>
        `sub ${k} on ${s.space}, ${s.hp} HP, ${s.surfaced ? "surfaced" : "submerged"}, special ${spName(s.special)}`).concat((view.own_mines || []).map(m => `mine on ${m}`))});
      const st = view.state;
      if (st && st.subs) return ["p1", "p2"].map(p => ({seat: p, items: Object.entries(st.subs).filter(([, s]) => s.owner === p)
        .map(([k, s]) => `sub ${k} on ${s.space}, ${s.hp} HP`)}));
      if (!me) return view.setup ? [] : ["p1", "p2"].map(p => ({seat: p, items: seenSubs(view, p).map(([k, v]) => `sub ${k} surfaced on ${v}`)
        .concat(["submerged subs are hidden"])}));
      if (view.visible_enemy_subs || !view.setup) out.push({seat: other, items: Object.entries(view.visible_enemy_subs || {}).map(([k, v]) => `sub ${k} seen surfaced on ${v}`)
        .concat(["submerged enemy subs are hidden"])});
      return out;
    },
    seats: {p1: {letter: "R"}, p2: {letter: "B"}},  // names and colours: the page's palette (render/palette.py)
    grid: {
      square: (c, r) => `${COLS[c]}${7 - r}`,
      cell: n => { const p = parse(n); return p ? [p[0] - 1, 7 - p[1]] : null; },
    },
    summary(view, snap, ui) {
      const res = view.result, st = view.state;
      return ["p1", "p2"].map(p => {
        const lines = [];
        const home = (view.home_rows || {})[p];
        if (home) lines.push(`home row ${home}${view.first_player === p ? " · moves first" : ""}`);
        if (p === view.you && view.own_subs) {
          lines.push(`score ${view.score || 0} / 50 to win` + (view.ap !== null && view.ap !== undefined ? ` · AP ${view.ap}` : ""));
          Object.entries(view.own_subs).forEach(([k, s]) => lines.push(`${k}: ${s.space}, ${s.hp} HP, ${s.surfaced ? "surfaced" : "submerged"}, ${spName(s.special)}${s.plate ? ", plate" : ""}`));
          if ((view.own_mines || []).length) lines.push(`your mines: ${view.own_mines.join(", ")}`);
        } else if (st) {
          Object.entries(st.subs || {}).filter(([, s]) => s.owner === p).forEach(([k, s]) => lines.push(`${k}: ${s.space}, ${s.hp} HP, ${spName(s.special)}`));
        } else if (!view.setup) {
          const seen = seenSubs(view, p);
          lines.push(seen.length ? `seen surfaced: ${seen.map(([k, v]) => `${k} ${v}`).join(", ")}` : "no sub seen (submerged subs are hidden)");
          if ((view.announced_25 || {})[p]) lines.push("has reached 25 points");
        }
        const gone = (view.destroyed_subs || (st && st.destroyed_subs) || {})[p] || [];
        if (gone.length) lines.push(`destroyed: ${gone.join(", ")}`);
        if (view.active === p && !(snap && snap.status === "ended")) lines.push("to move now");
        if (res && res.scores) lines.push(`final score ${res.scores[p]}`);
        else if (p !== view.you || !view.own_subs) lines.push(scoreKnown(view, p));
        return {seat: p, lines};
      }).concat([{title: "Scores and points", lines: scoreFacts(view, ui)}]);
    },
    awaited: view => view.setup ? "place your five subs on your home row and give each a different special" :
      `build your list of actions (${view.ap} AP to spend), then Submit`,
    warnings(view, snap) {
      const out = [];
      if (view.setup || !snap.your_turn) return out;
      const sup = ((view.suppressed || {})[view.you] || []).map(w => w.special);
      if (sup.length) out.push(`Suppressed for you this turn (Nullify): ${sup.join(", ")}.`);
      out.push("A depth charge hits your own subs in the blast too; a torpedo hits the first sub in line, yours included.");
      return out;
    },
    // a decision point is one player's turn (S-4): "Your turn 4", "Blue's turn 5", "Setup"
    turnLabel(evs, ui) {
      const end = evs.find(e => e.kind === "turn_end");
      if (end) return end.player === (ui.seat || null) ? `Your turn ${end.turn}` : `${seatInfoOf(ui, end.player).name}'s turn ${end.turn}`;
      return evs.some(e => e.kind === "game_start") ? "Setup" : null;
    },
    describe(e, ui) {
      const d = e;
      const me = ui.seat || null;
      const side = p => seatInfoOf(ui, p).name;
      // a sub by its owner (S-3.1: p1 commands a-e, p2 v-z): "your sub a", "Blue's sub v"
      const sub = x => { if (!x) return "a sub"; const o = "abcde".includes(String(x)[0]) ? "p1" : "p2"; return o === me ? `your sub ${x}` : `${side(o)}'s sub ${x}`; };
      const Sub = x => { const t = sub(x); return t[0].toUpperCase() + t.slice(1); };
      const SKIP = {destroyed: "it has been destroyed", cancelled: "it rammed another sub earlier this turn, which cancels its later actions",
                    not_held: "it does not hold that special", suppressed: "that special is switched off by the enemy's Nullify",
                    special_used: "it already used a special this turn", condition: "the action was not possible at that moment"};
      const plate = x => x.plate_used ? " (its armour plate absorbed 1)" : "";
      switch (e.kind) {
        case "game_start": return "All subs are placed; the game begins.";
        case "turn_start": return `Turn ${d.turn} (round ${d.round}): ${d.player === me ? "your move" : `${side(d.player)} to move`}.`;
        // the other player's turn: a newcomer saw an empty turn and took it for a pass (S-8: what
        // submerged subs do is not shown to the other player)
        case "turn_end": return me && d.player !== me ? `End of ${side(d.player)}'s turn: what its submerged subs did is hidden from you.` : null;
        case "ap": return `${d.player && d.player !== me ? side(d.player) + " has" : "You have"} ${d.ap} action points this turn.`;
        // a passive special works at the start of every own turn (S-6.3): the subs panel says what
        // each does; repeating "Armor takes effect" every turn told a newcomer nothing
        case "passive": return null;
        case "move": return `${Sub(d.sub)} moved from ${d.from} to ${d.to}.`;
        case "surface": return `${Sub(d.sub)} surfaced.`;
        case "submerge": return `${Sub(d.sub)} submerged.`;
        case "score": return `${d.player && d.player !== me ? side(d.player) + " scored" : "You scored"} ${d.points} point${d.points === 1 ? "" : "s"} for subs on the middle spaces (total ${d.total}).`;
        case "depth_charge": return `${d.sub ? `${Sub(d.sub)} dropped a depth charge` : "A depth charge fell"} on ${d.centre} (the space and its neighbours): ${(d.hits || []).length ? d.hits.map(h => `${sub(h.sub)} on ${h.space} took ${h.damage} damage${plate(h)}`).join("; ") : "no sub was hit"}.`;
        case "torpedo_hit": return `Torpedo${d.sub ? ` from ${sub(d.sub)}` : ""}${d.dir ? ` fired ${DIRNAME[d.dir] || d.dir}` : ""} hit ${sub(d.target)} on ${d.space}: it surfaced and took ${d.damage} damage${plate(d)}.`;
        case "torpedo_miss": return `Torpedo from ${sub(d.sub)} fired ${DIRNAME[d.dir] || d.dir}: no sub within 3 spaces, it missed.`;
        case "mine_triggered": return `${Sub(d.sub)} entered a mine on ${d.space}: it surfaced and took ${d.damage} damage${plate(d)}.`;
        // S-5.2: the rammer stays (its later actions are cancelled), both surface, the rammed sub is
        // pushed one space on: name each sub in each clause (the audit could not tell which moved)
        case "collision": {
          const a = sub(d.attacker.sub), b = sub(d.defender.sub), B = Sub(d.defender.sub);
          const push = /^[A-G]\d$/.test(d.push || "") ? ` ${B} was pushed on to ${d.push}.` :
            d.push === "chain" ? ` ${B} was pushed into the next sub in line, another collision.` :
            d.push === "edge" ? ` ${B} stays where it is: the board's edge is behind it.` : "";
          return `Collision: ${a} ran into ${b}${d.defender.space ? ` on ${d.defender.space}` : ""}. Both surfaced; ${a} took ${d.attacker.damage} damage${plate(d.attacker)} and stays where it was (its later actions this turn are cancelled); ${b} took ${d.defender.damage}${plate(d.defender)}.${push}`;
        }
        case "destroyed": return `${Sub(d.sub)} was destroyed${d.space ? ` on ${d.space}` : ""}.`;
        case "announce_25": return `${d.player === me ? "You have" : side(d.player) + " has"} reached 25 points.`;
        case "mine_placed": return `${d.sub ? Sub(d.sub) + " laid" : "A mine was laid"}${d.sub ? " a mine" : ""} on ${d.space}.`;
        case "mine_not_placed": return `No mine was laid on ${d.space}: one is already there.`;
        case "heal": return `${d.target ? Sub(d.target) : "A sub"} was repaired${d.space ? ` on ${d.space}` : ""}${d.hp_gained !== undefined ? ` (+${d.hp_gained} HP)` : ""}.`;
        case "sonar_result": return `Sonar${d.sub ? ` of ${sub(d.sub)}` : ""}: ${(d.detected || []).length ? "found " + d.detected.map(x => `${sub(x.sub)} on ${x.space}${x.surfaced ? "" : " (submerged)"}`).join(", ") : "no enemy sub within 2 spaces"}.`;
        case "detected": return `The enemy's sonar found ${d.subs.map(sub).join(", ")}.`;
        case "nullify": return `${SPECIAL_NAME[d.special] || d.special} is switched off for ${d.player === me ? "you" : side(d.player)} until the end of turn ${d.until_turn}.`;
        case "nullify_expired": return `${SPECIAL_NAME[d.special] || d.special} works again for ${d.player === me ? "you" : side(d.player)}.`;
        case "replace": return `${Sub(d.sub)} now holds ${SPECIAL_NAME[d.special || d.new] || d.special || d.new}.`;
        case "skipped": return `${Sub(d.sub)} did not ${String(d.action || "act").replace(/_/g, " ")}: ${SKIP[d.reason] || String(d.reason || "").replace(/_/g, " ")} (no action points spent).`;
        case "damage": return `${Sub(d.sub)} took ${d.damage} damage: it is on a destroyed space at the edge.`;
        case "ring_destroyed": return `The outer ring ${d.ring} of the ocean was destroyed: subs ending a turn there take damage.`;
        case "result": return null;  // the end screen says it
        default: return undefined;
      }
    },
    legend: [
      ["letters a–e / v–z", "subs: a–e are Red's, v–z Blue's (small letters; capitals are the board's columns). Solid: surfaced; hollow: submerged (only your own)"],
      ["numbers on gold", "scoring spaces: D4 = 4; D3 C4 E4 D5 = 2; C3 E3 C5 E5 = 1 (scored at the end of your turn)"],
      ["tinted rows", "home rows (setup)"],
      ["hatched space", "destroyed space: a sub ending its turn there takes 1 damage"],
      ["mine mark", "your mine (enemy mines are hidden)"],
      ["⊘ in a corner", "no mine may be laid here (D4 and the four spaces next to it)"],
      ["◆ under a sub", "its armour plate (Armor): the next damage is 1 less"],
      ["» under a sub", "ramming (Battering Ram): it deals 3 and takes 0 when it rams this turn"],
      ["number beside a letter", "the sub's HP (5 at most)"],
      ["magenta marks", "what happened this step: moves, blasts, hits"],
      ["green dashed arrows and boxes", "your planned actions (not yet sent)"],
      ["AP", "action points: move 1, submerge 1, surface 0, replace 2, torpedo 2, depth charge 3, sonar 2, mine 1, heal 2, nullify 2"],
    ],
    entry(box, view, h, ui) {
      if (view.setup) return setupEntry(box, view, ui);
      const el = ui.el;
      const own = view.own_subs || {}, ap = view.ap || 0, catalog = view.catalog || [];
      const seq = [];
      let sub = Object.keys(own)[0] || null, action = null, param = null;
      const subsBox = el("div", {class: "pickgrid", role: "group", "aria-label": "your subs"});
      const actBox = el("div", {class: "pickgrid", role: "group", "aria-label": "action"});
      const paramBox = el("div", {id: "s-param"}), addBtn = el("button", {type: "button", id: "s-add"}, "Add");
      const dropBtn = el("button", {type: "button", id: "s-drop", class: "secondary", hidden: "hidden",
        onclick: () => { action = null; param = null; redraw(false); }}, "Drop it");
      const counter = el("span", {id: "ap-counter", class: "apbar", role: "status"}), list = el("ol", {class: "seq", id: "s-seq"});
      const specLine = el("p", {class: "cmdhelp", id: "s-special"});  // what the chosen sub's special does, in words
      const addMsg = el("p", {class: "msg", id: "s-add-msg", role: "alert"});
      const used = () => seq.reduce((t, a) => t + cost(a), 0);
      function positions() {  // where each sub would be after the queued moves (collisions ignored)
        const at = Object.fromEntries(Object.entries(own).map(([k, s]) => [k, s.space]));
        seq.forEach(a => { if (a.action === "move") { const to = stepTo(at[a.sub], a.dir); if (to) at[a.sub] = to; } });
        return at;
      }
      function actionsOf(k) {
        const s = own[k];
        const acts = ["move", s && s.surfaced ? "submerge" : "surface", "replace"];
        if (s && ACT[s.special] && s.special !== "replace") acts.push(s.special);
        return acts;
      }
      function redraw(push = true) {
        const at = positions(), left = ap - used();
        subsBox.innerHTML = "";
        Object.entries(own).forEach(([k, s]) => subsBox.append(el("button", {type: "button", class: "sub" + (k === sub ? " sel" : ""), dataset: {sub: k},
          "aria-pressed": String(k === sub), onclick: () => { sub = k; action = null; param = null; redraw(false); }},
          `${k} ${at[k]} ${s.hp}HP ${spName(s.special)}`)));
        specLine.textContent = sub && own[sub] ? `Sub ${sub}'s special — ${SPECIAL_TEXT(own[sub].special)}` +
          (ACT[own[sub].special] ? " (at most one special action per sub each turn)." : ".") : "";
        actBox.innerHTML = "";
        if (sub) actionsOf(sub).forEach(a => actBox.append(el("button", {type: "button", class: "act" + (a === action ? " sel" : ""), dataset: {action: a},
          title: ACT[a][2], "aria-pressed": String(a === action), onclick: () => { action = a; param = null; redraw(false); }},
          `${actName(a)} (${ACT[a][0]} AP)`)));
        paramBox.innerHTML = "";
        const need = action ? ACT[action][1] : null;
        if (action) {
          paramBox.append(el("p", {class: "cmdhelp"}, `${actName(action)}: ${ACT[action][2]}.`));
          if (need === "dir") paramBox.append(el("div", {class: "seg", role: "group", "aria-label": "direction"}, ...Object.keys(DIR).map(d =>
            el("button", {type: "button", class: param === d ? "sel" : "", dataset: {dir: d}, "aria-pressed": String(param === d),
              "aria-label": `direction ${d} (${{N: "north", E: "east", S: "south", W: "west"}[d]})`, onclick: () => { param = d; redraw(false); }}, d))),
            el("p", {class: "cmdhelp"}, "…or click the neighbouring space on the board."));
          if (need === "space") {
            const pick = el("select", {id: "s-space", "aria-label": "target space"}, el("option", {value: ""}, "choose…"),
              ...[7, 6, 5, 4, 3, 2, 1].flatMap(r => COLS.split("").map(c => el("option", {value: `${c}${r}`}, `${c}${r}`))));
            pick.value = param || "";
            pick.addEventListener("change", () => { param = pick.value || null; redraw(false); });
            paramBox.append(el("label", {class: "cmdhelp"}, param ? `Target: ${param} — or ` : "Click the target space on the board, or choose it: ", pick));
          }
          if (need === "special") {
            const held = Object.values(own).map(s => s.special);
            const opts = catalog.filter(x => action === "nullify" ? x !== "nullify" : !held.includes(x));
            paramBox.append(el("div", {class: "seg", role: "group", "aria-label": "special"}, ...opts.map(x =>
              el("button", {type: "button", class: param === x ? "sel" : "", dataset: {special: x}, title: SPECIAL_TEXT(x), onclick: () => { param = x; redraw(false); }}, spName(x)))));
          }
        }
        addBtn.disabled = !(sub && action && (!need || param));
        addBtn.textContent = action ? `Add "${actText(mk())}" (${ACT[action][0]} AP)` : "Add";
        dropBtn.hidden = !action;
        // an action chosen but not added is not part of the orders: Submit waits until it is added or
        // dropped (newcomer audit: a planned move vanished on Submit without a word)
        ui.ready(!action, !action ? "" : addBtn.disabled ?
          `Finish or drop the action you started for sub ${sub} (${actName(action)}: choose its ${need === "dir" ? "direction" : need === "space" ? "target space" : "special"}), then Add it — or press “Drop it”.` :
          `You chose “${actText(mk())}” but have not added it to your list: press Add (or “Drop it”) before Submit.`);
        list.innerHTML = "";
        seq.forEach((a, i) => list.append(el("li", {}, `${actText(a)} (${cost(a)} AP) `,
          el("button", {type: "button", "aria-label": `remove ${actText(a)}`, onclick: () => { seq.splice(i, 1); redraw(); }}, "remove"))));
        if (!seq.length) list.append(el("li", {class: "empty"}, "no action yet (an empty list ends your turn doing nothing)"));
        counter.textContent = `AP left: ${left} of ${ap}`;
        counter.classList.toggle("over", left < 0);
        // the plan on the board
        ui.board.clear();
        if (sub) ui.board.mark(at[sub], "sel", `sub ${sub}`);
        const pos = Object.fromEntries(Object.entries(own).map(([k, s]) => [k, s.space]));
        seq.forEach((a, i) => {
          const from = pos[a.sub];
          if (a.action === "move") { const to = stepTo(from, a.dir); if (to) { ui.board.arrow(from, to, "move", `${i + 1}. ${actText(a)}`); pos[a.sub] = to; } }
          else if (a.action === "torpedo") { let to = from; for (let k = 0; k < 3; k++) to = stepTo(to, a.dir) || to; ui.board.arrow(from, to, "attack", `${i + 1}. torpedo ${a.dir}`); }
          else if (a.space) ui.board.mark(a.space, a.action === "heal" ? "plan" : "danger", `${i + 1}. ${actText(a)}`, String(i + 1));
          else ui.board.mark(from, "plan", `${i + 1}. ${actText(a)}`, String(i + 1));
        });
        ui.board.draw();
        if (push) ui.setOrders({type: "orders", actions: seq.map(clean)});
      }
      function mk() { const a = {sub, action}; const need = ACT[action][1]; if (need && param) a[need] = param; return a; }
      addBtn.addEventListener("click", () => {
        const a = mk(), left = ap - used();
        if (cost(a) > left) { addMsg.textContent = `Not enough AP: ${actText(a)} costs ${cost(a)}, you have ${left} left. Remove an action or choose a cheaper one.`; addMsg.classList.add("error"); return; }
        if (a.action === "depth_charge" && dist(positions()[sub], a.space) > 3) addMsg.textContent = `Note: ${a.space} is more than 3 spaces from ${sub}; the charge would be skipped (no AP spent).`;
        else if ((a.action === "mine" || a.action === "heal") && dist(positions()[sub], a.space) !== 1) addMsg.textContent = `Note: ${a.space} is not next to ${sub}; the ${a.action} would be skipped (no AP spent).`;
        else addMsg.textContent = "";
        addMsg.classList.remove("error");
        seq.push(a);
        action = null; param = null;
        redraw();
      });
      ui.board.onClick(sp => {
        const at = positions();
        const mine = Object.keys(own).find(k => at[k] === sp);
        const need = action ? ACT[action][1] : null;
        if (need === "space") { param = sp; redraw(false); return; }
        if (need === "dir" && sub) {
          const d = Object.keys(DIR).find(k => stepTo(at[sub], k) === sp);
          if (d) { param = d; redraw(false); return; }
        }
        if (mine) { sub = mine; action = null; param = null; redraw(false); return; }
        if (sub && !action) {  // a neighbouring space: a move there
          const d = Object.keys(DIR).find(k => stepTo(at[sub], k) === sp);
          if (d) { action = "move"; param = d; redraw(false); }
        }
      });
      box.append(el("p", {class: "hint"}, "Pick a sub (on the board or below), an action, its target; then Add. Actions run in list order. Click a neighbouring space to plan a move."),
        el("div", {class: "row"}, counter), el("h3", {}, "Sub"), subsBox, specLine, el("h3", {}, "Action"), actBox, paramBox,
        el("div", {class: "row"}, addBtn, dropBtn), addMsg, el("h3", {}, "Your list"), list);
      redraw();
      return {load(p) {
        seq.length = 0;
        ((p && p.actions) || []).forEach(a => { if (a && own[a.sub] && ACT[a.action]) seq.push(clean(a)); });
        redraw(false);
      }};
    },
  };

  // S-3.3 setup: each sub on a different home-row space, each a different special
  function setupEntry(box, view, ui) {
    const el = ui.el;
    const subs = view.subs || [], row = view.home_row, catalog = view.catalog || [];
    const place = {}, spec = {};
    let cur = subs[0];
    const body = el("div", {}), status = el("p", {class: "cmdhelp", id: "setup-status", role: "status"});
    const words = el("p", {class: "cmdhelp", id: "s-special-words", "aria-live": "polite"});  // the special in words
    function redraw(push = true) {
      body.innerHTML = "";
      const taken = Object.values(place), usedSp = Object.values(spec);
      body.append(el("div", {class: "pickgrid", role: "group", "aria-label": "sub to place"}, ...subs.map(k => el("button", {type: "button",
        class: "sub" + (k === cur ? " sel" : ""), dataset: {setupSub: k}, "aria-pressed": String(k === cur), onclick: () => { cur = k; redraw(false); }},
        `${k}: ${place[k] || "not placed"}, ${spec[k] ? spName(spec[k]) : "no special"}`))));
      if (cur) {
        body.append(el("p", {class: "cmdhelp"}, `Sub ${cur}: click a space of your home row (row ${row}) on the board, or:`),
          el("div", {class: "seg", role: "group", "aria-label": `space of sub ${cur}`}, ...COLS.split("").map(c => `${c}${row}`).map(sp => el("button", {type: "button",
            class: place[cur] === sp ? "on" : "", dataset: {space: sp}, disabled: taken.includes(sp) && place[cur] !== sp ? "disabled" : null,
            onclick: () => { place[cur] = sp; advance(); }}, sp))),
          el("p", {class: "cmdhelp"}, `Special of sub ${cur} (each sub a different one; what it does shows below):`),
          el("div", {class: "seg", role: "group", "aria-label": `special of sub ${cur}`}, ...catalog.map(x => el("button", {type: "button",
            class: spec[cur] === x ? "on" : "", dataset: {special: x}, title: SPECIAL_TEXT(x), disabled: usedSp.includes(x) && spec[cur] !== x ? "disabled" : null,
            onclick: () => { spec[cur] = x; advance(); },
            // on a touch screen the first tap is a "hover" that changed the page, and the browser
            // then swallowed the click: a special took two taps (newcomer audit); there the words
            // of the special follow the tap instead
            ...(TOUCH() ? {} : {onmouseenter: () => { words.textContent = SPECIAL_TEXT(x); },
                                onfocus: () => { words.textContent = SPECIAL_TEXT(x); }})}, spName(x)))),
          words);
        words.textContent = spec[cur] ? SPECIAL_TEXT(spec[cur]) : said || "Point at or tap a special to read what it does.";
      }
      ui.board.clear();
      subs.forEach(k => { if (place[k]) ui.board.mark(place[k], k === cur ? "sel" : "plan", `sub ${k}${spec[k] ? ", " + spec[k] : ""}`, k); });
      ui.board.draw();
      const done = subs.every(k => place[k] && spec[k]);
      const need = missing();
      status.textContent = done ? "All five subs placed with their specials: press Submit." : need;
      ui.ready(done, need);  // Submit stays off, with this sentence beside it, until the fleet is complete
      if (push && done) ui.setOrders({type: "setup", placement: {...place}, specials: {...spec}});
    }
    // what is still missing, as one sentence ("Place sub c on row 1 and pick its special.")
    function missing() {
      const k = subs.find(x => !(place[x] && spec[x]));
      if (!k) return "";
      const left = subs.filter(x => !(place[x] && spec[x])).length;
      const what = !place[k] && !spec[k] ? `Place sub ${k} on row ${row} and pick its special` :
        !place[k] ? `Place sub ${k} on row ${row}` : `Pick a special for sub ${k}`;
      return `${what}${left > 1 ? ` (${left} subs still to set up)` : ""}.`;
    }
    // once a sub has both, go on to the next unfinished one; the special just picked stays in words
    // (on a phone a tap picked it and moved on, and its words never showed: audit)
    let said = "";
    function advance() {
      said = spec[cur] ? `Sub ${cur}'s special — ${SPECIAL_TEXT(spec[cur])}` : "";
      if (place[cur] && spec[cur]) { const next = subs.find(k => !(place[k] && spec[k])); if (next) cur = next; }
      redraw();
    }
    ui.board.onClick(sp => {
      if (!cur || !sp.endsWith(String(row))) { ui.say(`Subs start on your home row, row ${row}.`, true); return; }
      if (Object.entries(place).some(([k, v]) => v === sp && k !== cur)) { ui.say(`${sp} already holds another of your subs.`, true); return; }
      place[cur] = sp; advance();
    });
    box.append(el("p", {class: "hint"}, `Setup: choose a sub, click its space on row ${row}, then pick its special. The opponent does the same in secret.`), body, status);
    redraw();
    return {load(p) {
      if (!p) return;
      for (const k of subs) { delete place[k]; delete spec[k]; }
      Object.assign(place, p.placement || {}); Object.assign(spec, p.specials || {});
      redraw(false);
    }};
  }
  (window.botwarsGames = window.botwarsGames || {}).submarine = kit;
})();
