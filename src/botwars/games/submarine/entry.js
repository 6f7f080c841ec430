// The submarine seat page's order entry (declared as GAME.web_entry; loaded before /static/play.js).
"use strict";
(function () {
  let el = null, setOrders = null;  // the page's helpers, handed over on each call
  // submarine: a sequence of actions from the legal actions, with the AP counter (S-12.2)
  function submarineEntry(entry, view, h) {
    const acts = h.actions;
    if (!acts || !acts.length) {
      entry.append(el("p", {class: "hint"}, "Setup: place your five submarines on your home row and give each a special, e.g. {\"type\":\"setup\",\"placement\":{...},\"specials\":{...}}, or ask a bot for a suggestion."));
      return;
    }
    const seq = [], ap = view.ap || 0;
    const sel = el("select", {id: "s-action", "aria-label": "action"});
    const text = a => Object.entries(a).filter(([k]) => k !== "cost").map(([k, v]) => `${k}=${v}`).join(" ") + ` (${a.cost} AP)`;
    acts.forEach((a, i) => sel.append(el("option", {value: i}, text(a))));
    const list = el("ol", {class: "seq"}), counter = el("span", {id: "ap-counter"});
    function redraw() {
      list.innerHTML = "";
      seq.forEach((a, i) => list.append(el("li", {}, text(a), " ", el("button", {type: "button", onclick: () => { seq.splice(i, 1); redraw(); }}, "remove"))));
      const used = seq.reduce((t, a) => t + a.cost, 0);
      counter.textContent = `AP ${used} / ${ap}`;
      counter.classList.toggle("error", used > ap);
      setOrders({type: "orders", actions: seq.map(a => Object.fromEntries(Object.entries(a).filter(([k]) => k !== "cost")))});
    }
    entry.append(el("p", {class: "hint"}, "Add actions in order; the counter shows the action points used."),
      el("div", {class: "row"}, sel, el("button", {type: "button", id: "s-add", onclick: () => { seq.push(acts[Number(sel.value)]); redraw(); }}, "Add"), counter), list);
    redraw();
  }
  (window.botwarsEntries = window.botwarsEntries || {}).submarine = function (entry, view, h, ui) {
    el = ui.el; setOrders = ui.setOrders;
    submarineEntry(entry, view, h);
  };
})();
