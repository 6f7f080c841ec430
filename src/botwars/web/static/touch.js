// Every page, on a touch screen (issue 23 item 6):
// - html.touch is set, so app.css shows touch help instead of keyboard help, also where the
//   browser's media queries report a mouse: by its touch points, or from its first touch;
// - the pages' own words say "tap", not "click" or "point at" (a phone has neither): every text
//   the pages write into <main> is read once more, then whenever it changes.
(function () {
  const root = document.documentElement;
  const WORDS = [
    [/\b(C|c)lick(ing|ed|s)?\b/g, (m, c, end) => (c === "C" ? "T" : "t") + "ap" + ({ing: "ping", ed: "ped", s: "s"}[end] || "")],
    [/\b(P|p)oint at or tap\b/g, (m, p) => (p === "P" ? "T" : "t") + "ap"],
    [/\b(P|p)oint at\b/g, (m, p) => (p === "P" ? "T" : "t") + "ap"],
  ];
  const SKIP = new Set(["SCRIPT", "STYLE", "TEXTAREA", "INPUT", "CODE", "PRE"]);
  function fix(node) {
    if (node.nodeType === 3) {
      const p = node.parentNode;
      if (!p || SKIP.has(p.nodeName) || !/lick|oint at/.test(node.data)) return;
      let t = node.data;
      for (const [re, to] of WORDS) t = t.replace(re, to);
      if (t !== node.data) node.data = t;
    } else if (node.nodeType === 1 && !SKIP.has(node.nodeName)) {
      for (const c of node.childNodes) fix(c);
    }
  }
  let watching = false;
  function watch() {
    if (watching || !document.body) return;
    watching = true;
    fix(document.body);
    new MutationObserver(rs => rs.forEach(r => {
      if (r.type === "characterData") fix(r.target);
      else r.addedNodes.forEach(fix);
    })).observe(document.body, {childList: true, subtree: true, characterData: true});
  }
  const markTouch = () => {
    root.classList.add("touch");
    if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch, {once: true});
  };
  if (navigator.maxTouchPoints > 0 || matchMedia("(hover: none), (pointer: coarse)").matches) markTouch();
  window.addEventListener("touchstart", markTouch, {once: true, passive: true});
})();
