// The arena seat page's order entry (declared as GAME.web_entry; loaded before /static/play.js).
"use strict";
(function () {
  let el = null, setOrders = null;  // the page's helpers, handed over on each call
  // arena: click a robot, then an order; P12 JSON {"orders": [{"x","y","action","dir"}]}
  function arenaEntry(entry, view) {
    const mine = (view.robots || []).filter(r => r.side === "F");
    const orders = {};
    mine.forEach(r => { orders[`${r.x}:${r.y}`] = {x: r.x, y: r.y, action: "D"}; });
    let sel = mine.length ? `${mine[0].x}:${mine[0].y}` : null;
    const list = el("div", {class: "robots", role: "listbox", "aria-label": "your robots"});
    const acts = el("div", {class: "acts"});
    function label(o) { return o.action + (o.dir ? " " + o.dir : ""); }
    function redraw() {
      list.innerHTML = "";
      mine.forEach(r => {
        const k = `${r.x}:${r.y}`;
        list.append(el("button", {type: "button", class: "robot" + (k === sel ? " sel" : ""), dataset: {sq: k},
          "aria-pressed": String(k === sel), onclick: () => { sel = k; redraw(); }}, `${k} ${r.hp}HP → ${label(orders[k])}`));
      });
      setOrders({orders: Object.values(orders)});
    }
    function order(action, dir) {
      if (!sel) return;
      const [x, y] = sel.split(":").map(Number);
      orders[sel] = dir ? {x, y, action, dir} : {x, y, action};
      redraw();
    }
    for (const a of ["M", "A"]) for (const d of ["N", "E", "S", "W"])
      acts.append(el("button", {type: "button", dataset: {order: a + d}, onclick: () => order(a, d)}, `${a === "M" ? "Move" : "Attack"} ${d}`));
    acts.append(el("button", {type: "button", dataset: {order: "D"}, onclick: () => order("D")}, "Defend"),
                el("button", {type: "button", dataset: {order: "S"}, onclick: () => order("S")}, "Self-destruct"));
    entry.append(el("p", {class: "hint"}, "Click a robot (X:Y), then its order. Unchanged robots defend."), list, acts);
    redraw();
  }
  (window.botwarsEntries = window.botwarsEntries || {}).arena = function (entry, view, h, ui) {
    el = ui.el; setOrders = ui.setOrders;
    arenaEntry(entry, view, h);
  };
})();
