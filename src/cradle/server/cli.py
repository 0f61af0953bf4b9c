"""The `cradle serve`, `cradle bots` and `cradle loadtest` commands, registered on the main CLI
by `register`.

The server's dependencies are imported only when one of these commands runs, so the rest of the
CLI works without the ``server`` extra.
"""

from __future__ import annotations

import errno
import importlib.util
import ipaddress
import json
import socket
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cradle import extra_hint
from cradle.core.errors import CliError
from cradle.games import game_names
from cradle.server.limits import Limits  # plain Python: no server extra needed to import it

if TYPE_CHECKING:
    from cradle.server.backup import Copied

# What `cradle serve` starts from: the defaults, with the bot workers started with the server.
SERVE_LIMITS = Limits(prestart_bots=True)
DEFAULT_PORT = 8000  # `make play`'s; $CRADLE_PORT or --port choose another


def default_db() -> Path:
    """The SQLite file in the user's data directory (``~/.local/share/cradle`` on Linux)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("cradle")) / "games.sqlite3"


def _check_port(host: str, port: int) -> None:
    if not 0 < port < 65536:
        raise CliError(f"--port must be between 1 and 65535, not {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise CliError(f"cannot listen on {host!r}: {exc.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            way_out = ""
            if exc.errno == errno.EADDRINUSE:
                way_out = (
                    f" (another program holds port {port}: choose another with --port N, "
                    "or CRADLE_PORT=N, which `make play` passes on too)"
                )
            raise CliError(f"cannot listen on {host}:{port}: {exc.strerror}{way_out}") from None


def _need_server_extra() -> None:
    """CliError naming the extra when the server's packages are not installed (found, not
    imported: a command imports what it uses, after its own checks)."""
    for name in ("fastapi", "sqlalchemy", "uvicorn"):
        if importlib.util.find_spec(name) is None:
            raise CliError(f"the play server needs {extra_hint('server')}; {name} is missing")


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(help="Port to listen on.", envvar="CRADLE_PORT")
    ] = DEFAULT_PORT,
    db: Annotated[
        Path | None,
        typer.Option(help="SQLite file for the games (default: in the user's data directory)."),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(help="A database URL instead of --db, e.g. postgresql://user@host/cradle."),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before it moves, so people can follow.")
    ] = 0.6,
    workers: Annotated[
        int, typer.Option(help="Server processes on this port (more than 1 needs PostgreSQL).")
    ] = 1,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            help="Another site whose pages may open WebSockets here (repeatable; the server's "
            "own pages always may)."
        ),
    ] = None,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            help="A reverse proxy's address or network whose X-Forwarded-For header names the "
            "client (repeatable; default none: every client is its own peer address)."
        ),
    ] = None,
    max_live_games: Annotated[
        int, typer.Option(help="Games in progress the server takes at most.")
    ] = SERVE_LIMITS.max_live_games,
    max_sockets: Annotated[
        int,
        typer.Option(
            help="Live WebSocket connections per server process (0: sized for the machine)."
        ),
    ] = SERVE_LIMITS.max_sockets,
    sockets_per_client: Annotated[
        int, typer.Option(help="Live WebSocket connections per client.")
    ] = SERVE_LIMITS.sockets_per_client,
    live_games_per_client: Annotated[
        int, typer.Option(help="Games in progress one client (address) may have at most.")
    ] = SERVE_LIMITS.live_games_per_client,
    max_bot_seats: Annotated[
        int, typer.Option(help="Bot seats at those games at most (the random bot is free).")
    ] = SERVE_LIMITS.max_bot_seats,
    invite_days: Annotated[
        float, typer.Option(help="Days an unused invite code works after its game was made.")
    ] = SERVE_LIMITS.invite_days,
    bot_seats_per_client: Annotated[
        int, typer.Option(help="Bot seats one client's games may have at most.")
    ] = SERVE_LIMITS.bot_seats_per_client,
    unplayed_minutes: Annotated[
        float,
        typer.Option(help="Minutes unchanged after which a game nobody played in expires."),
    ] = SERVE_LIMITS.unplayed_minutes,
    bots: Annotated[
        bool,
        typer.Option(
            help="Make the bots' moves in this server (--no-bots: `cradle bots` processes make "
            "them; PostgreSQL only)."
        ),
    ] = SERVE_LIMITS.run_bots,
    bot_seconds: Annotated[
        float, typer.Option(help="The most a bot may think per decision (a table may ask less).")
    ] = SERVE_LIMITS.bot_seconds,
    bot_processes: Annotated[
        int,
        typer.Option(
            help="Worker processes for the bots' turns a person waits for (0: one per core "
            "but one)."
        ),
    ] = SERVE_LIMITS.bot_processes,
    background_bot_processes: Annotated[
        int,
        typer.Option(
            help="Niced worker processes for the bots' turns nobody waits for: bots alone, "
            "stand-ins (0: as many as --bot-processes)."
        ),
    ] = SERVE_LIMITS.background_bot_processes,
    create_per_minute: Annotated[
        float, typer.Option(help="New games (and seats joined) per client and minute.")
    ] = SERVE_LIMITS.create_per_minute,
    moves_per_second: Annotated[
        float, typer.Option(help="Moves and undos per client and second (after a burst).")
    ] = SERVE_LIMITS.moves_per_second,
    chat_per_minute: Annotated[
        float, typer.Option(help="Chat lines per client, and per seat, a minute (after a burst).")
    ] = SERVE_LIMITS.chat_per_minute,
    assist_processes: Annotated[
        int, typer.Option(help="Worker processes for hints and analyses (niced below bots).")
    ] = SERVE_LIMITS.assist_processes,
    hint_seconds: Annotated[
        float, typer.Option(help="Thinking per hint.")
    ] = SERVE_LIMITS.hint_seconds,
    analysis_seconds: Annotated[
        float, typer.Option(help="Thinking per move reviewed when a finished game is analysed.")
    ] = SERVE_LIMITS.analysis_seconds,
    analyse: Annotated[
        bool, typer.Option(help="Analyse every game a person played once it ends.")
    ] = SERVE_LIMITS.analyse_finished,
    smtp_url: Annotated[
        str | None,
        typer.Option(
            help="The SMTP server that sends turn notices, smtp://HOST:PORT (or smtps:// for "
            "TLS from the start); none: no mail."
        ),
    ] = None,
    smtp_user: Annotated[str | None, typer.Option(help="The SMTP server's user name.")] = None,
    smtp_password: Annotated[
        str | None,
        typer.Option(help="The SMTP user's password.", envvar="CRADLE_SMTP_PASSWORD"),
    ] = None,
    smtp_starttls: Annotated[
        bool, typer.Option(help="Upgrade the smtp:// connection with STARTTLS.")
    ] = False,
    mail_from: Annotated[
        str | None, typer.Option(help="The sender address of turn notices (with --smtp-url).")
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="The address people reach this server at, for the links in mails "
            "(default: http://HOST:PORT/)."
        ),
    ] = None,
    upgrade: Annotated[
        bool,
        typer.Option(
            help="Upgrade an older database's schema at start (--no-upgrade: refuse to start "
            "and name the `cradle db upgrade` command instead)."
        ),
    ] = True,
    metrics_token: Annotated[
        str | None,
        typer.Option(
            help="Serve Prometheus metrics at /metrics to requests with this bearer token "
            "(none: /metrics answers nobody).",
            envvar="CRADLE_METRICS_TOKEN",
        ),
    ] = None,
    log_format: Annotated[
        str, typer.Option(help="The log's lines: text, or json (one object a line).")
    ] = "text",
    log_level: Annotated[
        str,
        typer.Option(
            help="The least a line must matter to be logged: debug, info, warning, error."
        ),
    ] = "warning",
) -> None:
    """Start the play server: lobby, live games, bots and the web client."""
    # Every check that needs no server code comes first: a mistyped flag is refused at once,
    # without the server's imports (a second of a small machine's CPU).
    if db is not None and database is not None:
        raise CliError("give --db or --database, not both")
    if bot_delay < 0:
        raise CliError("--bot-delay cannot be negative")
    from cradle.server.logs import FORMATS, LEVELS

    if log_format not in FORMATS:
        raise CliError(f"--log-format is one of {', '.join(FORMATS)}, not {log_format!r}")
    if log_level not in LEVELS:
        raise CliError(f"--log-level is one of {', '.join(LEVELS)}, not {log_level!r}")
    if metrics_token is not None and len(metrics_token) < 16:
        raise CliError(
            "--metrics-token needs 16 characters or more (a random one: openssl rand -hex 16)"
        )
    if not 1 <= workers <= 64:
        raise CliError("--workers must be between 1 and 64")
    try:
        limits = replace(
            SERVE_LIMITS,
            max_live_games=max_live_games,
            max_sockets=max_sockets,
            sockets_per_client=sockets_per_client,
            max_bot_seats=max_bot_seats,
            invite_days=invite_days,
            live_games_per_client=live_games_per_client,
            bot_seats_per_client=bot_seats_per_client,
            unplayed_minutes=unplayed_minutes,
            run_bots=bots,
            bot_seconds=bot_seconds,
            bot_processes=bot_processes,
            background_bot_processes=background_bot_processes,
            create_per_minute=create_per_minute,
            moves_per_second=moves_per_second,
            chat_per_minute=chat_per_minute,
            assist_processes=assist_processes,
            hint_seconds=hint_seconds,
            analysis_seconds=analysis_seconds,
            analyse_finished=analyse,
        )
    except ValueError as exc:
        raise CliError(f"bad limit: {exc}") from None
    proxies = tuple(trusted_proxy or ())
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise CliError(
                f"--trusted-proxy takes an address or a network (10.0.0.0/8), not {proxy!r}"
            ) from None
    mail = None
    if smtp_url is not None:
        if mail_from is None:
            raise CliError("--smtp-url needs --mail-from, the notices' sender address")
        _need_server_extra()
        from cradle.server.mail import MailSettings

        shown_host = "localhost" if host in ("0.0.0.0", "::") else host
        try:
            mail = MailSettings(
                url=smtp_url,
                sender=mail_from,
                public_url=public_url or f"http://{shown_host}:{port}/",
                user=smtp_user,
                password=smtp_password,
                starttls=smtp_starttls,
            )
        except ValueError as exc:
            raise CliError(str(exc)) from None
    elif mail_from is not None or smtp_user is not None or smtp_starttls:
        raise CliError("--mail-from, --smtp-user and --smtp-starttls need --smtp-url")
    _check_port(host, port)
    sqlite = not database or database.startswith("sqlite")  # as database_url reads them
    if sqlite and workers > 1:
        raise CliError("--workers needs PostgreSQL (--database): SQLite serves one process")
    if sqlite and not bots:
        raise CliError(
            "--no-bots needs PostgreSQL (--database): with SQLite, this server's own bot "
            "workers are the only ones"
        )
    _need_server_extra()
    from cradle.server.store.database import Database, database_url, shown_url

    url = database_url(db if db is not None else default_db(), database)
    try:  # fail here, with one line, rather than inside the server's start-up
        opened = Database(url, upgrade=upgrade)  # workers then find the schema up to date
    except Exception as exc:
        raise CliError(f"cannot open the database: {str(exc).splitlines()[0]}") from None
    try:
        try:
            opened.claim()
        except Exception as exc:
            raise CliError(str(exc)) from None
        read_only = opened.read_only
    finally:
        opened.close()
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    where = shown_url(url) if database else str(db if db is not None else default_db())
    print(f"cradle play server: http://{shown}:{port}/  (games stored in {where})", flush=True)
    if read_only:
        print(
            f"serving read-only: {where} cannot be written, so games can be watched, replayed "
            "and read, and nothing changes (no new games, seats, moves or analyses)",
            flush=True,
        )
    if mail is not None:
        print(f"turn notices by e-mail through {mail.host}:{mail.port}", flush=True)
    from cradle.server.app import AppOptions, run_server

    options = AppOptions(
        bot_delay=bot_delay,
        limits=limits,
        origins=tuple(allow_origin or ()),
        upgrade=upgrade,
        mail=mail,
        metrics_token=metrics_token,
    )
    run_server(url, host, port, options, workers, proxies, log_format, log_level)


# The `cradle db` commands' database: a SQLite file, or a database URL.
DbFile = Annotated[
    Path | None, typer.Option(help="The SQLite file (default: the one `cradle serve` uses).")
]
DatabaseUrl = Annotated[
    str | None,
    typer.Option(help="A database URL instead of --db, e.g. postgresql://user@host/cradle."),
]


def _url_of(db: Path | None, database: str | None) -> str:
    """The database URL that --db or --database names (the default SQLite file without)."""
    from cradle.server.store.database import database_url

    if db is not None and database is not None:
        raise CliError("give --db or --database, not both")
    return database_url(db if db is not None else default_db(), database)


def db_upgrade(db: DbFile = None, database: DatabaseUrl = None) -> None:
    """Upgrade a play server's database to this version's schema (servers do it at start
    unless started with --no-upgrade); its games are kept."""
    _need_server_extra()
    from sqlalchemy import create_engine

    from cradle.server import migrations
    from cradle.server.store.database import Database, shown_url

    url = _url_of(db, database)
    shown = shown_url(url) if database else str(db if db is not None else default_db())
    try:
        probe = create_engine(url)
        try:
            with probe.connect() as connection:
                before = migrations.current(connection)
        finally:
            probe.dispose()
        Database(url, upgrade=True).close()
    except Exception as exc:
        raise CliError(f"cannot upgrade {shown}: {str(exc).splitlines()[0]}") from None
    after = migrations.head()
    if before == after:
        print(f"{shown} is up to date (revision {after})")
    else:
        print(f"{shown} upgraded from revision {before or 'none'} to {after}")


def _sqlite_file(db: Path | None, database: str | None, what: str) -> Path:
    """The SQLite file of --db or --database; CliError with pg_dump's advice for PostgreSQL."""
    from cradle.server.backup import pg_dump_advice

    if database is None or database.startswith("sqlite:///"):  # no storage imported for a file
        if db is not None and database is not None:
            raise CliError("give --db or --database, not both")
        return Path(database.removeprefix("sqlite:///")) if database else db or default_db()
    from cradle.server.store.database import shown_url

    url = _url_of(db, database)
    if url.startswith("postgresql"):
        raise CliError(f"cradle db {what} copies SQLite files. {pg_dump_advice(shown_url(url))}")
    if not url.startswith("sqlite:///"):
        raise CliError(f"cradle db {what} copies SQLite files, not {shown_url(url)}")
    return Path(url.removeprefix("sqlite:///"))


