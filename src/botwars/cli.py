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
from rich.text import Text

from botwars.engine.errors import BotwarsError, ConfigError

class _OneLineErrors(typer.core.TyperGroup):
    """The top-level command group: a usage error (unknown command or option, an option value
    of the wrong type, a missing argument) is one line on stderr and exit 2, like every other
    malformed input, instead of Click's boxed usage message."""

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None,  # type: ignore[override]
             standalone_mode: bool = True, **extra: Any) -> Any:
        from typer.exceptions import TyperException  # base of Typer's (vendored Click's) usage errors
        _hide_flag_types(self)
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Exit as exc:
            sys.exit(exc.exit_code)
        except typer.Abort:
            err_console.print("aborted", highlight=False)
            sys.exit(1)
        except TyperException as exc:
            ctx = getattr(exc, "ctx", None)
            if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:  # `botwars`, `botwars board`
                console.print(ctx.get_help(), highlight=False, markup=False)
                sys.exit(getattr(exc, "exit_code", 2))
            hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            _error_line(" ".join(exc.format_message().split()) + hint)
            sys.exit(getattr(exc, "exit_code", 2))
        sys.exit(rv if isinstance(rv, int) else 0)


def _hide_flag_types(cmd: Any) -> None:
    """Typer (0.29) prints a type after every option in ``--help``, ``<bool>`` after flags too, as
    if ``--json`` or ``--help`` took a value: give every flag of ``cmd`` and its subcommands,
    the help option included, an empty metavar, so the type column stays empty for them."""
    helper = cmd.get_help_option(cmd.context_class(cmd))
    for param in [*cmd.params, *([helper] if helper is not None else [])]:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    for sub in getattr(cmd, "commands", {}).values():
        _hide_flag_types(sub)


# help texts are read as Markdown, not Rich markup, which swallowed every "[default: X]" of an
# option's help (and kept the docstrings' line breaks in mid-sentence)
app = typer.Typer(help="botwars: play, check and replay turn-based grid robot battle games.", cls=_OneLineErrors,
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode="markdown")
scenario_app = typer.Typer(help="Scenario files: write a ruling down as YAML and check it.", no_args_is_help=True)
board_app = typer.Typer(help="Board and map files: validate them.", no_args_is_help=True)
sandbox_app = typer.Typer(help="The bot sandbox: which isolation layers work on this machine.", no_args_is_help=True)
app.add_typer(scenario_app, name="scenario")
app.add_typer(board_app, name="board")
app.add_typer(sandbox_app, name="sandbox")

console = Console()
err_console = Console(stderr=True)


def _error_line(msg: str) -> None:
    """Print ``error: msg`` as one line on stderr."""
    from rich.markup import escape
    err_console.print(f"[bold red]error:[/] {escape(msg)}", highlight=False, markup=True, soft_wrap=True)


def _fail(msg: str, code: int = 2) -> None:
    _error_line(msg)
    raise typer.Exit(code)


def _guard(fn):
    """Run ``fn``; turn botwars errors into a one-line message and exit code 2."""
    try:
        return fn()
    except ConfigError as exc:
        _fail(exc.one_line())
    except BotwarsError as exc:
        _fail(str(exc))


def _folder_lines(g: Any) -> None:
    """What a game's folder declares (docs/plugins.md, "A game is one folder"): its pages, its
    batched engines, its docs and tests (paths from its project root)."""
    pages = [p for p, ok in ((f"/rules/{g.id}", g.rules_page), (f"/howto/{g.id}", g.how_to_play)) if ok]
    console.print(f"pages: {', '.join(pages) or 'none'}", highlight=False, markup=False)
    if g.batch:
        console.print("batched engines: " + ", ".join(b.name + (f" (extra {b.extra})" if b.extra else "")
                                                      for b in g.batch), highlight=False, markup=False)
    for key in ("docs", "tests"):
        if getattr(g, key):
            console.print(f"{key}: {', '.join(getattr(g, key))}", highlight=False, markup=False, soft_wrap=True)


