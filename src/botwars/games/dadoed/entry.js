// The dadoed seat page's order entry (declared as GAME.web_entry; loaded before /static/play.js).
"use strict";
(function () {
  let el = null, setOrders = null;  // the page's helpers, handed over on each call
  // dadoed: command, tile, direction from the legal orders (D-12.4); setup uses the JSON box
  function dadoedEntry(entry, view, h) {
    const legal = h.legal;
    if (!legal || !legal.length) {
      entry.append(el("p", {class: "hint"}, view.phase === "setup" ? "Setup: give each bot its supers, e.g. {\"type\":\"setup\",\"supers\":{\"A\":[\"step\",\"dash\"],...}}, or ask a bot for a suggestion." : "No legal order listed."));
      return;
    }
    const cmd = el("select", {id: "d-command", "aria-label": "command"}), tile = el("select", {id: "d-tile", "aria-label": "tile"}),
          dir = el("select", {id: "d-direction", "aria-label": "direction"});
    function opts(sel, vals) { const old = sel.value; sel.innerHTML = ""; vals.forEach(v => sel.append(el("option", {value: v}, v || "–"))); if (vals.includes(old)) sel.value = old; }
    const key = o => o.type === "command" ? o.command : o.type;
    function refresh() {
      opts(cmd, [...new Set(legal.map(key))]);
      const a = legal.filter(o => key(o) === cmd.value);
      opts(tile, [...new Set(a.map(o => o.tile || ""))]);
      const b = a.filter(o => (o.tile || "") === tile.value);
      opts(dir, [...new Set(b.map(o => o.direction || ""))]);
      const c = b.find(o => (o.direction || "") === dir.value) || b[0];
      if (c) setOrders(c);
    }
    [cmd, tile, dir].forEach(s => s.addEventListener("change", refresh));
    entry.append(el("p", {class: "hint"}, `${legal.length} legal orders. Choose command, tile, direction (or type the order in the notation).`),
      el("div", {class: "row"}, el("label", {}, "Command ", cmd), el("label", {}, "Tile ", tile), el("label", {}, "Direction ", dir)));
    refresh();
  }
  (window.botwarsEntries = window.botwarsEntries || {}).dadoed = function (entry, view, h, ui) {
    el = ui.el; setOrders = ui.setOrders;
    dadoedEntry(entry, view, h);
  };
})();