def _copying(doing: str, copy: Callable[[], Copied]) -> Copied:
    """``copy()``; a backup or restore that cannot be done is the CLI's error, saying why."""
    from cradle.server.backup import BackupError

    try:
        return copy()
    except (BackupError, OSError) as exc:
        raise CliError(f"cannot {doing}: {exc}") from None


def db_backup(
    target: Annotated[Path, typer.Argument(help="The new file the backup goes to.")],
    db: DbFile = None,
    database: Annotated[
        str | None,
        typer.Option(help="A database URL instead of --db (PostgreSQL: use pg_dump)."),
    ] = None,
) -> None:
    """Back up a play server's SQLite database to a new file, while it serves (SQLite's online
    backup: one consistent state, checked)."""
    _need_server_extra()
    from cradle.server.backup import backup

    source = _sqlite_file(db, database, "backup")
    copied = _copying(f"back up {source}", lambda: backup(source, target))
    print(f"backed up {source} to {copied.path}: {copied.contents()}, {copied.size} bytes")


def db_restore(
    backup_file: Annotated[Path, typer.Argument(help="A file `cradle db backup` made.")],
    db: Annotated[
        Path | None,
        typer.Option(help="The SQLite file to restore to (default: the one `cradle serve` uses)."),
    ] = None,
    replace_file: Annotated[
        bool,
        typer.Option("--replace", help="Replace an existing file (its server must have stopped)."),
    ] = False,
) -> None:
    """Restore a backup as a play server's SQLite database (a new file, or --replace one no
    server uses); an older backup's schema is upgraded."""
    _need_server_extra()
    from cradle.server.backup import restore

    target = db if db is not None else default_db()
    copied = _copying(f"restore {backup_file}", lambda: restore(backup_file, target, replace_file))
    print(f"restored {backup_file} as {copied.path}: {copied.contents()}")


