"""The settings of the ISMCTS search (``IsmctsParams``) and the game knowledge they choose."""

from __future__ import annotations

from dataclasses import dataclass

from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.params import knowledge_for
from cradle.ai.knowledge.tigris import Shares, TigrisKnowledge
from cradle.core.contract import GameState


@dataclass(frozen=True)
class IsmctsParams:
    exploration: float = 0.4  # UCB constant (rewards are in [0, 1])
    widening: float = 1.5  # children allowed ~ widening * visits ** alpha
    alpha: float = 0.5
    prior_weight: float = 0.3  # progressive bias, fading as 1 / (visits + 1)
    # Quick-policy moves after settling, before the playout; None: the game's own default
    # (the knowledge's ``rollout``: 4 in Gheos, 0 in Tigris).
    rollout: int | None = None
    # Then uniformly random moves (a large number: to the end of the game); None: the game's
    # own default (the knowledge's ``playout``: 8 in Gheos, 0 in Tigris).
    playout: int | None = None
    # Actions scored at a time below the root; None: the knowledge's own (``batch``: 16 in
    # Gheos), else 48.
    batch: int | None = None
    # The move played: the best mean reward among the children visited at least this share of
    # the most visited one (1.0: simply the most visited child).
    robust: float = 1.0
    fitted: int = 0  # 1: Tigris' fitted evaluation instead of the hand-set one (comparisons)
    learned: int = (
        0  # 1: the learned model of the game (cradle.ai.knowledge.learned) as the evaluation
    )
    # The hand-set evaluation's version; None: the game's default (DEFAULT_VALUE). Tigris: 2
    # estimates the final lowest colour (hand, leader safety, wars by the chance to win them;
    # the default since its SPRT at 0.25 s said H1), 1 weighs the sorted colours. Gheos: 2
    # values kept tokens and followers by the growth to come, with a calibrated temperature
    # (cradle.ai.knowledge.gheos), 1 the first one, 3 value 1 and the control of the game's
    # end (a seat holding every token left chooses when the game ends), 4 value 3 with the
    # tokens each seat can expect to play before the end (Gheos' default since the SPRT of
    # value 4 with ``settle``, docs/ai.md), 5 value 4 at a fitted temperature, 6 value 4 with
    # the control of the end as a second chance to win rather than points.
    value: int | None = None
    native: int = 1  # 0: the Python search even where the native one could run (comparisons)
    # 1: Tigris reads the opponents' hands from the public history (cradle.ai.knowledge.belief): the
    # worlds are dealt and the commitments chosen against that belief; 0: a uniform belief.
    belief: int = 0
    # Sequential halving at the root (UCB below it): 0, off (UCB at the root too); k >= 2: the
    # k actions with the best priors share the budget in rounds, each round cycling through
    # the ones left and keeping the better half by mean reward, the time (or iterations)
    # split evenly between the ceil(log2 k) rounds. The move is the best mean of the last
    # round (``robust`` at most HALVING_ROBUST). A root choice aimed at the best action
    # (simple regret) rather than at the most rewarding iterations (UCB's cumulative regret).
    halving: int = 0
    # After the ``playout`` random moves, random moves go on to the start of a turn of, 1: the
    # seat of the first random move (every seat played as many random turns); 2: the
    # searching seat (every leaf judged with it to move). 0: exactly ``playout`` moves.
    balance: int = 0
    # 1: below the root, every batch of priors also holds the knowledge's urgent actions
    # (``urgent``: in Gheos, the tile actions that start a war or a migration, the replies
    # that can take a civilization off the table), the rest of it drawn at random (the
    # default since its Gheos SPRT, docs/ai.md; Tigris' knowledge names none); 2: the urgent
    # actions and a whole random batch of the others besides; 0: the whole batch at random.
    urgent: int = 1
    # 1: Gheos priors judge a move that starts a war or a migration after that conflict is
    # played out by the policy (GheosKnowledge.settle_conflict), not at the moment before it;
    # 0: at the moment before it. None: the game's default (DEFAULT_SETTLE: 1 in Gheos, with
    # value 4, since their SPRT together; Tigris' priors have no such setting).
    settle: int | None = None
    # How the tree tells actions apart across worlds: 0, by id (a Gheos tile action's id
    # names a hand slot, so the opponent's moves of different tiles in different worlds share
    # a node: the default since its SPRT, docs/ai.md); 1, by what they are in each world (the
    # action text: in Gheos the tile itself; the native search keys the tile the slot holds);
    # 2, by id, with the knowledge's urgent actions named apart (``~id``: in Gheos an
    # opponent's placement that starts a war in one world is not the harmless placement of
    # the same slot in another). Tigris' ids and texts name the same actions, and its
    # knowledge names nothing urgent: all three give the same tree.
    keys: int = 0
    # 1: in the random playout, every move of a turn in progress past its first action (what
    # the knowledge's ``unsettled`` names: in Gheos the followers, the token and the conflicts
    # after a tile) is the quick policy's, and only a turn's first action is left to chance;
    # 0: every playout move at random.
    steps: int = 0
    # The share of a leaf's reward judged right after settling, before its rollout and
    # playout; the rest is judged after them (0: only after). A steadier look at the leaf
    # itself mixed with its one noisy look ahead.
    mix: float = 0.0
    # 1: selection weighs a child's mean reward as a quarter of its log-odds (``log_odds``:
    # the mean's own slope at one half), so children still part where every reward is near 0
    # or 1, as in a game that looks lost or won; 0: the mean itself.
    odds: int = 0
    # 1: a search with seconds in its budget stops once the most visited root action leads
    # the next by more visits than the iterations still to come at its pace
    # (cradle.ai.search.budget.settled): no later iteration could change the move. The time saved
    # goes to the turn's next decisions (TurnClock). Only where the move played is the most
    # visited one (robust 1, no halving) and one tree searches. 0: the whole budget.
    stop: int = 1
    # 1: the bot keeps its tree from one decision to its next when nothing was learnt in
    # between (its own move, the turn going on: in Gheos the tile, then the conflicts, the
    # civilization and the token), so the next decision starts from what was searched below
    # that move. 0: every decision searches from scratch.
    reuse: int = 0
    # 1: in Gheos (values 3 to 6, which count the control of the end) a token that would hand
    # another seat the control of the end (the mover's last, one other seat holding some) is
    # played in a playout, and by the policy, only when the evaluation says it pays
    # (GheosKnowledge.handing_token); 0: left to chance in a playout and to the policy's own
    # rule (the default: its SPRT said H0, docs/ai.md). Tigris has no such token.
    handing: int = 0

    def __post_init__(self) -> None:
        if self.value not in (None, 1, 2, 3, 4, 5, 6):
            raise ValueError(f"value is 1 to 6 (3 to 6 Gheos only), not {self.value}")
        if self.balance not in (0, 1, 2):
            raise ValueError(f"balance is 0, 1 or 2, not {self.balance}")
        if self.urgent not in (0, 1, 2):
            raise ValueError(f"urgent is 0, 1 or 2, not {self.urgent}")
        if self.settle not in (None, 0, 1):
            raise ValueError(f"settle is 0 or 1, not {self.settle}")
        if self.keys not in (0, 1, 2):
            raise ValueError(f"keys is 0, 1 or 2, not {self.keys}")
        if self.steps not in (0, 1):
            raise ValueError(f"steps is 0 or 1, not {self.steps}")
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError(f"mix is from 0 to 1, not {self.mix}")
        if self.odds not in (0, 1):
            raise ValueError(f"odds is 0 or 1, not {self.odds}")
        if self.stop not in (0, 1):
            raise ValueError(f"stop is 0 or 1, not {self.stop}")
        if self.reuse not in (0, 1):
            raise ValueError(f"reuse is 0 or 1, not {self.reuse}")
        if self.handing not in (0, 1):
            raise ValueError(f"handing is 0 or 1, not {self.handing}")
        for name in ("rollout", "playout"):
            moves = getattr(self, name)
            if moves is not None and moves < 0:
                raise ValueError(f"{name} is a number of moves, at least 0, not {moves}")
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"batch is at least 1, not {self.batch}")
        if self.halving < 0 or self.halving == 1:
            raise ValueError(f"halving is 0 (off) or at least 2, not {self.halving}")

    @property
    def stops(self) -> bool:
        """Whether one tree may stop once its move is settled (``stop``): only where the move
        played is the most visited one."""
        return bool(self.stop) and not self.halving and self.robust >= 1.0

    @property
    def choice_robust(self) -> float:
        """The ``robust`` the move is chosen with: with halving, at most HALVING_ROBUST, so
        that the actions of the last round (which have about twice the visits of any other)
        are compared by their mean reward."""
        return min(self.robust, HALVING_ROBUST) if self.halving else self.robust


