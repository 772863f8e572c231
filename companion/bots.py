"""Computer players: a greedy one that plays a plausible game, and a uniformly random one.

The demo's scripted game, the Table's end-to-end tests and the benchmarks need players that
finish a game in a number of turns a real table would recognise (random play takes hundreds).
:class:`GreedyBot` scores each legal action with a few rules of thumb: build what gives victory
points, settle on productive corners, trade the surplus for what a build lacks, rob the leader.

>>> from companion.layouts import random_board
>>> from companion.game import Game, Phase
>>> game = Game(random_board(4, seed=3), ["red", "blue", "white", "orange"], rng=3)
>>> bot = GreedyBot(seed=3)
>>> while game.phase != Phase.GAME_OVER:
...     _ = game.apply(bot.choose(game))
>>> game.turn_number < 150
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from companion.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    BuyDevelopmentCard,
    ChooseGold,
    Discard,
    DomesticTrade,
    EndTurn,
    MaritimeTrade,
    MovePirate,
    MoveRobber,
    MoveShip,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from companion.board import PIPS, RESOURCES
from companion.game import COST_CITY, COST_DEV_CARD, COST_SETTLEMENT, Game

#: What a greedy player saves for, in order.
GOALS = (COST_CITY, COST_SETTLEMENT, COST_DEV_CARD)


class RandomBot:
    """Picks uniformly among the legal actions."""

    def __init__(self, seed: int | None = None):
        self.random = random.Random(seed)

    def choose(self, game: Game) -> Action:
        return self.random.choice(game.legal_actions())


class GreedyBot:
    """Scores every legal action and takes the best (ties broken at random)."""

    def __init__(self, seed: int | None = None):
        self.random = random.Random(seed)

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        best, best_score = actions[0], float("-inf")
        for a in actions:
            score = self.score(game, a) + self.random.random() * 0.5
            if score > best_score:
                best, best_score = a, score
        return best

    def score(self, game: Game, a: Action) -> float:
        for hook in game.hooks:  # a scenario knows best what its goals are worth
            judged = hook.bot_score(game, a)
            if judged is not None:
                return judged
        p = game.seat(a.player)
        match a:
            case BuildCity(vertex=v):
                return 100 + self._corner_pips(game, game.topology.vertex_index[v])
            case BuildSettlement(vertex=v):
                return 90 + 3 * self._corner_pips(game, game.topology.vertex_index[v])
            case BuyDevelopmentCard():
                return 40
            case BuildRoad() | BuildShip():
                return self._route_score(game, p)
            case MoveShip():
                return self._ship_move_score(game, p, a)
            case PlayKnight():
                robber_on_me = any(
                    game.vertex_owner[v] == p for v in game.topology.hex_vertices[game.robber]
                )
                return 60 if robber_on_me else 30
            case PlayYearOfPlenty(resources=res):
                return 45 + self._helps_goal(game, p, [RESOURCES.index(r) for r in res])
            case PlayMonopoly(resource=r):
                i = RESOURCES.index(r)
                return 15 + sum(h[i] for q, h in enumerate(game.hands) if q != p)
            case PlayRoadBuilding():
                return 25
            case MaritimeTrade(give=give, get=get):
                return self._trade_score(game, p, RESOURCES.index(give), RESOURCES.index(get))
            case MoveRobber(hex=h, victim=victim) | MovePirate(hex=h, victim=victim):
                return self._robber_score(game, p, game.topology.hex_index[h], victim)
            case Discard(cards=cards):
                return -self._discard_loss(game, p, cards.counts)
            case ChooseGold(cards=cards):
                return self._helps_goal(
                    game, p, [i for i, n in enumerate(cards.counts) for _ in range(n)]
                )
            case RollDice():
                return 50
            case EndTurn():
                return 5
            case DomesticTrade():
                return 0
        return 0

    # -- rules of thumb ----------------------------------------------------------------------

    @staticmethod
    def _corner_pips(game: Game, v: int) -> int:
        pips = 0
        for h in game.topology.vertex_hexes[v]:
            if game.hex_resource[h] >= 0 or game.hex_gold[h]:
                number = game.board.tiles[game.topology.hexes[h]].number
                pips += PIPS.get(number or 0, 0)
        return pips

    def _route_score(self, game: Game, p: int) -> float:
        # Roads matter while there is nowhere to settle; otherwise settlements come first.
        if game.settlements_left[p] and not game.settlement_spots(game.players[p]):
            return 35
        return 8 if game.road_lengths[p] < 6 else 2

    def _ship_move_score(self, game: Game, p: int, a: MoveShip) -> float:
        # A ship is moved only to open a corner to settle on, and never away from one, so that
        # it does not sail to and fro. Worth more than a new ship (35): it costs nothing.
        color = game.players[p]
        before = set(game.settlement_spots(color))
        with game.imagined_ship_move(a):
            after = set(game.settlement_spots(color))
        gained = after - before
        if before - after or not gained:
            return -1
        index = game.topology.vertex_index
        return 38 + 3 * max(self._corner_pips(game, index[v]) for v in gained)

    @staticmethod
    def _goals(game: Game, p: int) -> list[Sequence[int]]:
        """What seat ``p`` saves for: the scenario's goals first (a wonder's next level)."""
        return [g for hook in game.hooks for g in hook.bot_goals(game, p)] + list(GOALS)

    def _helps_goal(self, game: Game, p: int, gained: Sequence[int]) -> float:
        hand = list(game.hands[p])
        for i in gained:
            hand[i] += 1
        for goal in self._goals(game, p):
            if all(h >= c for h, c in zip(hand, goal, strict=True)):
                return 20
        return 5

    def _trade_score(self, game: Game, p: int, give: int, get: int) -> float:
        hand = list(game.hands[p])
        ratio = game.trade_ratios[p][give]
        for goal in self._goals(game, p):
            missing = [max(0, c - h) for h, c in zip(hand, goal, strict=True)]
            if missing[get] and hand[give] - ratio >= goal[give] and sum(missing) == 1:
                return 70  # the trade completes a build
        return -5

    def _robber_score(self, game: Game, p: int, h: int, victim: str | None) -> float:
        t = game.topology
        score = 0.0
        number = game.board.tiles[t.hexes[h]].number or 0
        for v in t.hex_vertices[h]:
            owner = game.vertex_owner[v]
            if owner == -1:
                continue
            weight = game.vertex_level[v] * PIPS.get(number, 0)
            score += -3 * weight if owner == p else weight + game.public_victory_points(owner)
        if victim is not None:
            score += 2 + sum(game.hands[game.seat(victim)])
        return score

    def _discard_loss(self, game: Game, p: int, counts: Sequence[int]) -> float:
        hand = game.hands[p]
        keep = [h - c for h, c in zip(hand, counts, strict=True)]
        loss = 0.0
        for goal in self._goals(game, p):
            loss += sum(min(h, g) - min(k, g) for h, k, g in zip(hand, keep, goal, strict=True))
        return loss
