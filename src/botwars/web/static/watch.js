// Watch the turn (issue 23 item 4), on seat and spectator pages: after each resolved decision
// point the board plays what happened as a sequence of pictures — for games with stages one per
// sub-step of every stage, for the others the board before the point and then one picture per
// step of its events (all moves, then all attacks; each command's effects; each action's) —
// with Replay, Step back, Pause/Play, Step and Live board buttons.
// Pictures come from /web/matches/ID/turn/N/watch.json with the page's own token: the server draws
// each one for this seat (or a spectator) only, so a frame never shows what the viewer may not see.
// With prefers-reduced-motion: reduce nothing plays by itself: the live (final) board stays, and
// the step buttons show the pictures one at a time.
"use strict";
(function () {
  const page = document.getElementById("page"), boardBox = document.getElementById("board");
  if (!page || !boardBox) return;
  const M = page.dataset.match, GAME = page.dataset.game, TOKEN = page.dataset.token || "";
  const KIT = (window.botwarsGames || {})[GAME] || {};
  const STEP_MS = 1100, LAST_MS = 1800, BACK = 3;  // per picture; the last one; points replayed at most
  const reduced = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const mk = (tag, attrs, text) => {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  // seat names from the page's palette (render/palette.py, in the page's data), as play.js names them
  const PALETTE = JSON.parse(page.dataset.palette || "{}");
  const seatName = s => { const p = (PALETTE.seats || {})[s], i = (KIT.seats || {})[s];
                          return p ? p.name : (i && i.name) || String(s); };
  const kitUi = {seatName, el: (t, a, ...k) => { const e = mk(t, a); k.forEach(x => x !== null && x !== undefined && e.append(x)); return e; }};
  function sentence(e) {  // one event in the kit's words (null: nothing to say)
    try { return KIT.describe ? KIT.describe(e, kitUi) || null : null; } catch (err) { return null; }
  }

  // ---- the elements: a picture in place of the board, and a bar right under it ---------------------
  const pic = mk("div", {id: "watch-pic", class: "board watch-pic", role: "img", hidden: ""});
  const bar = mk("div", {id: "watch", class: "watch card", hidden: "", "data-frame": "live", "data-count": "0", "data-playing": "false"});
  const title = mk("span", {class: "watch-title"}, "Last turn");
  const tools = mk("div", {class: "watch-tools", role: "toolbar", "aria-label": "watch the last turn"});
  // the buttons' icons are drawn (SVG), not characters: ⏸ and ⟲ are boxes in Chromium's default fonts
  const ICON = {play: "M4 2.5v11l9.5-5.5z", pause: "M3.5 2.5h3.2v11H3.5zM9.3 2.5h3.2v11H9.3z",
                back: "M12 2.5v11L2.5 8z", next: "M4 2.5v11L13.5 8z",
                replay: "M8 2.2a5.8 5.8 0 1 1-5.6 4.3l1.9.5A3.8 3.8 0 1 0 8 4.2v2.3L4.3 3.2 8 0z"};
  const label = (b, icon, text) => {  // an icon then words; the icon first unless it points forward
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 16 16"); svg.setAttribute("width", "13"); svg.setAttribute("height", "13");
    svg.setAttribute("aria-hidden", "true"); svg.setAttribute("class", "icon"); svg.dataset.icon = icon;
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICON[icon]); path.setAttribute("fill", "currentColor");
    svg.append(path);
    b.textContent = "";
    if (icon === "next") b.append(text + " ", svg); else b.append(svg, " " + text);
  };
  const btn = (key, icon, text, aria) => { const b = mk("button", {type: "button", "data-watch": key, "aria-label": aria}); label(b, icon, text); tools.append(b); return b; };
  const bReplay = btn("replay", "replay", "Replay", "replay the last turn from its start");
  const bPrev = btn("prev", "back", "Back", "previous picture");
  const bPlay = btn("play", "pause", "Pause", "pause");
  const bNext = btn("next", "next", "Step", "next picture");
  const bLive = mk("button", {type: "button", "data-watch": "live", "aria-label": "back to the live board"}, "Live board");
  tools.append(bLive);
  const pos = mk("span", {class: "watch-pos", "aria-live": "off"});
  const caption = mk("p", {class: "watch-caption", "aria-live": "polite"});
  bar.append(mk("div", {class: "watch-head"}), caption);
  bar.firstChild.append(title, pos, tools);
  boardBox.before(pic);
  boardBox.after(bar);
  boardBox.parentElement.classList.add("watch-host");

  let frames = [], at = -1, timer = null, playing = false, shown = 0, seq = 0, opened = null, seqFrom = 0;

  function captionOf(fr) {
    if (fr.label === "before") return `Before: the board as it was before ${fr.point}.`;
    if (fr.stage) return fr.label;
    const lines = fr.events.map(sentence).filter(Boolean);
    return lines.length ? lines.join(" ") : (fr.label === "after" ? "After: nothing you can see changed." : "");
  }
  function show(j) {  // j: a frame index, or -1 for the live board
    at = j;
    const live = j < 0 || !frames.length;
    pic.hidden = live;
    page.classList.toggle("watching", !live);
    if (!live) {  // over the live board, the same size; clicks go through to it (pointer-events: none)
      Object.assign(pic.style, {left: `${boardBox.offsetLeft}px`, top: `${boardBox.offsetTop}px`,
                                width: `${boardBox.offsetWidth}px`, height: `${boardBox.offsetHeight}px`});
    }
    bar.dataset.frame = live ? "live" : String(j);
    if (live) {
      pic.innerHTML = "";
      caption.textContent = frames.length ? "The live board: the turn is over. Replay or step through it with the buttons." : "";
      pos.textContent = frames.length ? `${frames.length} pictures` : "";
    } else {
      const fr = frames[j];
      pic.innerHTML = fr.svg || "";
      const svg = pic.querySelector("svg");
      if (svg) svg.setAttribute("aria-hidden", "true");
      const board = boardBox.querySelector("svg");
      if (svg && board && board.dataset.cropped) {  // a phone: the live board is shown without its side panel
        for (const a of ["viewBox", "width", "height"]) svg.setAttribute(a, board.getAttribute(a));
      }
      pic.setAttribute("aria-label", `picture ${j + 1} of ${frames.length} of the last turn`);
      caption.textContent = captionOf(fr);
      pos.textContent = `${j + 1} / ${frames.length}`;
    }
    bPrev.disabled = live ? !frames.length : j === 0;
    bNext.disabled = !frames.length;
    bLive.disabled = live;
  }
  function setPlaying(on) {
    playing = on && !reduced();
    bar.dataset.playing = String(playing);
    label(bPlay, playing ? "pause" : "play", playing ? "Pause" : "Play");
    bPlay.setAttribute("aria-label", playing ? "pause" : "play the last turn");
    clearTimeout(timer);
    if (playing) tick();
  }
  function tick() {
    timer = setTimeout(() => {
      if (!playing) return;
      if (at >= frames.length - 1) { setPlaying(false); show(-1); return; }  // done: back to the live board
      show(at + 1);
      tick();
    }, at >= frames.length - 2 ? LAST_MS : STEP_MS);
  }
  bReplay.onclick = () => { if (!frames.length) return; show(0); setPlaying(true); };
  bPlay.onclick = () => {
    if (playing) { setPlaying(false); return; }
    if (at < 0 || at >= frames.length - 1) show(0);
    setPlaying(true);
  };
  bPrev.onclick = () => { setPlaying(false); if (frames.length) show(at < 0 ? frames.length - 1 : Math.max(0, at - 1)); };
  bNext.onclick = () => { setPlaying(false); if (!frames.length) return; if (at >= frames.length - 1) show(-1); else show(at + 1); };
  bLive.onclick = () => { setPlaying(false); show(-1); };
  // a player who reaches for the board (a click, a tap, a key on it) wants the live board at once;
  // the click itself goes to the board underneath and counts
  const toLive = () => { if (at >= 0) { setPlaying(false); show(-1); } };
  boardBox.addEventListener("pointerdown", toLive, true);
  boardBox.addEventListener("keydown", toLive, true);
  window.addEventListener("resize", () => { if (at >= 0) show(at); });
  if (reduced()) { bPlay.hidden = true; label(bReplay, "replay", "First picture"); bReplay.setAttribute("aria-label", "the first picture of the last turn"); }

  async function fetchPoint(n) {
    const q = TOKEN ? `?token=${encodeURIComponent(TOKEN)}` : "";
    try {
      const r = await fetch(`/web/matches/${M}/turn/${n}/watch.json${q}`);
      if (!r.ok) return null;
      return await r.json();
    } catch (e) { return null; }
  }
  // the points from..n (a seat that played and then saw the opponent answer watches both)
  async function load(from, n, autoplay, continueAt) {
    const my = ++seq, all = [];
    for (let k = Math.max(1, from, n - BACK + 1); k <= n; k++) {
      const j = await fetchPoint(k);
      if (my !== seq) return;
      if (!j) continue;
      const point = n > Math.max(1, from, n - BACK + 1) ? "these moves" : "this move";  // plain words, never "decision point"
      j.frames.forEach((f, i) => {
        const fr = {...f, point, stage: j.stages};
        // a step whose events say nothing in words (and draw nothing new) is folded into the next one
        if (!j.stages && fr.label.startsWith("step") && !fr.events.map(sentence).some(Boolean) && i < j.frames.length - 1) return;
        if (!j.stages && all.length && fr.label === "before") return;  // the next point starts where the last ended
        all.push(fr);
      });
    }
    if (my !== seq) return;
    frames = all;
    bar.hidden = !frames.length;
    bar.dataset.count = String(frames.length);
    const moves = n - Math.max(1, from, n - BACK + 1) + 1;
    // which turn this is, as "What just happened" heads it ("The last move: Turn 26"): playing
    // under a header that already says "Turn 27" read as the board going backwards (audit)
    const head = k => { const h = document.querySelector(`#events h3[data-decision="${k}"]`); return h ? h.textContent : ""; };
    const a = head(Math.max(1, from, n - BACK + 1)), b = head(n);
    title.textContent = moves > 1 ? `The last ${moves} moves${a && b ? ` (${a} to ${b})` : ""}` : `The last move${b ? `: ${b}` : ""}`;
    if (!frames.length) { show(-1); return; }
    seqFrom = Math.max(1, from, n - BACK + 1);
    if (autoplay && !reduced()) { show(continueAt > 0 && continueAt < frames.length ? continueAt : 0); setPlaying(true); }
    else { setPlaying(false); show(-1); }
  }

  function check() {
    const d = Number(page.dataset.decision || 0), out = document.getElementById("outcome");
    const ended = page.dataset.status === "ended" || (out && !out.hidden);
    const n = ended ? d : d - 1;  // once over, the decision number is the last point's own
    if (!d) return;  // no view yet
    const first = opened === null;
    if (first) opened = d;
    if (n < 1 || n === shown) return;
    // a point that comes while the last ones still play joins them (a seat's own move, then the answer)
    const going = playing && at >= 0;
    const from = first || !shown ? n : (going ? seqFrom : shown + 1);
    shown = n;
    // a page just opened does not play by itself; a turn that happens while it is open does, but
    // not the one that ended the match: the end screen is the news, and a board still moving under
    // it for half a minute read as a match going on (newcomer audit); Play replays it on request
    load(from, n, !first && !ended, going ? at : -1);
  }
  new MutationObserver(check).observe(page, {attributes: true, attributeFilter: ["data-decision", "data-status"]});
  check();
  window.botwarsWatch = {get frames() { return frames; }, show, play: () => bPlay.click()};
})();
