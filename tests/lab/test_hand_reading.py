import math
from pathlib import Path

import pytest
import typer

from cradle import gheos
from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.search.params import IsmctsParams, knowledge_of
from cradle.gheos import GheosGame, as_gheos
from lab.hand_reading import (
    main,
    posterior,
    prior_model,
    read_record,
    reading,
    search_model,
    tile_priors,
    with_hand,
)
from lab.review import deal
from tests.helpers.ladder import SEED, played_game, played_out, record, record_file


def test_the_filter_weighs_each_tile_by_both_ways_into_the_hand() -> None:
    # Even before: the likelihoods alone decide.
    post = posterior(None, "t1", {"t2": math.log(0.3), "t3": math.log(0.1)})
    assert post == pytest.approx({"t2": 0.75, "t3": 0.25})
    # Kept before (t2 likely) or drawn now: w(played) + w(x), times the likelihood.
    before = {"t1": 0.5, "t2": 0.4, "t3": 0.1}
    post = posterior(before, "t1", {"t2": 0.0, "t3": 0.0})
    assert post == pytest.approx({"t2": 0.9 / 1.5, "t3": 0.6 / 1.5})
    # A tile the reader knew was not kept, with a played tile never weighed: ruled out.
    post = posterior({"t2": 1.0}, "t1", {"t2": 0.0, "t3": 0.0})
    assert post == pytest.approx({"t2": 1.0, "t3": 0.0})
    # Trust: that share the reading, the rest an even guess.
    post = posterior({"t2": 1.0}, "t1", {"t2": 0.0, "t3": 0.0}, trust=0.5)
    assert post == pytest.approx({"t2": 0.75, "t3": 0.25})
    # A model that rules out every tile knows nothing: an even guess.
    post = posterior({"t2": 1.0}, "t1", {"t2": -math.inf, "t3": -math.inf})
    assert post == pytest.approx({"t2": 0.5, "t3": 0.5})


def kept_tiles(seat: int, moves: list[str]) -> dict[int, str]:
    """Per move number of the seat's tile turns with two tiles, the tile it kept."""
    game = as_gheos(deal(played_game(SEED, moves)))
    out = {}
    for number, move in enumerate(moves):
        words = move.split()
        hand = game.hand(seat)
        if game.to_move == seat and words[0] in ("place", "replace") and len(hand) == 2:
            out[number] = next(t for t in hand if t != words[1])
        game.apply(move)
    return out


def replayed(moves: list[str], count: int) -> GheosGame:
    """The game of ``SEED`` after the first ``count`` of ``moves``."""
    game = as_gheos(deal(played_game(SEED, moves)))
    for move in moves[:count]:
        game.apply(move)
    return game