def bots(
    database: Annotated[
        str,
        typer.Option(
            help="The servers' PostgreSQL database, e.g. postgresql://user@host/cradle.",
            show_default=False,
        ),
    ],
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes for the bots' turns a person waits for, each making one "
            "decision at a time."
        ),
    ] = 1,
    background_workers: Annotated[
        int | None,
        typer.Option(
            help="Niced worker processes for the bots' turns nobody waits for: bots alone, "
            "stand-ins (default: as many as --workers).",
            show_default=False,
        ),
    ] = None,
    background_nice: Annotated[
        int, typer.Option(help="The niced workers' niceness above this process's (0 to 19).")
    ] = SERVE_LIMITS.background_bot_nice,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before it moves (as `cradle serve`).")
    ] = 0.6,
    bot_seconds: Annotated[
        float, typer.Option(help="The most a bot may think per decision (a table may ask less).")
    ] = SERVE_LIMITS.bot_seconds,
    analyse: Annotated[
        bool, typer.Option(help="Queue the analysis of a game a person played when a bot ends it.")
    ] = SERVE_LIMITS.analyse_finished,
    verbose: Annotated[bool, typer.Option(help="Print a line for every move made.")] = False,
) -> None:
    """Bot workers for servers on a PostgreSQL database: they take the bots' turns from the
    database's queue, fairly across clients, and make their moves (on any machine)."""
    if not 1 <= workers <= 256:
        raise CliError("--workers must be between 1 and 256")
    background = workers if background_workers is None else background_workers
    if not 0 <= background <= 256:
        raise CliError("--background-workers must be between 0 and 256")
    if not 0 <= background_nice <= 19:
        raise CliError("--background-nice must be between 0 and 19")
    if bot_delay < 0:
        raise CliError("--bot-delay cannot be negative")
    if not bot_seconds > 0:
        raise CliError("--bot-seconds must be more than 0")
    if database.startswith("sqlite"):
        raise CliError(
            "cradle bots needs PostgreSQL: a SQLite file's bots are made by its one server"
        )
    _need_server_extra()
    from cradle.server.store.database import Database, database_url, shown_url

    url = database_url(None, database)
    try:
        Database(url).close()
    except Exception as exc:
        raise CliError(f"cannot open the database: {str(exc).splitlines()[0]}") from None
    print(
        f"cradle bots: {workers} workers (a person waits) and {background} niced ones (nobody "
        f"waits) on {shown_url(url)}",
        flush=True,
    )
    from cradle.server.botqueue import WorkerSettings, run_workers

    settings = WorkerSettings(url, bot_delay, bot_seconds, analyse, verbose, background_nice)
    run_workers(settings, workers, background)


