"""`cradle play`: one or more humans against bots (or each other) in the terminal.

Generic over the contract: the loop asks ``state.to_move`` who decides, offers
``state.legal_actions()``, shows ``state.view(seat)`` through the game's renderer
(``cradle.cli.render_<game>.render_view``) and logs each event's ``text``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.pretty import Pretty
from rich.table import Table
from rich.text import Text

from cradle.ai import Bot, UnknownBot, make_bot
from cradle.ai.match import IllegalChoice, Move, Player, play
from cradle.cli.common import (
    CliError,
    fresh_seed,
    load_game,
    make_options,
    new_state,
    seat_view,
)
from cradle.core.contract import JSON, Event, GameModule, GameState, MalformedAction, View
from cradle.core.record import GameRecord
from cradle.core.words import N_
from cradle.games import refusal
from cradle.i18n import _, ngettext, reason, word

Renderer = Callable[[View], RenderableType]
EventText = Callable[[Event, list[str]], str]

# The commands are typed in English, like the actions' notation (the game's own, in every
# language); what they do is said in the player's language.
HELP = N_("""\
Enter an action by its number or by its text (case does not matter), e.g. 3 or "tile red K2".
Part of an action, e.g. "tile red", lists the actions that start with it.
Commands:
  help      this text
  actions   list the legal actions again
  board     show the board again
  log       the whole game log
  quit      leave the game (asks first; saves the record if --save was given)""")

# A pending decision's kind, as the line that asks for it names it.
DECISIONS = {
    "revolt": N_("revolt"),
    "war": N_("war"),
    "war_order": N_("which war first"),
    "monument": N_("monument"),
    "treasure": N_("treasure"),
    "building": N_("building"),
    "wonderpoint": N_("the wonder's point"),
}
COMMANDS = ("help", "actions", "board", "log", "quit")
FULL_LIST = 40  # longer action lists are shown one block per group
LONG_BLOCK = 240  # characters; a longer block is summarised to its size


class LeaveGame(Exception):
    """The human asked to quit, or the input ended: stop, saving the record."""

    def __init__(self, reason: str, code: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def plan_seats(players: int | None, humans: int, bots: str) -> list[str | None]:
    """Resolve --players / --humans / --bots into one entry per seat, humans (None) first.

    ``--bots`` is a bot name for every seat not taken by a human (``random``), a count of
    random bots (``3``), or one name per bot seat (``random,greedy``).
    """
    if humans < 0:
        raise CliError(_("--humans must be 0 or more"))
    spec = bots.strip().lower()
    names: list[str] | None = None
    if spec.isdigit():
        names = ["random"] * int(spec)
    elif "," in spec:
        names = [name.strip() for name in spec.split(",")]
        if not all(names):
            raise CliError(_("--bots: empty bot name in {bots}").format(bots=repr(bots)))
    if names is None:
        total = players if players is not None else max(2, humans)
        if humans > total:
            raise CliError(
                _("--humans {humans} is more than --players {players}").format(
                    humans=humans, players=total
                )
            )
        names = [spec] * (total - humans)
    elif players is not None and players != humans + len(names):
        raise CliError(
            _("--players {players} does not match {humans} human(s) and {bots} bot(s)").format(
                players=players, humans=humans, bots=len(names)
            )
        )
    return [None] * humans + list(names)


@dataclass
class LogEntry:
    number: int
    player: str
    action: str
    texts: list[str]


def event_texts(
    events: Sequence[Event], words: EventText | None = None, players: list[str] | None = None
) -> list[str]:
    """The events in the player's language where the game's renderer words them."""
    if words is None:
        return [event["text"] for event in events]
    return [words(event, players or []) for event in events]


def print_entry(console: Console, entry: LogEntry) -> None:
    """One action of the running log, then the events it caused."""
    line = Text.assemble((f"{entry.number:>3}. ", "dim"), (entry.player, "bold"), ": ")
    line.append(entry.action, style="cyan")
    console.print(line)
    for text in entry.texts:
        console.print(Text("       " + text))


@dataclass
class Session:
    """One game being played: the state, who sits where, the record and the log."""

    console: Console
    game: str
    state: GameState
    record: GameRecord
    bots: dict[int, Bot]
    render: Renderer
    module: GameModule | None = None
    words: EventText | None = None
    save: Path | None = None
    log: list[LogEntry] = field(default_factory=list)
    # Log length when each human seat last decided: what it has not seen yet starts there.
    seen: dict[int, int] = field(default_factory=dict)
    last_human: int | None = None

    @property
    def humans(self) -> list[int]:
        return [seat for seat in range(len(self.state.players)) if seat not in self.bots]

    def run(self) -> int:
        try:
            self.intro()
            players: list[Player] = [
                self.bots.get(seat) or self.human_decision
                for seat in range(len(self.state.players))
            ]
            play(self.state, players, max_actions=None, after=self.played)
        except IllegalChoice as exc:
            return self.leave(
                LeaveGame(
                    _("{player} chose an illegal action {action}: {reason}").format(
                        player=exc.player, action=repr(exc.action), reason=exc.reason
                    ),
                    1,
                )
            )
        except KeyboardInterrupt:
            return self.leave(LeaveGame(_("Interrupted: leaving the game."), 130))
        except LeaveGame as leave:
            return self.leave(leave)
        self.finish()
        return 0

    def leave(self, leave: LeaveGame) -> int:
        self.console.print(f"\n{leave.reason}", markup=False)
        self.save_record()
        return leave.code

    # -- output -------------------------------------------------------------------------

    def intro(self) -> None:
        def who(seat: int) -> str:
            if seat in self.bots:
                return _("{bot} bot").format(bot=self.bots[seat].name)
            return _("you") if len(self.humans) == 1 else _("human")

        seats = ", ".join(
            f"{word('player', name)} ({who(seat)})" for seat, name in enumerate(self.state.players)
        )
        self.console.print(
            Text.assemble(
                (f"{self.game} ", "bold"),
                _("seed {seed}; seats: {seats}").format(seed=self.record.seed, seats=seats),
            )
        )
        self.console.print(Text(_("Type help for the commands."), style="dim"))

    def show_log(self, start: int = 0) -> None:
        if not self.log[start:]:
            self.console.print(Text(_("(nothing in the log yet)"), style="dim"))
        for entry in self.log[start:]:
            print_entry(self.console, entry)

    def show_board(self, seat: int | None) -> None:
        self.console.print(self.render(seat_view(self.state, seat)))

    def finish(self) -> None:
        self.console.rule(_("Game over"))
        self.show_board(None)
        self.console.print(ranking_table(self.state.result()))
        self.save_record()

    def save_record(self) -> None:
        if self.save is None:
            return
        try:
            self.record.save(self.save)
        except OSError as exc:
            raise CliError(
                _("cannot save the record to {path}: {reason}").format(
                    path=self.save, reason=exc.strerror
                )
            ) from None
        self.console.print(_("Game record saved to {path}").format(path=self.save), markup=False)

    # -- decisions ----------------------------------------------------------------------

    def played(self, move: Move) -> None:
        self.record.actions.append(move.action)
        players = list(self.state.players)
        player = word("player", players[move.seat])
        texts = event_texts(move.events, self.words, players)
        entry = LogEntry(len(self.log) + 1, player, move.action, texts)
        self.log.append(entry)
        print_entry(self.console, entry)
        if move.seat not in self.bots:
            self.seen[move.seat] = len(self.log)

    def read(self, prompt: str) -> str:
        try:
            return self.console.input(prompt, markup=False)
        except EOFError:
            raise LeaveGame(_("End of input: leaving the game.")) from None

    def clear_screen(self) -> None:
        self.console.clear()
        if self.console.is_terminal:
            # Also the scrollback, or the previous hand is one scroll away.
            self.console.file.write("\x1b[3J")
            self.console.file.flush()

    def human_decision(self, state: GameState, seat: int) -> str:
        name = word("player", self.state.players[seat])
        if len(self.humans) > 1 and self.last_human not in (None, seat):
            # Hot seat: hide the previous player's hand before the next one looks.
            self.clear_screen()
            self.read(
                _("Pass the screen to {player} (seat {seat}) and press Enter. ").format(
                    player=name, seat=seat
                )
            )
            self.clear_screen()
            missed = self.seen.get(seat, 0)
            if self.log[missed:]:
                self.console.rule(_("Since {player}'s last decision").format(player=name))
                self.show_log(missed)
        self.last_human = seat
        view = seat_view(self.state, seat)
        self.console.print(self.render(view))
        actions = self.state.legal_actions()
        if is_commitment(actions):
            numbered = show_commitments(self.console, actions)
        else:
            numbered = show_actions(self.console, actions)
        shown: Mapping[str, object] = view  # any game's: its own keys, read as JSON
        pending = shown.get("pending")
        kind = pending.get("kind") if isinstance(pending, dict) else None
        decision = (
            _("{player} (seat {seat}) to decide: {kind}").format(
                player=name, seat=seat, kind=_(DECISIONS.get(str(kind), str(kind)))
            )
            if kind
            else _("{player} (seat {seat}) to decide").format(player=name, seat=seat)
        )
        self.console.print(Text(decision, style="bold reverse"))
        while True:
            answer = " ".join(self.read(f"{name}> ").strip().lower().split())
            if not answer:
                continue
            if answer in COMMANDS:
                self.command(answer, seat, numbered)
                continue
            action = self.resolve(answer, numbered)
            if action is None:
                continue
            refused = self.refused(state, action)  # the engine says what is wrong with it
            if refused is not None:
                said = (
                    _("Not an action: {reason} ('help' lists the commands, 'actions' the moves)")
                    if isinstance(refused, MalformedAction)
                    else _("Not allowed now: {reason}")
                )
                self.console.print(Text(said.format(reason=reason(refused)), style="bold red"))
                continue
            return action

    def refused(self, state: GameState, action: str) -> ValueError | None:
        """The engine's refusal of ``action`` (a MalformedAction or a DisallowedAction, with
        the message the translations read); None if it is legal."""
        if self.module is not None:
            return refusal(self.module, state, action)
        try:
            state.clone().apply(action)
        except ValueError as exc:
            return exc
        return None

    def command(self, word: str, seat: int, numbered: list[str]) -> None:
        if word == "help":
            self.console.print(_(HELP), markup=False)
        elif word == "actions":
            show_actions(self.console, numbered)
        elif word == "board":
            self.show_board(seat)
        elif word == "log":
            self.show_log()
        elif word == "quit":
            sure = self.read(_("Quit the game? [y/N] ")).strip().lower()
            if sure in ("y", "yes", _("y"), _("yes")):
                raise LeaveGame(_("You left the game."))

    def resolve(self, answer: str, numbered: list[str]) -> str | None:
        """The action meant by ``answer``, or None after telling the human why not."""
        if answer.isdigit() and is_commitment(numbered):
            # A conflict's choice is a count of tiles: the number typed is that count.
            if f"commit {int(answer)}" in numbered:
                return f"commit {int(answer)}"
            counts = [int(action.split()[1]) for action in numbered]
            self.console.print(
                Text(
                    _("You can commit {low} to {high} tiles, not {answer}.").format(
                        low=min(counts), high=max(counts), answer=answer
                    ),
                    style="red",
                )
            )
            return None
        if answer.isdigit():
            number = int(answer)
            if 1 <= number <= len(numbered):
                return numbered[number - 1]
            self.console.print(
                Text(
                    _("There is no action {number}: choose 1 to {last}.").format(
                        number=number, last=len(numbered)
                    ),
                    style="red",
                )
            )
            return None
        by_text = {action.lower(): action for action in numbered}
        if answer in by_text:
            return by_text[answer]
        starting = [action for action in numbered if action.lower().startswith(answer + " ")]
        if starting:
            title = ngettext(
                "{count} action starts with {text}:",
                "{count} actions start with {text}:",
                len(starting),
            ).format(count=len(starting), text=repr(answer))
            show_actions(self.console, starting, numbered, full=True, title=title)
            return None
        # Not in the list: the engine explains what is wrong with it (and changes nothing).
        return answer


def is_commitment(actions: list[str]) -> bool:
    """Whether the decision is how many tiles to commit to a conflict (``commit N``)."""
    return bool(actions) and all(
        action.startswith("commit ") and action.split()[-1].isdigit() for action in actions
    )


def show_commitments(console: Console, actions: list[str]) -> list[str]:
    """A conflict's choice, by tile count: the count is what the player types."""
    counts = sorted(int(action.split()[1]) for action in actions)
    choices = "  ".join(str(count) for count in counts)
    console.print(Text(_("Tiles to commit: "), style="bold") + Text(choices, style="bold"))
    console.print(Text(_("Type the number of tiles to commit (0: none)."), style="dim"))
    return [f"commit {count}" for count in counts]


