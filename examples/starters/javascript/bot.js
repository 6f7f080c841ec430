// Arena starter bot, JSON-lines protocol (docs/bots.md). No build step. Check it:
//   botwars bot check "cmd:node --jitless --max-old-space-size=64 examples/starters/javascript/bot.js" --game arena
// (--jitless: V8 then fits in the arena's 512 MiB address-space limit; or raise it with --set memory_limit_mib=2048)
// Each line on stdin is one view (arena P11); answer one line of orders (P12).
// Every robot of yours walks towards the centre and defends there; an adjacent enemy is attacked.
"use strict";
const readline = require("readline");
const DIRS = { N: [0, 1], E: [1, 0], S: [0, -1], W: [-1, 0] };
const CX = 8, CY = 8;

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const view = JSON.parse(line);
  const foes = new Set(view.robots.filter((r) => r.side === "E").map((r) => `${r.x}:${r.y}`));
  const orders = [];
  for (const r of view.robots) {
    if (r.side !== "F") continue;
    const { x, y } = r;
    const hit = Object.keys(DIRS).find((d) => foes.has(`${x + DIRS[d][0]}:${y + DIRS[d][1]}`));
    if (hit) orders.push({ x, y, action: "A", dir: hit });
    else if (x === CX && y === CY) orders.push({ x, y, action: "D" });
    else if (Math.abs(CX - x) >= Math.abs(CY - y)) orders.push({ x, y, action: "M", dir: CX > x ? "E" : "W" });
    else orders.push({ x, y, action: "M", dir: CY > y ? "N" : "S" });
  }
  process.stdout.write(JSON.stringify({ orders }) + "\n");
});
rl.on("close", () => process.exit(0)); // the engine closed stdin: the match is over