def loadtest(
    games: Annotated[int, typer.Option(help="Concurrent games.")] = 100,
    game: Annotated[
        str, typer.Option("--game", "-g", help=f"One of {', '.join(game_names())}.")
    ] = game_names()[0],
    players: Annotated[int, typer.Option(help="Seats per game.")] = 2,
    duration: Annotated[float, typer.Option(help="Seconds to measure.")] = 30.0,
    think: Annotated[
        float,
        typer.Option(help="Mean seconds a client thinks before each move (0: as fast as it can)."),
    ] = 0.5,
    seed: Annotated[int, typer.Option(help="Seed of the clients' random choices.")] = 1,
    url: Annotated[
        str | None,
        typer.Option(help="A running server on this machine (default: start one on loopback)."),
    ] = None,
    timeout: Annotated[
        float, typer.Option(help="Seconds a client waits for an answer before it counts a timeout.")
    ] = 30.0,
) -> None:
    """Benchmark: N concurrent games played by random clients over the WebSocket API."""
    _need_server_extra()
    from cradle.server.loadtest import LoadtestError, run_loadtest

    try:
        report = run_loadtest(
            games=games,
            game=game,
            players=players,
            duration=duration,
            think=think,
            seed=seed,
            url=url,
            timeout=timeout,
        )
    except LoadtestError as exc:
        raise CliError(str(exc)) from None
    print(json.dumps(report, indent=1))


def register(app: typer.Typer) -> None:
    """Add `serve`, `bots`, `loadtest` and `db upgrade`/`backup`/`restore` to `cradle`."""
    app.command()(serve)
    app.command()(bots)
    app.command()(loadtest)
    db = typer.Typer(help="The play server's database.", no_args_is_help=True)
    db.command("upgrade")(db_upgrade)
    db.command("backup")(db_backup)
    db.command("restore")(db_restore)
    app.add_typer(db, name="db")
