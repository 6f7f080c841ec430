// The factory seat page's order entry (declared as GAME.web_entry; loaded before /static/play.js).
"use strict";
(function () {
  let el = null, setOrders = null;  // the page's helpers, handed over on each call
  function cardId(c) { const p = String(c).split(" "); return Number(p[p.length - 1]); }
  // factory: click hand cards into the registers; reboot checkbox; F-15.1 payload
  function factoryEntry(entry, view) {
    const hand = view.hand || [], k = view.free_registers || 0, prog = [];
    const handBox = el("div", {class: "cards", "aria-label": "hand"}), regs = el("ol", {class: "registers"});
    const reboot = el("input", {type: "checkbox", id: "reboot"});
    function redraw() {
      handBox.innerHTML = ""; regs.innerHTML = "";
      hand.forEach(c => { if (!prog.includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)},
        onclick: () => { if (prog.length < k) { prog.push(c); redraw(); } }}, c)); });
      for (let i = 0; i < k; i++) regs.append(el("li", {}, prog[i] ? el("button", {type: "button", class: "cardbtn in",
        onclick: () => { prog.splice(i, 1); redraw(); }}, prog[i]) : el("span", {class: "empty"}, "empty")));
      setOrders({type: "program", cards: prog.map(cardId), reboot: reboot.checked});
    }
    reboot.addEventListener("change", redraw);
    entry.append(el("p", {class: "hint"}, `Click ${k} cards into your registers (click a register to take its card back).`),
      el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, el("label", {}, reboot, " reboot (power down this turn)"));
    redraw();
  }
  (window.botwarsEntries = window.botwarsEntries || {}).factory = function (entry, view, h, ui) {
    el = ui.el; setOrders = ui.setOrders;
    factoryEntry(entry, view, h);
  };
})();