def group_actions(actions: list[str]) -> list[tuple[str, list[str]]]:
    """Actions grouped for display, in the engine's order: by first word, and by the first two
    words where every action of that kind has three (tile red K2, leader king B1), single
    words (pass, decline) together at the end."""
    by_first: dict[str, list[str]] = {}
    for action in actions:
        words = action.split()
        by_first.setdefault(words[0] if len(words) > 1 else "", []).append(action)
    groups: list[tuple[str, list[str]]] = []
    for first, members in by_first.items():
        if not first:
            continue
        if all(len(action.split()) == 3 for action in members):
            by_two: dict[str, list[str]] = {}
            for action in members:
                by_two.setdefault(" ".join(action.split()[:2]), []).append(action)
            groups.extend(by_two.items())
        else:
            groups.append((first, members))
    if "" in by_first:
        groups.append(("", by_first[""]))
    return groups


def show_actions(
    console: Console,
    actions: list[str],
    numbering: list[str] | None = None,
    full: bool = False,
    title: str | None = None,
) -> list[str]:
    """Print ``actions`` numbered and grouped; returns them in numbered order.

    Up to FULL_LIST actions (or with ``full``) each gets its number; a longer list shows one
    line per group with the group's number range, since several hundred numbered items do not
    fit a screen. With ``numbering``, the numbers are those of that earlier, fuller list.
    """
    groups = group_actions(actions)
    ordered = [action for _, members in groups for action in members]
    numbers = {action: i for i, action in enumerate(numbering or ordered, start=1)}
    console.print(
        Text(title or _("Legal actions ({count}):").format(count=len(actions)), style="bold")
    )
    if len(actions) > FULL_LIST and not full:
        console.print(compact_listing(groups, numbers))
        console.print(
            Text(
                _(
                    "Type an action (e.g. tile red K2) or its number; numbers run in the order "
                    "shown. The first words of an action list those actions numbered."
                ),
                style="dim",
            )
        )
    else:
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column()
        for key, members in groups:
            items = [
                Text.assemble((f"{numbers[action]:>3} ", "dim"), (ending(action, key), "bold"))
                for action in members
            ]
            table.add_row(key, Columns(items, padding=(0, 1)))
        console.print(table)
    return ordered if numbering is None else numbering