def test_an_uninformed_reading_gains_nothing_and_a_knowing_one_gains_every_turn() -> None:
    moves = played_out(SEED)
    rec = played_game(SEED, moves)  # pimc in seat 0
    kept = kept_tiles(0, moves)
    assert len(kept) > 5

    def blind(
        world: GheosGame, seat: int, move: str, played: str, other: str, seed: int
    ) -> dict[str, float]:
        return {"blind": -1.0}

    turns = read_record(rec, "pimc", blind, (1.0, 0.5))
    assert len(turns) == len(kept)
    assert all(g == pytest.approx(0.0) for t in turns for g in t.gains.values())

    def knowing(
        world: GheosGame, seat: int, move: str, played: str, other: str, seed: int
    ) -> dict[str, float]:
        assert set(world.hand(seat)) == {played, other}  # the hand it is judged with
        assert move in world.legal_actions()
        return {"knowing": 0.0 if other == kept[seed // 64] else -50.0}

    turns = read_record(rec, "pimc", knowing, (1.0, 0.5))
    for turn in turns:
        assert turn.gains["knowing, trust 1"] == pytest.approx(math.log(turn.candidates), abs=1e-6)
        half = math.log(0.5 * turn.candidates + 0.5)
        assert turn.gains["knowing, trust 0.5"] == pytest.approx(half, abs=1e-6)
    assert read_record(rec, "hard", blind) != []  # either seat may be read
    assert read_record(rec, "greedy", blind) == []  # not seated


def test_a_hand_is_swapped_with_the_stack_and_nothing_else_moves() -> None:
    moves = played_out(SEED)
    game = replayed(moves, 9)
    seat = game.to_move
    position = game.to_position()
    played, kept = game.hand(seat)
    other = next(t for t in position["stack"] if t != "epoch")
    world = with_hand(game, position, seat, played, other, kept)
    after = world.to_position()
    assert set(world.hand(seat)) == {played, other}
    assert after["hands"][game.players[1 - seat]] == position["hands"][game.players[1 - seat]]
    assert after["stack"] == [kept if t == other else t for t in position["stack"]]
    assert {k: v for k, v in after.items() if k not in ("hands", "stack")} == {
        k: v for k, v in position.items() if k not in ("hands", "stack")
    }
    assert with_hand(game, position, seat, played, kept, kept) is game


def test_the_prior_model_is_a_softmax_over_the_hands_tile_actions_on_both_engines() -> None:
    moves = played_out(SEED)
    states = [gheos.new_game(2, SEED, {}, engine=e) for e in ("python", "native")]
    for move in moves[:12]:
        for s in states:
            s.apply(move)
    python, native = (as_gheos(s) for s in states)
    assert python.phase == "tile" == native.phase
    actions = native.legal_actions()
    knowledge = knowledge_of(python, IsmctsParams())
    assert isinstance(knowledge, GheosKnowledge)
    assert tile_priors(native, actions) == pytest.approx(knowledge.priors(python, actions))
    assert tile_priors(python, actions) == pytest.approx(knowledge.priors(python, actions))
    model = prior_model([0.2, 1.0])
    seat = native.to_move
    played, other = (a.split()[1] for a in (actions[0], actions[-1]))
    total = {"prior τ=0.2": 0.0, "prior τ=1": 0.0}
    for action in actions:
        for name, value in model(native, seat, action, played, other, 0).items():
            assert value <= 0.0
            total[name] += math.exp(value)
    assert total == pytest.approx({"prior τ=0.2": 1.0, "prior τ=1": 1.0})
    with pytest.raises(ValueError, match="not legal"):
        model(native, seat, "pass", played, other, 0)


def test_the_search_model_gives_the_played_tiles_share_of_visits() -> None:
    moves = played_out(SEED)
    game = replayed(moves, 12)
    seat = game.to_move
    played, other = game.hand(seat)
    model = search_model(20, [0.0, 0.5])
    move = next(a for a in game.legal_actions() if a.split()[1] == played)
    first = model(game, seat, move, played, other, 3)
    mine, theirs = first["search 20, ε=0"], first["search 20, ε=0.5"]
    assert mine <= 0.0 and math.log(0.25) <= theirs <= math.log(0.75)
    move_other = next(a for a in game.legal_actions() if a.split()[1] == other)
    second = model(game, seat, move_other, other, played, 3)
    # The two tiles' shares of the same search (same seed) make up every visit.
    assert math.exp(mine) + math.exp(second["search 20, ε=0"]) == pytest.approx(1.0)
    assert math.exp(theirs) == pytest.approx(0.5 * math.exp(mine) + 0.25)
    assert model(game, seat, move, played, other, 3) == first  # seeded


def test_the_command_prints_the_table_and_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moves = played_out(SEED)
    path = record_file(tmp_path, moves)
    main([str(path), "--temperatures", "0.5", "--trusts", "1,0.5"])
    out = capsys.readouterr().out
    assert out.startswith("| model | turns | nats gained |")
    assert "| prior τ=0.5, trust 1 |" in out and "| prior τ=0.5, trust 0.5 |" in out
    main([str(path), "--player", "greedy"])
    assert "No tile turn" in capsys.readouterr().out
    for argv, message in (
        ([str(tmp_path / "none.jsonl")], "no such file"),
        ([str(path), "--games", "0"], "--games"),
        ([str(path), "--temperatures", "a"], "--temperatures"),
        ([str(path), "--temperatures", "0"], "--temperatures"),
        ([str(path), "--trusts", "2"], "--trusts"),
        ([str(path), "--iterations", "-1"], "--iterations"),
    ):
        with pytest.raises(typer.BadParameter, match=message):
            main(argv)
    assert reading([record(SEED, moves)], "pimc", 1, (1.0,), trusts=(1.0,)) != []
