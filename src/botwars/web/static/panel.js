// A drawing with a side panel (a board's squares end before the picture does, by the drawing's
// grid metadata, .grid-meta): on a narrow screen the board alone fills the width and the panel
// follows under it as a second picture of the same drawing (issue 23: on a phone a whole drawing
// scaled to the screen had squares of ~20 px and panel text of ~5 px). The seat page calls
// botwarsSplitPanel for its board; pictures on static pages (how to play, past turns, the whole
// game) are split here when the page loads.
"use strict";
(function () {
  const NARROW = window.matchMedia("(max-width: 700px)");
  // split svg (in the page) into the board and, inserted after `anchor` (default: the svg), the
  // panel; returns the panel's box or null (a wide screen, or no panel)
  // (fold: the panel under a closed "The board's notes" disclosure, for the seat page, whose
  // side cards say the same in words: a dice game's pool made a phone page 800 px longer)
  function split(svg, anchor, boxAttrs, fold) {
    const g = svg.querySelector(".grid-meta"), vb = (svg.getAttribute("viewBox") || "").split(/\s+/).map(Number);
    if (!NARROW.matches || !g || vb.length !== 4) return null;
    const m = {cols: +g.dataset.cols, rows: +g.dataset.rows, cell: +g.dataset.cell, margin: +g.dataset.margin};
    const bw = m.cols * m.cell + 2 * m.margin, bh = m.rows * m.cell + 2 * m.margin;
    if (!(bw > 0) || vb[2] - bw < 40) return null;  // no panel
    const side = svg.cloneNode(true);
    svg.setAttribute("viewBox", `0 0 ${bw} ${bh}`);
    svg.setAttribute("width", bw); svg.setAttribute("height", bh);
    svg.dataset.cropped = "true";
    side.setAttribute("viewBox", `${bw} 0 ${vb[2] - bw} ${vb[3]}`);
    side.setAttribute("width", vb[2] - bw); side.setAttribute("height", vb[3]);
    side.setAttribute("aria-hidden", "true");  // the board in words (or the caption) says the same
    side.querySelectorAll("[id]").forEach(e => e.removeAttribute("id"));
    const box = document.createElement("div");
    Object.entries(boxAttrs || {class: "board-side"}).forEach(([k, v]) => box.setAttribute(k, v));
    if (fold) {
      const d = document.createElement("details"), sum = document.createElement("summary");
      sum.textContent = "The board's notes (turn, pieces, what the drawing lists beside the board)";
      d.append(sum, side);
      box.append(d);
    } else box.append(side);
    (anchor || svg).after(box);
    // as tall as the panel's own lines (the drawing is at least as tall as the board)
    let bottom = 0;
    if (fold) box.querySelector("details").open = true;  // measured open, then folded
    side.querySelectorAll("text, g.pool-command").forEach(t => {
      const b = t.getBBox();
      if (b.x >= bw && b.width) bottom = Math.max(bottom, b.y + b.height);
    });
    if (bottom > 0 && bottom + 8 < vb[3]) {
      side.setAttribute("viewBox", `${bw} 0 ${vb[2] - bw} ${bottom + 8}`);
      side.setAttribute("height", bottom + 8);
    }
    if (fold) box.querySelector("details").open = false;
    return box;
  }
  window.botwarsSplitPanel = split;
  window.botwarsNarrow = NARROW;
  const pictures = () => document.querySelectorAll("figure.howto-picture svg, .archive-frame svg");
  document.addEventListener("DOMContentLoaded", () => pictures().forEach(svg => split(svg)));
})();
