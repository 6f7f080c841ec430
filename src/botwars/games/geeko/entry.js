// The geeko seat page's order entry (declared as GAME.web_entry; loaded before /static/play.js).
"use strict";
(function () {
  let el = null, setOrders = null;  // the page's helpers, handed over on each call
  function cardId(c) { const p = String(c).split(" "); return Number(p[p.length - 1]); }
  // geeko: cards into each robot's registers, the same number for every robot (G-16.1)
  function geekoEntry(entry, view) {
    const hand = view.hand || [], robots = Object.keys(view.robots || {}).filter(r => view.robots[r].free > 0);
    const prog = Object.fromEntries(robots.map(r => [r, []]));
    let cur = robots[0];
    const handBox = el("div", {class: "cards"}), regs = el("div", {class: "registers-multi"});
    const reboot = el("select", {id: "reboot", "aria-label": "reboot"}, el("option", {value: ""}, "no reboot"),
      ...Object.keys(view.robots || {}).map(r => el("option", {value: r}, `reboot robot ${r}`)));
    reboot.addEventListener("change", () => redraw());
    function used() { return Object.values(prog).flat(); }
    function redraw() {
      handBox.innerHTML = ""; regs.innerHTML = "";
      hand.forEach(c => { if (!used().includes(c)) handBox.append(el("button", {type: "button", class: "cardbtn", dataset: {card: cardId(c)},
        onclick: () => { if (cur && prog[cur].length < view.robots[cur].free) { prog[cur].push(c); redraw(); } }}, c)); });
      robots.forEach(r => {
        const row = el("div", {class: "regrow" + (r === cur ? " sel" : "")},
          el("button", {type: "button", class: "robot" + (r === cur ? " sel" : ""), dataset: {robot: r}, onclick: () => { cur = r; redraw(); }}, `robot ${r} (${view.robots[r].square})`));
        prog[r].forEach((c, i) => row.append(el("button", {type: "button", class: "cardbtn in", onclick: () => { prog[r].splice(i, 1); redraw(); }}, c)));
        regs.append(row);
      });
      const L = robots.length ? Math.min(...robots.map(r => prog[r].length)) : 0;
      const p = {type: "program", length: L, reboot: reboot.value || null};
      robots.forEach(r => { p[r] = prog[r].slice(0, L).map(cardId); });
      setOrders(p);
    }
    entry.append(el("p", {class: "hint"}, "Pick a robot, then click cards into its registers; every robot gets the same number of cards. " +
      "If no robot can be given a card it may use, send no cards at all (length 0, G-4.5)."),
      el("h3", {}, "Hand"), handBox, el("h3", {}, "Registers"), regs, el("label", {}, "Reboot (G-8.1) ", reboot));
    redraw();
  }
  (window.botwarsEntries = window.botwarsEntries || {}).geeko = function (entry, view, h, ui) {
    el = ui.el; setOrders = ui.setOrders;
    geekoEntry(entry, view, h);
  };
})();
