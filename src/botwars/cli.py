"""The ``botwars`` command line (Typer + Rich)."""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from botwars.engine.errors import BotwarsError, ConfigError, RecordError

app = typer.Typer(help="botwars: play, check and replay turn-based grid robot battle games.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
scenario_app = typer.Typer(help="Scenario files: write a ruling down as YAML and check it.", no_args_is_help=True)
board_app = typer.Typer(help="Board and map files: validate them.", no_args_is_help=True)
app.add_typer(scenario_app, name="scenario")
app.add_typer(board_app, name="board")

console = Console()
err_console = Console(stderr=True)


def _fail(msg: str, code: int = 2) -> None:
    err_console.print(f"[bold red]error:[/] {msg}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(code)


def _guard(fn):
    """Run ``fn``; turn botwars errors into a one-line message and exit code 2."""
    try:
        return fn()
    except ConfigError as exc:
        _fail(exc.one_line())
    except BotwarsError as exc:
        _fail(str(exc))


@app.command()
def games(game: Optional[str] = typer.Argument(None, help="Show this game's parameter table.")) -> None:
    """List the games (rule sets), or one game's parameters with their defaults."""
    from botwars.engine.ruleset import get_ruleset, ruleset_ids

    def run():
        if game:
            rs = get_ruleset(game)
            t = Table(title=f"{rs.id} parameters (set with --set key=value)")
            t.add_column("parameter")
            t.add_column("default")
            t.add_column("meaning")
            for p in rs.params:
                t.add_row(p.name, json.dumps(p.default), p.doc)
            console.print(t)
            bots = ", ".join(f"builtin:{b}" for b in sorted(rs.builtin_bots()))
            console.print(f"built-in bots: {bots}")
            return
        t = Table(title="botwars games")
        t.add_column("id")
        t.add_column("game")
        t.add_column("seats")
        t.add_column("rules version")
        for gid in ruleset_ids():
            rs = get_ruleset(gid)
            seats = str(rs.min_seats) if rs.min_seats == rs.max_seats else f"{rs.min_seats}-{rs.max_seats}"
            t.add_row(gid, rs.name, seats, str(rs.rules_version))
        console.print(t)

    _guard(run)


@app.command()
def match(
    game: str = typer.Argument(..., help="Game id (see `botwars games`)."),
    agents: list[str] = typer.Argument(..., help="One agent spec per seat: builtin:NAME, bot.py, "
                                                   "cmd:PROGRAM, botwars-io:PROGRAM, rgkit:robot.py."),
    seed: int = typer.Option(0, help="Match seed: same seed and orders, same game."),
    set_: Optional[list[str]] = typer.Option(None, "--set", help="Parameter override key=value (repeatable)."),
    replay: Optional[str] = typer.Option(None, help="Write the record (JSON Lines) here "
                                                    "[default: replays/GAME-SEED-TIME.jsonl]."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON result object as the last line."),
    no_clock: bool = typer.Option(False, "--no-clock", help="Disable time control (debugging bots)."),
) -> None:
    """Play one match between agents and print the result."""
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    from botwars.engine.ruleset import get_ruleset, parse_set_options

    def setup():
        rs = get_ruleset(game)
        if not rs.min_seats <= len(agents) <= rs.max_seats:
            want = str(rs.min_seats) if rs.min_seats == rs.max_seats else f"{rs.min_seats} to {rs.max_seats}"
            raise ConfigError(f"{game} needs {want} agents, got {len(agents)}")
        config = rs.validate_config(parse_set_options(set_))
        seats = rs.seat_names(len(agents))
        made = {s: make_agent(a, game) for s, a in zip(seats, agents)}
        path = replay or os.path.join("replays", f"{game}-{seed}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
        m = Match(rs, config, made, seed, record=path, clock=not no_clock,
                  agent_specs=dict(zip(seats, agents)))
        return rs, m

    rs, m = _guard(setup)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    total = getattr(m.state, "config", {}).get("max_turns") if hasattr(m.state, "config") else None
    with Progress(TextColumn(f"{game}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=as_json or not err_console.is_terminal) as prog:
        task = prog.add_task("match", total=total)
        result = _guard(lambda: m.run(progress=lambda mm: prog.update(task, completed=rs.turn_number(mm.state))))
    if as_json:
        print(json.dumps(result.to_json()))
        return
    _print_result(rs, m, result, agents)


def _print_result(rs, m, result, agents) -> None:
    out = result.outcome
    t = Table(title=f"{rs.id}: {out.reason} after {result.turns} turns")
    t.add_column("seat")
    t.add_column("agent")
    t.add_column("score", justify="right")
    for k in out.details:
        t.add_column(k, justify="right")
    t.add_column("result")
    t.add_column("errors", justify="right")
    for seat, spec in zip(m.seats, agents):
        res = "winner" if out.winner == seat else ("draw" if out.winner is None else "")
        nerr = sum(1 for e in result.errors if e["seat"] == seat)
        t.add_row(seat, spec, f"{out.scores.get(seat, 0):g}",
                  *[str(v.get(seat, "")) if isinstance(v, dict) else str(v) for v in out.details.values()],
                  res, str(nerr))
    console.print(t)
    if result.errors:
        console.print("[bold]bot errors[/] (first 10):")
        for e in result.errors[:10]:
            console.print(f"  decision {e['decision']} {e['seat']}: {e['code']} {e['detail']}", highlight=False)
    console.print(f"winner: {out.winner or 'draw'}")
    console.print(f"replay written to {result.replay}", highlight=False)


@app.command()
def replay(
    file: str = typer.Argument(..., help="A record file (JSON Lines) written by `botwars match`."),
    verify: bool = typer.Option(False, help="Re-simulate and exit 1 at the first decision point that diverges."),
    turn: Optional[int] = typer.Option(None, help="Show the board after this turn and that turn's events."),
    report: bool = typer.Option(False, help="Print the game's reports for every turn (or --turn N)."),
    svg: Optional[str] = typer.Option(None, help="Write the board (after --turn N, or at the end) as SVG to this file."),
    png: Optional[str] = typer.Option(None, help="Write the board as PNG (needs rsvg-convert or cairosvg)."),
    seat: Optional[str] = typer.Option(None, help="Draw the board as this seat sees it (default: spectator)."),
    html: Optional[str] = typer.Option(None, help="With --report: also write the reports as an HTML page here."),
) -> None:
    """Show, report or verify a record (replay)."""
    from botwars.engine.record import read_record, resimulate, verify_record

    rec = _guard(lambda: read_record(file))
    if verify:
        ok, msg = _guard(lambda: verify_record(rec))
        if ok:
            console.print(f"[green]ok[/]: {file}: {msg}", highlight=False)
            return
        err_console.print(f"[bold red]diverged[/]: {file}: {msg}", highlight=False)
        raise typer.Exit(1)
    rs = rec.ruleset
    steps = _guard(lambda: list(resimulate(rec)))
    if turn is not None:
        chosen = [s for s in steps if rs.turn_number(s.after) == turn]
        if not chosen:
            last = rs.turn_number(steps[-1].after) if steps else 0
            _fail(f"no turn {turn} in {file} (turns 1..{last})")
        steps = chosen
    elif not report:
        steps = steps[-1:]
    if svg or png:
        _write_picture(rs, rec, steps, svg, png, seat)
        return
    reporter = getattr(rs, "report", None)
    page = Console(record=True, file=open(os.devnull, "w"), width=240) if (html and report and reporter) else None
    for s in steps:
        if report and reporter:
            shown = reporter(s.before, s.after, s.events)
            console.print(shown)
            if page is not None:
                page.print(shown)
            continue
        console.print(f"[bold]decision {s.n}[/]", highlight=False)
        console.print(rs.render_text(s.after), highlight=False, markup=False)
        for e in s.events:
            console.print("  " + json.dumps(e.to_json()), highlight=False, markup=False)
    if page is not None:
        page.save_html(html)
        console.print(f"HTML report written to {html}", highlight=False)
    if rec.outcome:
        console.print(f"result: {rec.outcome.get('winner') or 'draw'} ({rec.outcome.get('reason')})", highlight=False)


def _write_picture(rs, rec, steps, svg_path, png_path, seat) -> None:
    from botwars.render import render_svg
    if not rec.outcome and seat is None:
        pass
    if seat is not None and seat not in rec.seats:
        _fail(f"no seat {seat!r} in this record (seats: {', '.join(rec.seats)})")
    if steps:
        state, events = steps[-1].after, steps[-1].events
    else:
        state, events = rs.setup(rec.header["config"], rec.seats, rec.header["seed"]), []
    try:
        text = render_svg(rs, state, seat, events)
    except NotImplementedError as exc:
        _fail(str(exc))
    if svg_path:
        with open(svg_path, "w", encoding="utf-8") as f:
            f.write(text)
        console.print(f"SVG written to {svg_path}", highlight=False)
    if png_path:
        import shutil
        import subprocess
        if shutil.which("rsvg-convert"):
            subprocess.run(["rsvg-convert", "-o", png_path], input=text.encode(), check=True)
        else:
            try:
                import cairosvg  # type: ignore
            except ImportError:
                _fail("--png needs a converter: install rsvg-convert (Debian librsvg2-bin) or cairosvg")
            cairosvg.svg2png(bytestring=text.encode(), write_to=png_path)
        console.print(f"PNG written to {png_path}", highlight=False)


@scenario_app.command("run")
def scenario_run(files: list[str] = typer.Argument(..., help="Scenario YAML files (or folders of them)."),
                 quiet: bool = typer.Option(False, "-q", help="Only print failures and the summary.")) -> None:
    """Run scenario files; exit 0 only if every one passes (diff printed for each failure).

    Exit status: 0 all pass, 1 some rule does not hold, 2 some file is malformed (one line each).
    """
    from botwars.engine.scenario import check_file, collect
    paths = _guard(lambda: collect(files))
    failed = 0
    broken = 0
    for path in paths:
        try:
            problems = check_file(path)
        except ConfigError as exc:
            broken += 1
            err_console.print(f"[bold red]error:[/] {exc.one_line()}", highlight=False, soft_wrap=True)
            continue
        except BotwarsError as exc:
            broken += 1
            err_console.print(f"[bold red]error:[/] {path}: {exc}", highlight=False, soft_wrap=True)
            continue
        if problems:
            failed += 1
            console.print(f"[bold red]FAIL[/] {path}", highlight=False, soft_wrap=True)
            for p in problems:
                console.print("  " + p, highlight=False, markup=False, soft_wrap=True)
        elif not quiet:
            console.print(f"[green]pass[/] {path}", highlight=False, soft_wrap=True)
    summary = f"{len(paths) - failed - broken} passed, {failed} failed"
    console.print(summary + (f", {broken} malformed" if broken else ""), highlight=False)
    if broken:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


@board_app.command("check")
def board_check(file: str = typer.Argument(..., help="Board or map file."),
                game: str = typer.Option(..., "--game", help="Game whose format the file is in."),
                entry: bool = typer.Option(False, "--entry", help="geeko: apply the entry-board acceptance test.")) -> None:
    """Validate a board or map file: exit 0 only when valid, one problem per line."""
    from botwars.engine.ruleset import get_ruleset
    rs = _guard(lambda: get_ruleset(game))
    checker = getattr(rs, "check_board", None)
    if checker is None:
        _fail(f"{game} has no board checker")
    try:
        with open(file, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{file}: cannot read: {exc}")
    problems = _guard(lambda: checker(text, file, entry=entry))
    if problems:
        for p in problems:
            console.print(p, highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(1)
    if entry:
        console.print("ACCEPT", highlight=False)  # G-11: the entry-board validator's verdict
    console.print(f"[green]ok[/]: {file}", highlight=False)


@app.command()
def serve(
    db: Optional[str] = typer.Option(None, "--db", help="SQLAlchemy database URL [default: $BOTWARS_DATABASE_URL, "
                                                         "else sqlite:///botwars.db in the working directory]; "
                                                         "PostgreSQL: postgresql+psycopg://USER@HOST:PORT/DB."),
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    log_level: str = typer.Option("warning", help="Uvicorn log level."),
    bot_workers: Optional[int] = typer.Option(None, "--bot-workers", min=1, max=256,
                                              help="Processes playing built-in bots [default: CPUs, 2 to 8]."),
    bot_time_cap: float = typer.Option(10.0, "--bot-time-cap", min=0.01, max=3600,
                                       help="Longest built-in bot decision in seconds."),
    ws_per_match: int = typer.Option(4096, "--ws-per-match", min=1, help="Most WebSocket connections per match."),
    ws_per_address: int = typer.Option(64, "--ws-per-address", min=1,
                                       help="Most WebSocket connections per client address."),
    max_board_chars: int = typer.Option(8192, "--max-board-chars", min=64, max=1 << 20,
                                        help="Longest map/board/rooms/pool text a request may give."),
) -> None:
    """Run the game-master server (HTTP + WebSocket; OpenAPI schema at /docs). Limits: docs/server.md."""
    import uvicorn

    from botwars.server.app import create_app
    from botwars.store import Store, default_url
    from botwars.store.repo import safe_url

    url = db or default_url()
    store = _guard(lambda: Store(url))
    app_ = create_app(store=store, bot_workers=bot_workers, bot_time_cap_s=bot_time_cap,
                      ws_per_match=ws_per_match, ws_per_address=ws_per_address, max_board_chars=max_board_chars)
    # the event loop waits at most 1 ms (not 5) for the GIL while another thread resolves a big
    # decision point, so one match's rules never hold up another's acknowledgements for long
    sys.setswitchinterval(0.001)
    # full collections of the cyclic garbage collector stop the event loop for as long as they
    # take (up to a second with thousands of connections): what exists at start-up is frozen out
    # of them, and they are made rarer (young garbage is still collected often)
    gc.freeze()
    gc.set_threshold(20_000, 50, 1000)
    try:
        app_.state.manager.start()
    except Exception as exc:  # unreachable database, failed migration
        first = str(exc).splitlines()[0] if str(exc) else ""
        _fail(f"cannot open database {safe_url(url)}: {type(exc).__name__}: {first.replace(url, safe_url(url))}")
    err_console.print(f"botwars server on http://{host}:{port} (database {safe_url(url)})",
                      highlight=False, markup=False)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    console.print(f"lobby: http://{shown}:{port}/", highlight=False, markup=False)  # the browser UI (issue 8)
    from uvicorn.config import WS_PROTOCOLS
    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "auto"
    # clients send nothing the server reads over the WebSocket: a small frame limit; no
    # per-message compression (it would compress the same snapshot once per spectator)
    uvicorn.run(app_, host=host, port=port, log_level=log_level, ws=ws, ws_max_size=65536,
                ws_per_message_deflate=False)


@app.command("new-match")
def new_match(
    url: str = typer.Argument(..., help="Server base URL, e.g. http://127.0.0.1:8000"),
    game: str = typer.Argument(..., help="Game id (see `botwars games`)."),
    seat: Optional[list[str]] = typer.Option(None, "--seat", help="remote or builtin:NAME, once per seat "
                                                                  "[default: remote for every seat]."),
    set_: Optional[list[str]] = typer.Option(None, "--set", help="Parameter override key=value (repeatable)."),
    seed: int = typer.Option(0, help="Match seed."),
    no_clock: bool = typer.Option(False, "--no-clock", help="Create the match without time control."),
    as_json: bool = typer.Option(False, "--json", help='Print {"match", "seats": [{"seat", "token", "url"}], '
                                                      '"spectator"} as the last line.'),
) -> None:
    """Create a match on a running server and print each seat's token and link."""
    from botwars.engine.ruleset import parse_set_options
    from botwars.server.client import new_match as create

    config = _guard(lambda: parse_set_options(set_))
    made = _guard(lambda: create(url, game, list(seat) if seat else None, config, seed, clock=not no_clock))
    if as_json:
        print(json.dumps({"match": made["match"],
                          "seats": [{"seat": s["seat"], "token": s["token"], "url": s["url"]} for s in made["seats"]],
                          "spectator": made["spectator"]}))
        return
    t = Table(title=f"match {made['match']} ({made['game']})")
    t.add_column("seat")
    t.add_column("agent")
    t.add_column("token")
    t.add_column("link")
    for s in made["seats"]:
        t.add_row(s["seat"], s["agent"], s["token"], s["url"])
    console.print(t)
    console.print(f"spectator: {made['spectator']}", highlight=False)


@app.command()
def connect(
    url: str = typer.Argument(..., help="Server base URL, e.g. http://127.0.0.1:8000"),
    token: str = typer.Argument(..., help="The seat's token (from `botwars new-match`)."),
    agent: str = typer.Argument(..., help="Agent spec: builtin:NAME, bot.py, cmd:PROGRAM, botwars-io:PROGRAM, "
                                          "rgkit:robot.py."),
    quiet: bool = typer.Option(False, "-q", help="No progress messages on stderr."),
) -> None:
    """Play one seat of a server match with an agent; print the result as `botwars match --json` does."""
    from botwars.server.client import connect as play

    def log(msg: str) -> None:
        if not quiet:
            err_console.print(msg, highlight=False, markup=False)

    result = _guard(lambda: play(url, token, agent, log=log))
    print(json.dumps(result))


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