def ending(action: str, key: str) -> str:
    """What follows the group's words: "K2" of "tile red K2" in group "tile red"."""
    return action[len(key) :].strip()


def compact_listing(groups: list[tuple[str, list[str]]], numbers: dict[str, int]) -> RenderableType:
    """One block per distinct list of endings: groups offering the same cells (tile red,
    tile green, ...) share a block, each with its number range."""
    blocks: dict[tuple[str, ...], list[tuple[str, list[str]]]] = {}
    singles = Text()
    for key, members in groups:
        if not key or len(members) == 1:  # lone actions on one line: "withdraw king #129"
            for action in members:
                singles.append(f"{action} ", style="bold")
                singles.append(f"#{numbers[action]}  ", style="dim")
            continue
        labels = tuple(ending(action, key) for action in members)
        blocks.setdefault(labels, []).append((key, members))
    parts: list[RenderableType] = []
    for labels, sharing in blocks.items():
        head = Text()
        for index, (key, members) in enumerate(sharing):
            first, last = numbers[members[0]], numbers[members[-1]]
            words = key.split()
            # "leader priest #1-34, farmer #35-68": repeat only what differs.
            name = words[-1] if index and len(words) > 1 else key
            if index:
                head.append(", ")
            head.append(name + " ", style="bold")
            head.append(f"#{first}-{last}" if last > first else f"#{first}", style="dim")
        separator = " · " if any(" " in label for label in labels) else " "
        listing = Text(separator.join(labels))
        if len(listing) > LONG_BLOCK:
            # e.g. a tile on any of 120 cells: the board shows them better than a list.
            said = {"count": len(labels), "words": sharing[0][0]}
            listing = Text(
                _("{count} choices each; type '{words}' to list them").format(**said)
                if len(sharing) > 1
                else _("{count} choices; type '{words}' to list them").format(**said),
                style="dim",
            )
        parts += [head, Padding(listing, (0, 0, 0, 4))]
    if singles:
        parts.append(singles)
    return Group(*parts)