@app.command()
def games(game: Optional[str] = typer.Argument(None, help="Show this game's parameters, bots and agent kinds.")) -> None:
    """List the games (installed plug-ins), or one game's parameters with their defaults."""
    from botwars.engine.plugin import games as all_games
    from botwars.engine.plugin import get_game

    def run():
        if game:
            g = get_game(game)
            rs = g.ruleset()
            t = Table(title=f"{g.id} parameters (set with --set key=value)")
            t.add_column("parameter")
            t.add_column("default")
            t.add_column("meaning")
            for p in rs.params:
                t.add_row(p.name, json.dumps(p.default), p.doc)
            console.print(t)
            bots = ", ".join(f"builtin:{b}" for b in sorted(g.builtin_bots()))
            console.print(f"built-in bots: {bots or 'none'}", highlight=False)
            for b in sorted(g.builtin_bots()):
                opts = g.builtin_options(b)
                if opts:
                    shown = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in opts.items())
                    console.print(f"  options of builtin:{b} (defaults): builtin:{b}({shown})",
                                  highlight=False, markup=False, soft_wrap=True)
            for kind in g.agent_kinds:
                console.print(f"agent kind {kind.prefix}: {kind.doc}", highlight=False, markup=False)
            caps = ", ".join(f"{k}={v}" for k, v in g.capabilities.to_json().items())
            console.print(f"rules version {rs.rules_version}; {caps}", highlight=False)
            _folder_lines(g)
            return
        t = Table(title="botwars games")
        t.add_column("id")
        t.add_column("game")
        t.add_column("seats")
        t.add_column("turns")
        t.add_column("information")
        for gid, g in all_games().items():  # declarations only: no rules are imported
            lo, hi = g.seats
            t.add_row(gid, g.name, str(lo) if lo == hi else f"{lo}-{hi}", g.capabilities.turns.value,
                      "hidden" if g.capabilities.hidden_information else "full")
        console.print(t)

    _guard(run)


