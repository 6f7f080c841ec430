// The seats of a page without controls (replay viewer, past turns): the palette's colours and
// colour words (render/palette.py, in the page's data) put into the game's kit, whose own code
// names a seat as kit.seats[s].name, and seatInfo(s) -> {name, colour, ink, letter} for the page.
"use strict";
window.botwarsSeatsOf = function (KIT, PALETTE) {
  for (const [s, p] of Object.entries(PALETTE.seats || {})) {
    KIT.seats = KIT.seats || {};
    KIT.seats[s] = Object.assign({}, KIT.seats[s] || {}, {name: p.name, colour: p.colour, ink: p.ink});
  }
  return s => { const p = (PALETTE.seats || {})[s], k = (KIT.seats || {})[s] || {};
    return Object.assign({name: String(s), colour: "#666", letter: String(s).slice(0, 1).toUpperCase()}, k,
                         p ? {name: p.name, colour: p.colour, ink: p.ink} : {}); };
};