HALVING_ROBUST = 0.75


def batch_of(params: IsmctsParams, knowledge: Knowledge) -> int:
    """How many actions an expansion below the root scores at a time: the settings', else
    the knowledge's, else 48."""
    if params.batch is not None:
        return params.batch
    return int(getattr(knowledge, "batch", 48))


def rollout_of(params: IsmctsParams, knowledge: Knowledge) -> int:
    """The quick-policy moves before a leaf's playout: the settings', else the knowledge's."""
    if params.rollout is not None:
        return int(params.rollout)
    return int(getattr(knowledge, "rollout", 0))


def playout_of(params: IsmctsParams, knowledge: Knowledge) -> int:
    """The random moves of a leaf's playout: the settings', else the knowledge's."""
    if params.playout is not None:
        return int(params.playout)
    return int(getattr(knowledge, "playout", 0))


# The evaluation each game's search uses when the settings name none (IsmctsParams.value).
DEFAULT_VALUE = {"tigris": 2, "gheos": 4}


# Whether the priors settle conflicts when the settings do not say (IsmctsParams.settle).
DEFAULT_SETTLE = {"gheos": 1}


def knowledge_of(state: GameState, params: IsmctsParams, tilts: Shares | None = None) -> Knowledge:
    """The game's knowledge for these settings; ``tilts``: a belief over the Tigris hands
    (with ``params.belief``; None or another game: the shared knowledge, uniform)."""
    game = state.game
    version = params.value or DEFAULT_VALUE.get(game, 1)
    if version in (3, 4, 5, 6) and game != "gheos":
        raise ValueError(f"value {version} is a Gheos evaluation; {game} has values 1 and 2")
    value = f":value{version}" if version != 1 else ""
    learned = ":learned" if params.learned else ""
    if params.settle and game != "gheos":
        raise ValueError(f"settle is a setting of the Gheos priors, not of {game}'s")
    settle = DEFAULT_SETTLE.get(game, 0) if params.settle is None else params.settle
    if params.handing and game != "gheos":
        raise ValueError(f"handing is a setting of the Gheos tokens, not of {game}'s")
    if game != "tigris":
        settled = ":settled" if settle else ""
        handing = ":handing" if params.handing else ""
        return knowledge_for(f"{game}{value}{learned}{settled}{handing}")
    if tilts is not None and params.belief:
        return TigrisKnowledge(
            fitted=bool(params.fitted),
            tilts=tilts,
            value=version,
            learned=bool(params.learned),
        )
    fitted = ":fitted" if params.fitted else ""
    return knowledge_for(f"{game}{fitted}{value}{learned}")