@app.command()
def match(
    game: str = typer.Argument(..., help="Game id (see `botwars games`)."),
    agents: list[str] = typer.Argument(..., help="One agent spec per seat: builtin:NAME (options: "
                                                   "\"builtin:NAME(KEY=VALUE,...)\"), bot.py, "
                                                   "cmd:PROGRAM, or a kind the game adds "
                                                   "(`botwars games GAME` lists them)."),
    seed: int = typer.Option(0, help="Match seed: same seed and orders, same game."),
    set_: Optional[list[str]] = typer.Option(None, "--set", metavar="KEY=VALUE", help="Parameter override key=value (repeatable)."),
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
        config = rs.validate_config(_implied(game, agents, parse_set_options(set_)))
        seats = rs.seat_names(len(agents))
        path = replay or os.path.join("replays", f"{game}-{seed}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
        _check_writable(path, "--replay")  # before any agent starts or turn is played
        made = {s: make_agent(a, game) for s, a in zip(seats, agents)}
        m = Match(rs, config, made, seed, record=path, clock=not no_clock,
                  agent_specs=dict(zip(seats, agents)))
        return rs, m, config

    rs, m, config = _guard(setup)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    total = config.get("max_turns")  # the conventional parameter name; no bar length without it
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    with Progress(TextColumn(f"{game}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=as_json or not err_console.is_terminal) as prog:
        task = prog.add_task("match", total=total)
        result = _guard(lambda: m.run(progress=lambda mm: prog.update(task, completed=rs.turn_number(mm.state))))
    if as_json:
        print(json.dumps(result.to_json()))
        return
    _print_result(rs, m, result, agents)


def _implied(game: str, agents: list[str], overrides: dict) -> dict:
    """``overrides`` plus what the agents' kind implies (e.g. the arena's ``rgkit:`` bots:
    ``rules=robotgame``), saying so in one line on stderr (see
    :func:`botwars.agents.spec.implied_overrides`)."""
    from botwars.agents.spec import implied_overrides
    overrides, note = implied_overrides(game, agents, overrides)
    if note:
        err_console.print(note, highlight=False, soft_wrap=True)
    return overrides


def _check_writable(path: str, what: str) -> None:
    """Raise :class:`ConfigError` (one line) unless a file can be written at ``path``: not a
    directory, and its folder (created if missing, as the match would) writable.  Nothing is
    left behind: the record itself is written by the match."""
    if os.path.isdir(path):
        raise ConfigError(f"{path} is a directory; give a file name such as {os.path.join(path, 'match.jsonl')}",
                          source=what)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ConfigError(f"cannot write {path}: {folder} is not a folder", source=what) from None
    except OSError as exc:
        raise ConfigError(f"cannot create the folder {folder}: {exc.strerror}", source=what) from None
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror}", source=what) from None
    if not existed:
        os.remove(path)


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
    seat: Optional[str] = typer.Option(None, help="With --svg/--png: draw the board as this seat sees it (default: spectator)."),
    html: Optional[str] = typer.Option(None, help="With --report: also write the reports as an HTML page here."),
) -> None:
    """Show, report or verify a record (replay)."""
    from botwars.engine.record import read_record, resimulate, verify_record

    if verify and (turn is not None or report or svg or png or html or seat is not None):
        _fail("--verify checks the whole record: give it without --turn, --report, --svg, --png, --html or --seat")
    if html and not report:  # an option that would be silently ignored is a usage error
        _fail("--html writes the reports as a page: give --report too")
    if seat is not None and not (svg or png):
        _fail("--seat chooses whose view is drawn: give --svg FILE or --png FILE too")
    rec = _guard(lambda: read_record(file))
    if verify:
        ok, msg = _guard(lambda: verify_record(rec))
        if ok:
            console.print(f"[green]ok[/]: {file}: {msg}", highlight=False, soft_wrap=True)
            return
        # a record without its outcome line that replays fine is incomplete, not diverged
        label = "incomplete" if rec.outcome is None and msg.startswith("incomplete") else "diverged"
        err_console.print(f"[bold red]{label}[/]: {file}: {msg.removeprefix('incomplete: ')}", highlight=False,
                          soft_wrap=True)
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
    from botwars.engine.plugin import get_game
    game = _guard(lambda: get_game(rs.id))
    reporter = game.report is not None
    shown = ""  # the last text printed: a game whose text already states the result is not repeated
    for s in steps:
        if report and reporter:
            with console.capture() as cap:  # printed as rendered; kept as plain text for the result line
                console.print(game.describe(s.before, s.after, s.events))
            out = cap.get()
            console.file.write(out)
            shown = Text.from_ansi(out).plain
            continue
        console.print(f"[bold]decision {s.n}[/]", highlight=False)
        shown = rs.render_text(s.after)
        console.print(shown, highlight=False, markup=False)
        if s.events:
            shown = ""
        for e in s.events:
            console.print("  " + json.dumps(e.to_json()), highlight=False, markup=False)
    if html and report:  # issue 14: the game master's publication, a board before every table
        from botwars.render.publication import report_page
        title = f"{rs.name}: {os.path.basename(file)}"
        text = _guard(lambda: report_page(game, title, steps, rec.outcome))
        try:
            with open(html, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            _fail(f"--html {html}: cannot write: {exc.strerror or exc}")
        console.print(f"HTML report written to {html}", highlight=False)
    if rec.outcome:
        line = f"result: {rec.outcome.get('winner') or 'draw'} ({rec.outcome.get('reason')})"
        if shown.rstrip().splitlines()[-1:] != [line]:  # not said by the last thing printed
            console.print(line, highlight=False)


def _write_picture(rs, rec, steps, svg_path, png_path, seat) -> None:
    from botwars.render import render_svg
    if not rec.outcome and seat is None:
        pass
    if seat is not None and seat not in rec.seats:
        _fail(f"no seat {seat!r} in this record (seats: {', '.join(rec.seats)})")
    if steps:
        state, events = steps[-1].after, steps[-1].events
    else:
        from botwars.engine.record import referee_for  # the header's config checked, no file named in it
        state, events = _guard(lambda: referee_for(rec)).state, []
    try:
        text = render_svg(rs, state, seat, events)
    except NotImplementedError as exc:
        _fail(str(exc))
    if svg_path:
        try:
            with open(svg_path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            _fail(f"--svg {svg_path}: cannot write: {exc.strerror or exc}")
        console.print(f"SVG written to {svg_path}", highlight=False)
    if png_path:
        import shutil
        import subprocess
        if shutil.which("rsvg-convert"):
            done = subprocess.run(["rsvg-convert", "-o", png_path], input=text.encode(), capture_output=True)
            if done.returncode != 0:
                why = (done.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
                _fail(f"--png {png_path}: rsvg-convert: {why}")
        else:
            try:
                import cairosvg  # type: ignore
            except ImportError:
                _fail("--png needs a converter: install rsvg-convert (Debian librsvg2-bin) or cairosvg")
            try:
                cairosvg.svg2png(bytestring=text.encode(), write_to=png_path)
            except OSError as exc:
                _fail(f"--png {png_path}: cannot write: {exc.strerror or exc}")
        console.print(f"PNG written to {png_path}", highlight=False)


@scenario_app.command("run")
def scenario_run(files: list[str] = typer.Argument(..., help="Scenario YAML files (or folders of them)."),
                 quiet: bool = typer.Option(False, "-q", help="Only print failures and the summary.")) -> None:
    """Run scenario files; exit 0 only if every one passes (diff printed for each failure).

    Exit status: 0 all pass, 1 some rule does not hold, 2 some file is malformed (one line each).
    """
    from rich.markup import escape

    from botwars.engine.scenario import check_file, collect
    paths = _guard(lambda: collect(files))
    for folder in files:  # a folder without scenarios would "pass" with 0 files: a wrong path, surely
        if os.path.isdir(folder) and not collect([folder]):
            _fail(f"{folder}: no scenario files (*.yaml, *.yml) in this folder")
    failed = 0
    broken = 0
    for path in paths:
        try:
            problems = check_file(path)
        except ConfigError as exc:
            broken += 1
            err_console.print(f"[bold red]error:[/] {escape(exc.one_line())}", highlight=False, soft_wrap=True)
            continue
        except BotwarsError as exc:
            broken += 1
            err_console.print(f"[bold red]error:[/] {escape(f'{path}: {exc}')}", highlight=False, soft_wrap=True)
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
                entry: bool = typer.Option(False, "--entry", help="Apply the game's entry-board acceptance test "
                                                                  "(games whose board format has one).")) -> None:
    """Validate a board or map file: exit 0 only when valid, one problem per line.

    Exit status: 0 valid; 1 the file is a well-formed board that fails a check (every problem
    printed on stdout as FILE:LINE:COLUMN: rule: message); 2 the file cannot be read or is not
    a board at all (it does not parse: one line on stderr naming the line and column).  With
    --entry (geeko, G-11) the verdict lines go to stdout, an unparsable file being `REJECT V1`.
    """
    from botwars.engine.plugin import get_game
    g = _guard(lambda: get_game(game))
    if g.board is None:
        _fail(f"{game} has no board file format")
    if entry and not g.board.entry_test:
        _fail(f"{game} has no entry-board acceptance test")
    from botwars.engine.safeload import read_text
    text = _guard(lambda: read_text(file, what="board file"))  # bounded: a stranger's file (issue 25)
    try:
        problems = g.check_board(text, file, entry=entry)
    except ConfigError as exc:  # not a board at all: malformed input, exit 2
        if entry:
            console.print(f"REJECT V1: {exc.one_line()}", highlight=False, markup=False, soft_wrap=True)
            raise typer.Exit(2)
        _fail(exc.one_line())
    except BotwarsError as exc:
        _fail(str(exc))
    if problems:
        for p in problems:
            console.print(p, highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(1)
    if entry:
        console.print("ACCEPT", highlight=False)  # the entry-board test's verdict
    console.print(f"[green]ok[/]: {file}", highlight=False)


@sandbox_app.command("check")
def sandbox_check(minimum: Optional[str] = typer.Option(None, "--min", help="Exit 1 when the level is below this "
                                                         "one [default: $BOTWARS_SANDBOX_MIN, else full]."),
                  as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object.")) -> None:
    """Print the isolation layers active here, what each blocks, and the isolation level.

    Exit status: 0 when the level reaches the minimum, 1 when below (the reason on stderr),
    2 for an unknown level name.
    """
    from botwars.agents import sandbox
    report = sandbox.probe()
    if as_json:
        print(json.dumps({"level": report.level, "levels": list(sandbox.LEVELS), "reasons": report.reasons,
                          "layers": [{"name": x.name, "active": x.active, "detail": x.detail, "blocks": x.blocks}
                                     for x in report.layers]}))
    else:
        console.print(report.text(), highlight=False, markup=False, soft_wrap=True)
    try:
        sandbox.require_level(minimum)
    except ValueError as exc:
        _fail(str(exc))
    except sandbox.SandboxUnavailable as exc:
        _fail(str(exc), 1)


@app.command()
def serve(
    db: Optional[str] = typer.Option(None, "--db", help="SQLAlchemy database URL [default: $BOTWARS_DATABASE_URL, "
                                                         "else sqlite:///botwars.db in the working directory]; "
                                                         "PostgreSQL: postgresql+psycopg://USER@HOST:PORT/DB."),
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, min=0, max=65535, help="Port to listen on (0: any free one)."),
    log_level: str = typer.Option("warning", help="Uvicorn log level: critical, error, warning, info, debug "
                                                  "or trace."),
    bot_workers: Optional[int] = typer.Option(None, "--bot-workers", min=1, max=256,
                                              help="Processes playing built-in bots [default: CPUs, 2 to 8]."),
    bot_time_cap: float = typer.Option(10.0, "--bot-time-cap", min=0.01, max=3600,
                                       help="Longest built-in bot decision in seconds."),
    ws_per_match: int = typer.Option(4096, "--ws-per-match", min=1, help="Most WebSocket connections per match."),
    ws_per_address: int = typer.Option(64, "--ws-per-address", min=1,
                                       help="Most WebSocket connections per client address."),
    max_board_chars: int = typer.Option(8192, "--max-board-chars", min=64, max=1 << 20,
                                        help="Longest map/board/rooms/pool text a request may give."),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.1, max=300,
                                         help="Seconds a client may take to send a request's headers; slower "
                                              "or silent connections are closed."),
    shutdown_timeout: float = typer.Option(3.0, "--shutdown-timeout", min=0, max=60,
                                           help="Seconds open requests get to finish after SIGTERM or Ctrl-C."),
    workers: int = typer.Option(1, "--workers", min=1, max=256,
                                help="Server processes on this port (PostgreSQL only; any of them answers any "
                                     "request, a killed one is restarted). Servers on other machines may share "
                                     "the same PostgreSQL database too (docs/server.md, 'Several workers')."),
) -> None:
    """Run the game-master server (HTTP + WebSocket; OpenAPI schema at /docs). Limits: docs/server.md.

    Prints the bots' isolation level at start (uploads are off below BOTWARS_SANDBOX_MIN), and
    stops within seconds of SIGTERM: running league matches are played again after a restart."""
    import uvicorn
    from uvicorn.config import LOG_LEVELS

    from botwars.server.app import create_app
    from botwars.store import Store, default_url
    from botwars.store.repo import safe_url
    from botwars.web import install_web

    if log_level.lower() not in LOG_LEVELS:  # uvicorn would raise KeyError after start-up
        _fail(f"--log-level: unknown level {log_level!r} (use {', '.join(LOG_LEVELS)})")
    _guard(lambda: _check_listen(host, port))  # a port in use: one line now, not after the lobby URL
    url = db or default_url()
    store = _guard(lambda: Store(url))
    if workers > 1:
        if store.is_sqlite:
            _fail(f"--workers {workers}: SQLite allows one server process per database file; give a PostgreSQL "
                  f"database (--db postgresql+psycopg://USER@HOST:PORT/DB) for several workers")
        store.dispose()
        return _serve_workers(workers, url, host, port, log_level, header_timeout, shutdown_timeout,
                              dict(bot_workers=bot_workers, bot_time_cap_s=bot_time_cap, ws_per_match=ws_per_match,
                                   ws_per_address=ws_per_address, max_board_chars=max_board_chars))
    app_ = _guard(lambda: create_app(store=store, bot_workers=bot_workers, bot_time_cap_s=bot_time_cap,
                                     ws_per_match=ws_per_match, ws_per_address=ws_per_address,
                                     max_board_chars=max_board_chars))  # bad BOTWARS_SMTP_* etc.: one line
    install_web(app_)  # the browser pages: a router mounted on the API server
    # the event loop waits at most 1 ms (not 5) for the GIL while another thread resolves a big
    # decision point, so one match's rules never hold up another's acknowledgements for long
    sys.setswitchinterval(0.001)
    # full collections of the cyclic garbage collector stop the event loop for as long as they
    # take (up to a second with thousands of connections): what exists at start-up is frozen out
    # of them, and they are made rarer (young garbage is still collected often)
    gc.freeze()
    gc.set_threshold(20_000, 50, 1000)
    import threading
    # the isolation level is probed (about a second of bwrap trials) and printed beside the
    # server's start, without delaying it
    notes = threading.Thread(target=_print_start_notes, name="botwars-start-notes", daemon=True)
    notes.start()
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
    # slow clients (issue 25 item 10): request headers within --header-timeout, idle keep-alive
    # connections closed after 5 s, WebSocket clients that answer no ping within 20 s dropped;
    # after SIGTERM open requests get --shutdown-timeout seconds, then the app stops its pools
    from botwars.server.slowclients import guarded_h11
    uvicorn.run(app_, host=host, port=port, log_level=log_level, ws=ws, ws_max_size=65536,
                ws_per_message_deflate=False, http=guarded_h11(header_timeout), timeout_keep_alive=5,
                ws_ping_interval=10.0, ws_ping_timeout=10.0, timeout_graceful_shutdown=shutdown_timeout)
    notes.join(timeout=60)


WORKER_ENV = "BOTWARS_SERVE_WORKER"
"""The environment variable that hands ``botwars serve --workers N``'s settings (JSON) to each
worker process (:func:`worker_app`)."""


def _serve_workers(workers: int, url: str, host: str, port: int, log_level: str, header_timeout: float,
                   shutdown_timeout: float, app_kw: dict) -> None:
    """``botwars serve --workers N``: uvicorn's supervisor runs ``workers`` processes on one
    socket, each made by :func:`worker_app` (it restarts a worker that dies); each is a worker
    of the cluster over the PostgreSQL database at ``url`` (issue 27)."""
    import uvicorn
    from uvicorn.config import WS_PROTOCOLS

    from botwars.store.repo import safe_url
    os.environ[WORKER_ENV] = json.dumps({"db": url, "header_timeout_s": header_timeout, **app_kw})
    err_console.print(f"botwars server on http://{host}:{port} ({workers} workers, database {safe_url(url)})",
                      highlight=False, markup=False)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    console.print(f"lobby: http://{shown}:{port}/", highlight=False, markup=False)
    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "auto"
    uvicorn.run("botwars.cli:worker_app", factory=True, workers=workers, host=host, port=port,
                log_level=log_level, ws=ws, ws_max_size=65536, ws_per_message_deflate=False,
                http="botwars.server.slowclients:GuardedH11Protocol", timeout_keep_alive=5,
                ws_ping_interval=10.0, ws_ping_timeout=10.0, timeout_graceful_shutdown=shutdown_timeout)


def worker_app() -> Any:
    """The app of one worker process of ``botwars serve --workers N`` (uvicorn's app factory):
    the settings come from ``$BOTWARS_SERVE_WORKER`` (:data:`WORKER_ENV`, JSON written by the
    parent); the match manager starts in the app's lifespan. Raises ``KeyError`` outside such a
    process."""
    from botwars.server.app import create_app
    from botwars.server.slowclients import GuardedH11Protocol
    from botwars.store import Store
    from botwars.web import install_web
    cfg = json.loads(os.environ[WORKER_ENV])
    GuardedH11Protocol.header_timeout_s = float(cfg.pop("header_timeout_s"))
    app_ = create_app(store=Store(cfg.pop("db")), **cfg)
    install_web(app_)
    sys.setswitchinterval(0.001)  # as `botwars serve` does (see there)
    gc.freeze()
    gc.set_threshold(20_000, 50, 1000)
    return app_


def _print_start_notes() -> None:
    """Print :func:`_start_notes` on stderr (a thread of ``botwars serve``)."""
    for line in _start_notes():
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)


def _start_notes() -> list[str]:
    """What ``botwars serve`` says at start besides its address: the bots' isolation level and,
    below ``BOTWARS_SANDBOX_MIN``, that league uploads are off and why (issue 25 item 10)."""
    from botwars.agents import sandbox
    report = sandbox.probe()
    lines = [f"bot isolation: level {report.level} (levels: {' < '.join(sandbox.LEVELS)})"]
    try:
        sandbox.require_level()
    except (sandbox.SandboxUnavailable, ValueError) as exc:
        lines.append(f"league uploads are off: {exc}")
    return lines  # (turn notices being off is logged by the notice service as it starts)


def _check_listen(host: str, port: int) -> None:
    """Raise :class:`ConfigError` (one line) unless a TCP socket can be bound to ``host:port``
    as uvicorn binds it (``SO_REUSEADDR``); the socket is closed again at once."""
    import socket
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise ConfigError(f"cannot listen on {host}: {exc.strerror}", source="--host") from None
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", source="--port") from None


@app.command("new-match")
def new_match(
    url: str = typer.Argument(..., help="Server base URL, e.g. http://127.0.0.1:8000"),
    game: str = typer.Argument(..., help="Game id (see `botwars games`)."),
    seat: Optional[list[str]] = typer.Option(None, "--seat", help="remote or builtin:NAME, once per seat "
                                                                  "[default: remote for every seat]."),
    set_: Optional[list[str]] = typer.Option(None, "--set", metavar="KEY=VALUE", help="Parameter override key=value (repeatable)."),
    seed: Optional[int] = typer.Option(None, help="Match seed [default: a secret random one drawn by the "
                                                  "server; a seed the players know reveals every deal]."),
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
    # plain lines, never a table: a table narrower than a token and link cut them short with "…"
    console.print(f"match {made['match']} ({made['game']})", highlight=False, markup=False)
    for s in made["seats"]:
        console.print(f"{s['seat']} ({s['agent']}): token {s['token']}", highlight=False, markup=False,
                      soft_wrap=True)
        console.print(f"  {s['url']}", highlight=False, markup=False, soft_wrap=True)
    console.print(f"spectator: {made['spectator']}", highlight=False, markup=False, soft_wrap=True)


@app.command()
def connect(
    url: str = typer.Argument(..., help="Server base URL, e.g. http://127.0.0.1:8000"),
    token: str = typer.Argument(..., help="The seat's token (from `botwars new-match`)."),
    agent: str = typer.Argument(..., help="Agent spec: builtin:NAME, bot.py, cmd:PROGRAM, or a kind the game "
                                          "adds (`botwars games GAME` lists them)."),
    quiet: bool = typer.Option(False, "-q", help="No progress messages on stderr."),
    retry_for: float = typer.Option(300.0, "--retry-for", min=0, metavar="SECONDS",
                                    help="While the server cannot be reached (at the start or after the "
                                         "connection drops), keep trying for at most SECONDS, waiting 0.5 s, "
                                         "1 s, 2 s, ... up to 10 s between tries; then exit 2."),
) -> None:
    """Play one seat of a server match with an agent; print the result as `botwars match --json` does.

    Exit status: 0 when the match ended, 2 when the token or agent is refused or the server could
    not be reached for --retry-for seconds (one line on stderr).
    """
    from botwars.server.client import connect as play

    def log(msg: str) -> None:
        if not quiet:
            err_console.print(msg, highlight=False, markup=False, soft_wrap=True)

    result = _guard(lambda: play(url, token, agent, log=log, retry_for_s=retry_for))
    print(json.dumps(result))


# ---- bot: the bot author's kit (issue 15 item 7) ---------------------------------------------
bot_app = typer.Typer(help="Bot authors' tools: check a bot against the protocol.", no_args_is_help=True)
app.add_typer(bot_app, name="bot")


@bot_app.command("check")
def bot_check(
    spec: str = typer.Argument(..., help="The bot's agent spec: bot.py, cmd:PROGRAM, or a kind the game adds."),
    game: str = typer.Option(..., "--game", help="Game id (see `botwars games`)."),
    opponent: Optional[str] = typer.Option(None, help="Opponent spec [default: the game's first built-in bot]."),
    decisions: Optional[int] = typer.Option(None, min=1, max=10_000, help="The short check: at most this many "
                                            "decision points per match [default: every match to its end]."),
    seed: int = typer.Option(1, help="Seed of the first match (the second uses seed + 1)."),
    set_: Optional[list[str]] = typer.Option(None, "--set", metavar="KEY=VALUE", help="Parameter override key=value (repeatable)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object."),
) -> None:
    """Play a whole match in each seat against a built-in bot and report every protocol fault in plain words
    (`--decisions N` for a short check).

    Exit status: 0 when there is none, 1 when there are faults, 2 for a bad spec, game or option.
    """
    from botwars.agents.check import check_bot
    from botwars.engine.ruleset import parse_set_options

    report = _guard(lambda: check_bot(spec, game, opponent=opponent, decisions=decisions, seed=seed,
                                      overrides=parse_set_options(set_)))
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        console.print(f"bot check: {spec} in {game} against {report.opponent}", highlight=False, markup=False,
                      soft_wrap=True)
        for mt in report.matches:
            console.print(f"  as seat {mt['seat']} (seed {mt['seed']}): {mt['decisions']} decisions, "
                          f"{mt['faults']} fault{'s' if mt['faults'] != 1 else ''}", highlight=False, markup=False)
        for f in report.faults:
            console.print(f"  FAULT {f.line()}", highlight=False, markup=False, soft_wrap=True)
        console.print("no protocol faults" if report.ok else f"{len(report.faults)} protocol fault"
                      f"{'s' if len(report.faults) != 1 else ''}", highlight=False, markup=False)
    if not report.ok:
        raise typer.Exit(1)


# ---- botwars tournament (issue 15; docs/tournaments.md) ----------------------------------------
@app.command()
def tournament(
    game: str = typer.Argument(..., help="Game id (see `botwars games`)."),
    agents: list[str] = typer.Argument(..., help="Agent specs (at least two): builtin:NAME (options: "
                                                   "\"builtin:NAME(KEY=VALUE,...)\"), bot.py, cmd:PROGRAM, "
                                                   "or a kind the game adds."),
    fmt: str = typer.Option("round-robin", "--format", help="round-robin, swiss or gauntlet (the first agent "
                                                             "against the others)."),
    games_per_pair: int = typer.Option(1, "--games-per-pair", help="Games per pairing, each in every seat order."),
    seed: int = typer.Option(0, help="Tournament seed: every match's seed and id derive from it."),
    workers: Optional[int] = typer.Option(None, help="Matches played at once (local backend) [default: 1]; "
                                                      "with --backend ray the cluster's CPUs decide."),
    db: Optional[str] = typer.Option(None, help="Results database URL [default: sqlite:///OUT/tournament.db]."),
    out: Optional[str] = typer.Option(None, help="Tournament folder: replays, database, standings "
                                                 "[default: tournaments/GAME-SEED]. Run again to continue."),
    backend: str = typer.Option("local", help="local (a process pool) or ray (Ray tasks)."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster address "
                                              "[default: $RAY_ADDRESS, else a local Ray instance]."),
    players: Optional[int] = typer.Option(None, help="Players per match, for free-for-all games "
                                                     "(`botwars games GAME` shows the range)."),
    rounds: Optional[int] = typer.Option(None, help="Swiss rounds [default: ceil(log2 agents)]."),
    set_: Optional[list[str]] = typer.Option(None, "--set", metavar="KEY=VALUE", help="Parameter override key=value (repeatable)."),
    no_clock: bool = typer.Option(False, "--no-clock", help="Disable time control."),
    check: bool = typer.Option(True, "--check/--no-check", help="Check every bot first (the league's upload "
                               "check: a few decisions in each seat) and refuse the tournament, exit 2, "
                               "before any match when one does not work."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Play again the stored matches that "
                                      "failed (a worker that died on every try, an agent that could not be "
                                      "built), with the same seeds; swiss: those of the last round played."),
) -> None:
    """Play a tournament between agents (resumable), then print and write the standings.

    Every pairing plays --games-per-pair games in every seat order; each finished match is stored
    (replay file, then database row). Interrupted and run again with the same --out, it plays
    only the matches not stored yet; --retry-failed also plays again those stored as failed.
    Every bot that is not built in is checked first (--no-check skips it): one that does not load,
    crashes or answers nonsense is named with its file and line, and nothing is played.
    Exit status 0 when done, 130 when interrupted, 2 on bad input or a refused bot.
    """
    from botwars.engine.ruleset import parse_set_options
    from botwars.league.backends import make_backend
    from botwars.league.tournament import Tournament, TournamentSettings

    out_dir = out or os.path.join("tournaments", f"{game}-{seed}")
    if workers is not None and backend == "ray":
        typer.echo("botwars tournament: --workers is not used with --backend ray (Ray runs as many matches at "
                   "once as the cluster has CPUs)", err=True)

    def setup():
        s = TournamentSettings(game, list(agents), fmt, games_per_pair, seed, players, rounds,
                               _implied(game, agents, parse_set_options(set_)), not no_clock)
        be = make_backend(backend, 1 if workers is None else workers, ray_address)
        return Tournament(s, out_dir, db), be

    t, be = _guard(setup)
    if check:
        if err_console.is_terminal:
            err_console.print("checking the bots before the tournament...", highlight=False)
        try:
            _guard(t.check_bots)
        except typer.Exit:
            t.close()
            raise
    if retry_failed:
        n = _guard(t.retry_failed)
        console.print(f"retrying {n} failed match{'es' if n != 1 else ''}", highlight=False)
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    total, start = t.total(), t.done_count()
    errors = 0
    interrupted = False
    with Progress(TextColumn(f"{game} {fmt}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=err_console, transient=True,
                  disable=not err_console.is_terminal) as prog:
        task = prog.add_task("matches", total=total, completed=start)

        def on_match(report, stored):
            nonlocal errors
            errors += sum(int(v) for v in report.row["errors"].values())
            prog.advance(task)

        try:
            _guard(lambda: t.run(be, on_match))
        except KeyboardInterrupt:
            interrupted = True
    rows, jpath, hpath = t.write_standings()
    done = t.done_count()
    failed = t.failed_matches()
    t.close()
    _print_standings(game, rows)
    console.print(f"{done} of {total} matches stored in {out_dir} ({done - start} played now); "
                  f"standings: {jpath}, {hpath}", highlight=False, soft_wrap=True)
    if failed:
        from rich.text import Text  # the reason may quote a bot's output: never read as console markup
        first = (failed[0]["error_detail"] or [{"detail": "no reason stored"}])[0]["detail"]
        console.print(Text(f"{len(failed)} match{'es' if len(failed) != 1 else ''} failed (first: {first[:200]}; "
                           f"all in {hpath}); run the same command with --retry-failed to play them again"),
                      soft_wrap=True)
    if interrupted:
        _error_line(f"interrupted: {total - done} matches left; run the same command again to continue")
        raise typer.Exit(130)


@app.command("league-season")
def league_season(
    game: str = typer.Argument(..., help="The game whose league starts a new season (a game id: botwars games)."),
    reason: str = typer.Option(..., "--reason", help="Why, in plain words (1-200 characters): shown on the "
                                                     "league page."),
    db: Optional[str] = typer.Option(None, "--db", help="The server's database URL [default: $BOTWARS_DATABASE_URL, "
                                                         "else sqlite:///botwars.db in the working directory]."),
) -> None:
    """Start GAME's next league season (issue 28 item 6): the ladder then rates only the new
    season's matches, so every rating starts afresh and a ladder resting on settled ratings plays
    again. Earlier matches, results and replays stay stored. A running server sees it at once."""
    from botwars.server.league import start_season
    from botwars.server.session import ApiError
    from botwars.store import Store, default_url
    store = _guard(lambda: Store(db or default_url()))
    _guard(store.migrate)
    try:
        new = start_season(store, game, reason)
    except ApiError as exc:
        _fail(f"league-season: {exc.message}")
    console.print(f"{game}: season {new['number']} has started ({new['reason']}); the ladder rates its matches only",
                  highlight=False, soft_wrap=True)


def _print_standings(game: str, rows: list[dict[str, Any]]) -> None:
    """The standings and cross tables (:func:`botwars.league.tables.standings_tables`): every
    number whole at any terminal width from 80 columns; to a file or pipe, 200 columns."""
    from botwars.league.tables import standings_tables
    out = console if console.is_terminal else Console(width=max(console.width, 200))  # a file or pipe: whole lines
    for table in standings_tables(game, rows, out.width):
        out.print(table)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
