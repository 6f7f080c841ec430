// Arena starter bot, JSON-lines protocol (docs/bots.md), standard library only.
// Build:  rustc -O -o /tmp/botwars-starter-rust examples/starters/rust/bot.rs
// Check:  botwars bot check cmd:/tmp/botwars-starter-rust --game arena
// Each line on stdin is one view (arena P11); answer one line of orders (P12) and flush.
// Every robot of yours walks towards the centre and defends there; an adjacent enemy is attacked.
use std::collections::HashSet;
use std::io::{self, BufRead, Write};

const CX: i64 = 8;
const CY: i64 = 8;

/// The integer after `"key":` starting the search at `from`; returns (value, index after it).
fn int_after(s: &str, key: &str, from: usize) -> Option<(i64, usize)> {
    let pat = format!("\"{}\":", key);
    let at = s[from..].find(&pat)? + from + pat.len();
    let rest = s[at..].trim_start();
    let skip = s.len() - at - rest.len();
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(rest.len());
    Some((rest[..end].parse().ok()?, at + skip + end))
}

/// (side, x, y) of every robot in the view: each robot object has "side", "x", "y" (any key order
/// inside the object; the engine writes compact JSON).
fn robots(view: &str) -> Vec<(char, i64, i64)> {
    let mut out = Vec::new();
    let start = match view.find("\"robots\":[") { Some(i) => i, None => return out };
    let mut i = start;
    while let Some(open) = view[i..].find('{') {
        let open = open + i;
        let close = match view[open..].find('}') { Some(c) => c + open, None => break };
        let obj = &view[open..=close];
        let side = if obj.contains("\"side\":\"F\"") { 'F' } else { 'E' };
        if let (Some((x, _)), Some((y, _))) = (int_after(obj, "x", 0), int_after(obj, "y", 0)) {
            out.push((side, x, y));
        }
        i = close + 1;
        if view[i..].trim_start().starts_with(']') { break; }
    }
    out
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout();
    let dirs = [("N", 0, 1), ("E", 1, 0), ("S", 0, -1), ("W", -1, 0)];
    for line in stdin.lock().lines() {
        let line = match line { Ok(l) => l, Err(_) => break };
        let rs = robots(&line);
        let foes: HashSet<(i64, i64)> = rs.iter().filter(|r| r.0 == 'E').map(|r| (r.1, r.2)).collect();
        let mut orders = Vec::new();
        for &(side, x, y) in &rs {
            if side != 'F' { continue; }
            let hit = dirs.iter().find(|d| foes.contains(&(x + d.1, y + d.2)));
            let o = if let Some(d) = hit {
                format!("{{\"x\":{},\"y\":{},\"action\":\"A\",\"dir\":\"{}\"}}", x, y, d.0)
            } else if x == CX && y == CY {
                format!("{{\"x\":{},\"y\":{},\"action\":\"D\"}}", x, y)
            } else {
                let d = if (CX - x).abs() >= (CY - y).abs() { if CX > x { "E" } else { "W" } }
                        else if CY > y { "N" } else { "S" };
                format!("{{\"x\":{},\"y\":{},\"action\":\"M\",\"dir\":\"{}\"}}", x, y, d)
            };
            orders.push(o);
        }
        writeln!(out, "{{\"orders\":[{}]}}", orders.join(",")).unwrap();
        out.flush().unwrap();
    }
}