def _number(value: object) -> int:
    return value if isinstance(value, int) else 0


def ranking_table(result: Sequence[Mapping[str, object]]) -> Table:
    """The final ranking from ``state.result()``: place, name, score, then the other keys
    (a per-colour dict becomes one column, "3/1/0/2", its order in the caption)."""
    table = Table(title=_("Final ranking"), header_style="bold")
    rows = sorted(result, key=lambda row: (_number(row.get("place")), _number(row.get("seat"))))
    skip = {"place", "seat", "dynasty", "name", "player", "score"}
    extra = [key for key in (rows[0] if rows else {}) if key not in skip]
    for heading in (_("place"), _("seat"), _("player"), _("score"), *extra):
        table.add_column(heading)
    split = [key for key in extra if isinstance(rows[0][key], dict)]
    if split:
        first = rows[0][split[0]]
        order = "/".join(map(str, first)) if isinstance(first, dict) else ""
        table.caption = f"{', '.join(split)}: {order}"
    for row in rows:
        name = row.get("dynasty", row.get("name", row.get("player", "")))
        cells = [str(row.get("place", "")), str(row.get("seat", "")), word("player", name)]
        cells.append(str(row.get("score", "")))
        for key in extra:
            value = row.get(key)
            cells.append(
                "/".join(map(str, value.values())) if isinstance(value, dict) else str(value)
            )
        table.add_row(*cells)
    return table


def find_renderer(game: str) -> Renderer:
    """The game's terminal renderer, or a plain dump of the view if it has none yet."""
    try:
        module = importlib.import_module(f"cradle.render.{game}_text")
    except ImportError:
        return lambda view: Pretty(view)
    render: Renderer = module.render_view
    return render


def find_event_words(game: str) -> EventText | None:
    """How the game's renderer words an event in the player's language, if it does."""
    try:
        module = importlib.import_module(f"cradle.render.{game}_text")
    except ImportError:
        return None
    words: EventText | None = getattr(module, "event_text", None)
    return words


def setup_session(
    console: Console,
    game: str,
    players: int | None,
    humans: int,
    bots: str,
    seed: int | None,
    options: JSON,
    save: Path | None,
) -> Session:
    """A new game with its seats filled, ready to ``run``; CliError for bad settings."""
    module = load_game(game)
    plan = plan_seats(players, humans, bots)
    if save is not None and not save.parent.is_dir():
        raise CliError(_("--save: the folder {folder} does not exist").format(folder=save.parent))
    seed = fresh_seed() if seed is None else seed
    game_options = make_options(module, options)
    seat_bots: dict[int, Bot] = {}
    rng = random.Random(seed)
    for seat, name in enumerate(plan):
        if name is not None:
            try:
                seat_bots[seat] = make_bot(name, rng.randrange(2**31))
            except UnknownBot as exc:
                raise CliError(str(exc)) from None
    state = new_state(module, len(plan), seed, game_options)
    record = GameRecord(
        game=module.NAME,
        players=list(state.players),
        seed=seed,
        options=module.options_to_dict(game_options),
    )
    renderer = find_renderer(module.NAME)
    words = find_event_words(module.NAME)
    return Session(
        console, module.NAME, state, record, seat_bots, renderer, module, words, save=save
    )
