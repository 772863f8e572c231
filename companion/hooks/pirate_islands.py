"""The Pirate Islands (RULES.md §4.7): one shipping route each, warships, the pirate fleet and
the pirate fortresses.

Every seat takes one *position* of the map (the diagram's colours, in seat order): a coastal
settlement and a ship pre-placed on the eastern island, an intersection marked in its colour on
a pirate island, and a fortress of its colour (a settlement on 3 Catan chips). What the hook
remembers, in ``game.hook_state["pirate_islands"]``:

``fortresses``  strength left of each seat's fortress (Catan chips under it; 0 = captured)
``warships``    each seat's warships: always the ships of its route nearest home (4.7.9)
``due``         the fleet's attack waiting to be settled: a defender who surrenders cards
                (``plunder``, drawn from the hand held when the dice fell) or takes booty
``raid``        a 7 was rolled: after the discards, the roller takes a card (4.7.15)
``fleet``       the fleet's sea hex ``[q, r]``, or None once it has left (4.7.20)

The fleet sails the scenario's ``fleet_path`` by the lower die on every roll (4.7.13). It is
also the game's pirate piece (``game.pirate``), so the page and the camera show it and, as the
pirate does, it bars ships from its six sides (3.6.4); ``fleet_blocks_ships: false`` keeps it
off the engine's pirate so it bars nothing.

>>> from companion.scenario import load_scenario
>>> from companion.game import Game
>>> s = load_scenario("pirate-islands", players=4, seed=1)
>>> game = Game(s.board, ["red", "blue", "white", "orange"], s.rules, rng=1)
>>> game.hook_state["pirate_islands"]["fortresses"]
[3, 3, 3, 3]
>>> len(game.buildings_of[0]), len(game.pieces_of[0])  # pre-placed: a settlement and a ship
(1, 1)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import Action, Cards, register_action
from companion.board import RESOURCES, Resource, edge, vertex
from companion.hooks.base import Hook, land_hexes_of
from companion.longest_route import SHIP

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction

STATE = "pirate_islands"


@register_action
@dataclass(frozen=True)
class AttackFortress(Action):
    """Attack one's own-colour fortress at the end of a closed route (4.7.17); ``die`` is the
    fortress's strength, rolled at the table or left to the engine."""

    type: ClassVar[str] = "attack_fortress"
    die: int | None = None


@register_action
@dataclass(frozen=True)
class ArmWarship(Action):
    """Turn the ordinary ship of one's route nearest home into a warship, for the knight
    just played (4.7.9)."""

    type: ClassVar[str] = "arm_warship"


@register_action
@dataclass(frozen=True)
class RevealVictoryPoint(Action):
    """Play a victory point card as a knight (4 players, 4.7.4): it arms a ship and is lost."""

    type: ClassVar[str] = "reveal_victory_point"


@register_action
@dataclass(frozen=True)
class SurrenderCards(Action):
    """The fleet beat this defender: ``cards`` are the ones another player drew at random
    from their hand and returned to the bank (4.7.14); left out, the engine draws them."""

    type: ClassVar[str] = "surrender_cards"
    cards: Cards | None = None


@register_action
@dataclass(frozen=True)
class TakeBooty(Action):
    """The defender beat the fleet and takes a resource of their choice (4.7.14)."""

    type: ClassVar[str] = "take_booty"
    resource: Resource


@register_action
@dataclass(frozen=True)
class Raid(Action):
    """After a 7, the roller takes a random card from any player (4.7.15); ``stolen`` is the
    card drawn, if known. No ``victim`` when nobody holds a card."""

    type: ClassVar[str] = "raid"
    victim: str | None = None
    stolen: Resource | None = None


@dataclass(frozen=True)
class Position:
    """One colour's places on the map, as corner and side indices of the game's topology."""

    home: int
    ship: int
    mark: int
    fortress: int


class PirateIslands(Hook):
    """The rules of §4.7 that are not in the map: see the module's docstring.

    Parameters (the scenario file's hook entry):

    ``positions``      per seat: ``home`` and ``mark`` and ``fortress`` corners, the ``ship``
                       side, as ``[q, r, name]``; the optional ``color`` is the diagram's
    ``pirate_islands`` the areas of the pirate islands (settlements only on the own mark)
    ``fleet_path``     the fleet's sea hexes in sailing order (clockwise, 4.7.12)
    ``fortress_strength``  Catan chips under a fortress (3)
    ``ships_per_turn``  GAP 4.7.8: 1 as [IS]; null for [HE] (any number, on the one route)
    ``vp_cards_as_knights``  4.7.4: with 4 players a victory point card arms a ship too
    """

    name = "pirate_islands"
    actions = (AttackFortress, ArmWarship, RevealVictoryPoint, SurrenderCards, TakeBooty, Raid)

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.position_specs: list[Mapping[str, Any]] = list(params["positions"])
        self.pirate_land = self.hexes(params["pirate_islands"])
        self.fleet_path: list[tuple[int, int]] = [(q, r) for q, r in params["fleet_path"]]
        self.strength = int(params.get("fortress_strength", 3))
        limit = params.get("ships_per_turn", 1)
        self.ships_per_turn: int | None = None if limit is None else int(limit)
        self.vp_as_knights = bool(params.get("vp_cards_as_knights", False))
        self.fleet_blocks = bool(params.get("fleet_blocks_ships", True))
        self.positions: list[Position] = []
        # Routes and sailing distances of the position they were found in: legal-action
        # listing asks for them many times over one unchanged board.
        self._memo_key: tuple[tuple[int, ...], ...] | None = None
        self._memo: dict[tuple[Any, ...], Any] = {}

    # -- state --------

    def _state(self, game: Game) -> dict[str, Any]:
        return game.hook_state[STATE]  # type: ignore[no-any-return]

    def setup(self, game: Game) -> None:
        """Pre-place each seat's settlement and ship (4.7.2); its fortress holds a settlement
        of its supply (4.7.3); the fleet starts where the board's pirate stands (4.7.7)."""
        t = game.topology
        n = len(game.players)
        if n > len(self.position_specs):
            raise ValueError(
                f"hook {self.name}: {n} players but the map has {len(self.position_specs)} "
                "positions"
            )
        for spec in self.position_specs[:n]:
            try:
                self.positions.append(
                    Position(
                        home=t.vertex_index[vertex(*spec["home"])],
                        ship=t.edge_index[edge(*spec["ship"])],
                        mark=t.vertex_index[vertex(*spec["mark"])],
                        fortress=t.vertex_index[vertex(*spec["fortress"])],
                    )
                )
            except KeyError as exc:
                raise ValueError(f"hook {self.name}: {exc} is not on the map") from None
        path_index = {h: i for i, h in enumerate(self.fleet_path)}
        if game.pirate is None or t.hexes[game.pirate] not in path_index:
            raise ValueError(f"hook {self.name}: the pirate must start on the fleet's path")
        fleet = list(t.hexes[game.pirate])
        if not self.fleet_blocks:
            game.pirate = None
        for p, pos in enumerate(self.positions):
            game.vertex_owner[pos.home] = p
            game.vertex_level[pos.home] = 1
            game.buildings_of[p].add(pos.home)
            game.building_points[p] += 1
            game.settlements_left[p] -= 2  # one at home, one on top of the fortress
            game.edge_owner[pos.ship] = p
            game.edge_kind[pos.ship] = SHIP
            game.pieces_of[p].add(pos.ship)
            game.ships_left[p] -= 1
            game.road_lengths[p] = 1
        game.hook_state[STATE] = {
            "fortresses": [self.strength] * n,
            "warships": [0] * n,
            "due": [],
            "raid": False,
            "fleet": fleet,
        }

    def pieces_aside(self, game: Game, p: int) -> dict[str, int]:
        return {} if self._state(game)["fortresses"][p] == 0 else {"settlements": 1}

    def may_win(self, game: Game, p: int) -> bool:
        return bool(self._state(game)["fortresses"][p] == 0)  # 4.7.20

    # -- the one shipping route (4.7.8) --------

    def _memory(self, game: Game) -> dict[tuple[Any, ...], Any]:
        """What was found on this very board (every side's owner and piece, every corner's
        owner)."""
        key = (tuple(game.edge_owner), tuple(game.edge_kind), tuple(game.vertex_owner))
        if key != self._memo_key:
            self._memo_key, self._memo = key, {}
        return self._memo

    def route(self, game: Game, p: int) -> tuple[list[int], list[int]]:
        """Seat ``p``'s route from home: its sides and its corners (home first, end last)."""
        memory = self._memory(game)
        found = memory.get(("route", p))
        if found is None:
            found = memory[("route", p)] = self._walk(game, p)
        return found  # type: ignore[no-any-return]

    def _walk(self, game: Game, p: int) -> tuple[list[int], list[int]]:
        t = game.topology
        v = self.positions[p].home
        sides: list[int] = []
        corners = [v]
        seen: set[int] = set()
        while True:
            nxt = [
                e
                for e in t.vertex_edges[v]
                if e not in seen and game.edge_owner[e] == p and game.edge_kind[e] == SHIP
            ]
            if not nxt:
                return sides, corners
            e = min(nxt)
            seen.add(e)
            sides.append(e)
            a, b = t.edge_vertices[e]
            v = b if a == v else a
            corners.append(v)

    def _goal(self, p: int, corners: Sequence[int]) -> int:
        """Where seat ``p``'s route heads now: its mark, then its fortress."""
        pos = self.positions[p]
        return pos.fortress if pos.mark in corners else pos.mark

    def _distances(self, game: Game, q: int, goal: int, blocked: int = -1) -> dict[int, int]:
        """Sides to sail from each corner to ``goal`` for seat ``q``: over free navigable sides
        (not ``blocked``), never through another's building or another colour's fortress."""
        memory = self._memory(game)
        key = ("distances", q, goal, blocked)
        if key in memory:
            return memory[key]  # type: ignore[no-any-return]
        t = game.topology
        forts = {pos.fortress for i, pos in enumerate(self.positions) if i != q}
        dist = memory[key] = {goal: 0}
        queue = deque([goal])
        while queue:
            v = queue.popleft()
            if v != goal and (game.vertex_owner[v] not in (-1, q) or v in forts):
                continue  # one may sail to such a corner, never through it
            for e in t.vertex_edges[v]:
                if e == blocked or game.edge_owner[e] != -1 or not game.edge_sea[e]:
                    continue
                a, b = t.edge_vertices[e]
                w = b if a == v else a
                if w not in dist:
                    dist[w] = dist[v] + 1
                    queue.append(w)
        return dist

    def _still_open(self, game: Game, q: int, blocked: int) -> bool:
        """Whether seat ``q``'s route can still reach its mark and fortress with side
        ``blocked`` taken."""
        _, corners = self.route(game, q)
        end, pos = corners[-1], self.positions[q]
        if end == pos.fortress:
            return True
        if pos.mark not in corners:
            if end not in self._distances(game, q, pos.mark, blocked):
                return False
            end = pos.mark
        return end in self._distances(game, q, pos.fortress, blocked)

    def route_error(self, game: Game, p: int, e: int, kind: int) -> IllegalAction | None:
        from companion.game import IllegalAction, Phase

        if kind != SHIP:
            return None
        if game.phase == Phase.FOUNDING_ROAD:
            return IllegalAction("4.7.8", "the one shipping route starts at the pre-placed ship")
        sides, corners = self.route(game, p)
        end = corners[-1]
        if end == self.positions[p].fortress:
            return IllegalAction("4.7.8", "the route ends at the fortress: no ship goes past it")
        if end not in game.topology.edge_vertices[e]:
            return IllegalAction(
                "4.7.8", "a new ship continues the open end of your one route (no branches)"
            )
        if self.ships_per_turn is not None and p == game.current:
            built = sum(game.edge_owner[x] == p for x in game.turn.ships_built)
            if built >= self.ships_per_turn:
                return IllegalAction("4.7.8", "one ship per turn in this scenario (GAP: [IS])")
        a, b = game.topology.edge_vertices[e]
        far = b if a == end else a
        dist = self._distances(game, p, self._goal(p, corners))
        if end not in dist or dist.get(far) != dist[end] - 1:
            return IllegalAction("4.7.8", "the route must take the shortest way on")
        for q in range(len(self.positions)):
            if q != p and not self._still_open(game, q, e):
                return IllegalAction("4.7.8", "that ship would block {}'s route", game.players[q])
        return None

    def settlement_error(self, game: Game, p: int, v: int, founding: bool) -> IllegalAction | None:
        from companion.game import IllegalAction

        if land_hexes_of(game, v) & self.pirate_land and v != self.positions[p].mark:
            return IllegalAction(
                "4.7.16", "on a pirate island only the corner marked in your colour is built on"
            )
        return None

    # -- the pirate fleet (4.7.12-4.7.14) --------

    def on_roll(self, game: Game, p: int, dice: tuple[int, int]) -> list[Event]:
        state = self._state(game)
        state["raid"] = dice[0] + dice[1] == 7
        if state["fleet"] is None:  # 4.7.20: every fortress captured, the fleet is gone
            return []
        t = game.topology
        strength = min(dice)
        here = self.fleet_path.index(tuple(state["fleet"]))  # type: ignore[arg-type]
        stop = self.fleet_path[(here + strength) % len(self.fleet_path)]
        state["fleet"] = list(stop)
        h = t.hex_index[stop]
        if self.fleet_blocks:
            game.pirate = h
        attacks = []
        owners = sorted({game.vertex_owner[v] for v in t.hex_vertices[h]} - {-1})
        for q in owners:  # GAP 4.7.14: each neighbouring owner defends alone
            defence = state["warships"][q]
            attack: Event = {"player": game.players[q], "warships": defence}
            if strength > defence:
                cities = sum(game.vertex_level[v] == 2 for v in game.buildings_of[q])
                loss = min(1 + cities, sum(game.hands[q]))
                attack["result"] = "plundered"
                attack["cards"] = loss
                if loss:
                    due = {"seat": q, "kind": "plunder", "cards": loss}
                    state["due"].append({**due, "hand": list(game.hands[q])})
            elif defence > strength:
                attack["result"] = "repelled"
                if any(game.bank):
                    state["due"].append({"seat": q, "kind": "booty"})
            else:
                attack["result"] = "tie"
            attacks.append(attack)
        return [
            {
                "type": "pirate_fleet",
                "hex": list(stop),
                "strength": strength,
                "attacks": attacks,
            }
        ]

    # -- what must be settled before play goes on --------

    def pending(self, game: Game) -> IllegalAction | None:
        from companion.game import IllegalAction, Phase

        state = self._state(game)
        if state["due"]:
            who = game.players[state["due"][0]["seat"]]
            return IllegalAction("4.7.14", "the fleet's attack on {} is settled first", who)
        if game.phase == Phase.MOVE_ROBBER:
            if state["raid"]:
                return IllegalAction(
                    "4.7.15", "{} takes a card from a player of their choice", game.current_player
                )
            return IllegalAction("4.7.9", "{} arms a ship with the knight", game.current_player)
        return None

    def generate(self, game: Game, out: list[Action]) -> None:
        from companion.game import Phase

        if game.phase == Phase.GAME_OVER:
            return
        state = self._state(game)
        p, me = game.current, game.current_player
        if state["due"]:
            due = state["due"][0]
            who = game.players[due["seat"]]
            if due["kind"] == "plunder":
                out.append(SurrenderCards(who))
            else:
                out.extend(TakeBooty(who, r) for i, r in enumerate(RESOURCES) if game.bank[i])
            return
        if game.phase == Phase.MOVE_ROBBER:
            if not state["raid"]:
                out.append(ArmWarship(me))
                return
            victims = [q for q in range(len(game.players)) if q != p and any(game.hands[q])]
            out.extend(Raid(me, game.players[q]) for q in victims)
            if not victims:
                out.append(Raid(me))
            return
        if self._may_reveal(game, p):
            out.append(RevealVictoryPoint(me))
        if game.phase == Phase.MAIN and self._attack_error(game, p) is None:
            out.append(AttackFortress(me))

    def _may_reveal(self, game: Game, p: int) -> bool:
        from companion.game import VICTORY_POINT, Phase

        return (
            self.vp_as_knights
            and game.phase in (Phase.ROLL, Phase.MAIN)
            and not game.turn.played_card
            and game.dev_hands[p][VICTORY_POINT] > game.turn.bought[VICTORY_POINT]
        )

    def _attack_error(self, game: Game, p: int) -> IllegalAction | None:
        from companion.game import IllegalAction

        if self._state(game)["fortresses"][p] == 0:
            return IllegalAction("4.7.19", "your fortress is already captured")
        _, corners = self.route(game, p)
        if corners[-1] != self.positions[p].fortress:
            return IllegalAction("4.7.17", "your route does not reach your fortress yet")
        return None

    def check(self, game: Game, p: int, action: Action) -> None:
        from companion.game import IllegalAction, Phase

        state = self._state(game)
        due = state["due"][0] if state["due"] else None
        if isinstance(action, SurrenderCards | TakeBooty):
            kind = "plunder" if isinstance(action, SurrenderCards) else "booty"
            if due is None or due["seat"] != p or due["kind"] != kind:
                raise IllegalAction("4.7.14", "{} has no such attack to settle", action.player)
            if isinstance(action, TakeBooty):
                if not game.bank[RESOURCES.index(action.resource)]:
                    raise IllegalAction("1.6.5", "the bank has no {} left", action.resource.value)
            elif action.cards is not None:
                self._check_surrender(game, p, due, action.cards)
            return
        if due is not None:
            raise IllegalAction(
                "4.7.14", "the fleet's attack on {} is settled first", game.players[due["seat"]]
            )
        if p != game.current:
            raise IllegalAction("1.5.3", "it is {}'s turn", game.current_player)
        if isinstance(action, ArmWarship | Raid):
            if game.phase != Phase.MOVE_ROBBER or isinstance(action, Raid) != state["raid"]:
                what = "a raid after a 7" if isinstance(action, Raid) else "arming after a knight"
                raise IllegalAction(
                    "4.7.9" if isinstance(action, ArmWarship) else "4.7.15",
                    "no {} is due now",
                    what,
                )
            if isinstance(action, Raid):
                self._check_raid(game, p, action)
        elif isinstance(action, RevealVictoryPoint):
            if not self.vp_as_knights:
                raise IllegalAction("4.7.4", "victory point cards arm no ships in this game")
            if not self._may_reveal(game, p):
                raise IllegalAction(
                    "1.10.2", "{} cannot play a victory point card now", action.player
                )
        elif isinstance(action, AttackFortress):
            if game.phase != Phase.MAIN:
                raise IllegalAction("4.7.17", "a fortress is attacked after the roll")
            err = self._attack_error(game, p)
            if err is not None:
                raise err
            if action.die is not None and not 1 <= action.die <= 6:
                raise IllegalAction("4.7.17", "the fortress's die shows 1 to 6, not {}", action.die)

    @staticmethod
    def _check_surrender(game: Game, p: int, due: Mapping[str, Any], cards: Cards) -> None:
        from companion.game import IllegalAction

        if cards.total != due["cards"]:
            raise IllegalAction(
                "4.7.14", "{} loses exactly {} cards", game.players[p], due["cards"]
            )
        held = [min(a, b) for a, b in zip(due["hand"], game.hands[p], strict=True)]
        if any(c > h for c, h in zip(cards.counts, held, strict=True)):
            raise IllegalAction(
                "4.7.14", "{} did not hold those cards when the fleet came", game.players[p]
            )

    @staticmethod
    def _check_raid(game: Game, p: int, action: Raid) -> None:
        from companion.game import IllegalAction

        victims = [q for q in range(len(game.players)) if q != p and any(game.hands[q])]
        if action.victim is None:
            if victims:
                names = ", ".join(game.players[q] for q in victims)
                raise IllegalAction("4.7.15", "choose whom to raid: {}", names)
            return
        v = game.seat(action.victim)
        if v not in victims:
            raise IllegalAction("4.7.15", "{} holds no card to take", action.victim)
        if action.stolen is not None and not game.hands[v][RESOURCES.index(action.stolen)]:
            raise IllegalAction("4.7.15", "{} holds no {}", action.victim, action.stolen.value)

    # -- outcomes and execution --------

    def resolve(self, game: Game, action: Action) -> Action:
        if isinstance(action, AttackFortress) and action.die is None:
            return AttackFortress(action.player, game.rng.pick([1] * 6) + 1)
        if isinstance(action, Raid) and action.victim is not None and action.stolen is None:
            hand = game.hands[game.seat(action.victim)]
            return Raid(action.player, action.victim, RESOURCES[game.rng.pick(hand)])
        if isinstance(action, SurrenderCards) and action.cards is None:
            due = self._state(game)["due"][0]
            left = [min(a, b) for a, b in zip(due["hand"], game.hands[due["seat"]], strict=True)]
            drawn = [0] * len(RESOURCES)
            for _ in range(due["cards"]):
                i = game.rng.pick(left)
                left[i] -= 1
                drawn[i] += 1
            return SurrenderCards(action.player, Cards(tuple(drawn)))  # type: ignore[arg-type]
        return action

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        if isinstance(action, SurrenderCards | TakeBooty):
            return self._settle(game, p, action)
        if isinstance(action, ArmWarship):
            game.phase = game.after_robber
            return [self._arm(game, p, "knight")]
        if isinstance(action, RevealVictoryPoint):
            from companion.game import VICTORY_POINT

            game.dev_hands[p][VICTORY_POINT] -= 1
            game.turn.played_card = True
            return [self._arm(game, p, "victory_point")]
        if isinstance(action, Raid):
            return self._raid(game, p, action)
        assert isinstance(action, AttackFortress)
        return self._attack(game, p, action)

    def _arm(self, game: Game, p: int, card: str) -> Event:
        """4.7.9 GAP: the ordinary ship nearest home becomes a warship, if there is one."""
        warships = self._state(game)["warships"]
        sides, _ = self.route(game, p)
        event: Event = {"type": "warship", "player": game.players[p], "card": card}
        if warships[p] < len(sides):
            warships[p] += 1
            event["edge"] = list(game.topology.edges[sides[warships[p] - 1]])
        event["warships"] = warships[p]
        return event

    def _settle(self, game: Game, p: int, action: SurrenderCards | TakeBooty) -> list[Event]:
        state = self._state(game)
        state["due"].pop(0)
        hand = game.hands[p]
        if isinstance(action, TakeBooty):
            i = RESOURCES.index(action.resource)
            game.bank[i] -= 1
            hand[i] += 1
            event: Event = {"type": "booty", "player": action.player, "card": action.resource.value}
        else:
            assert action.cards is not None
            for i, n in enumerate(action.cards.counts):
                hand[i] -= n
                game.bank[i] += n
            event = {"type": "plundered", "player": action.player, "cards": action.cards.to_json()}
        if state["raid"]:
            # The fleet came before the 7: the discards count the hand it left (4.7.13).
            from companion.game import Phase

            total = sum(hand)
            if total > game.rules.discard_limit:
                game.to_discard[p] = total // 2
            else:
                game.to_discard.pop(p, None)
            game.phase = Phase.DISCARD if game.to_discard else Phase.MOVE_ROBBER
        return [event]

    def _raid(self, game: Game, p: int, action: Raid) -> list[Event]:
        self._state(game)["raid"] = False
        game.phase = game.after_robber
        event: Event = {"type": "raided", "player": action.player, "victim": action.victim}
        if action.victim is not None and action.stolen is not None:
            v, i = game.seat(action.victim), RESOURCES.index(action.stolen)
            game.hands[v][i] -= 1
            game.hands[p][i] += 1
            event["stolen"] = action.stolen.value
        return [event]

    def _attack(self, game: Game, p: int, action: AttackFortress) -> list[Event]:
        """4.7.17-4.7.19; the attack ends the turn (4.7.18) unless it wins the game."""
        assert action.die is not None
        state = self._state(game)
        warships = state["warships"][p]
        me = game.players[p]
        event: Event = {"type": "fortress_attack", "player": me, "die": action.die}
        events = [event]
        event["warships"] = warships
        if warships > action.die:
            state["fortresses"][p] -= 1
            event["result"] = "hit"
            event["strength_left"] = state["fortresses"][p]
            if state["fortresses"][p] == 0:
                events.extend(self._capture(game, p))
        else:
            lost = 2 if warships < action.die else 1
            event["result"] = "lost" if lost == 2 else "tie"
            event["ships_lost"] = self._sink(game, p, lost)
        if game.phase.value != "game_over":
            events.extend(game.end_turn(p))
        return events

    def _capture(self, game: Game, p: int) -> list[Event]:
        f = self.positions[p].fortress
        game.vertex_owner[f] = p
        game.vertex_level[f] = 1
        game.buildings_of[p].add(f)
        game.building_points[p] += 1
        me = game.players[p]
        events: list[Event] = [
            {"type": "fortress_captured", "player": me, "vertex": list(game.topology.vertices[f])}
        ]
        if not any(self._state(game)["fortresses"]):
            self._state(game)["fleet"] = None
            game.pirate = None
            events.append({"type": "fleet_removed"})
        game.check_victory(p, events)
        return events

    def _sink(self, game: Game, p: int, n: int) -> list[list[Any]]:
        """Take the ``n`` ships nearest the fortress back to the supply (4.7.17-4.7.18 GAP)."""
        sides, _ = self.route(game, p)
        lost = sides[-n:] if n <= len(sides) else sides
        for e in lost:
            game.edge_owner[e] = -1
            game.edge_kind[e] = 0
            game.pieces_of[p].discard(e)
            game.ships_left[p] += 1
        warships = self._state(game)["warships"]
        warships[p] = min(warships[p], len(sides) - len(lost))
        game.road_lengths[p] = game.longest_route_length(p)
        return [list(game.topology.edges[e]) for e in lost]

    # -- what the page shows --------

    def public_view(self, game: Game) -> dict[str, Any] | None:
        state = self._state(game)
        fleet = "gone" if state["fleet"] is None else str(tuple(state["fleet"]))
        players = list(enumerate(game.players))
        sections: list[dict[str, Any]] = [
            {
                "title": "Pirate fleet",
                "kind": "counters",
                "items": [{"label": "At sea hex", "value": fleet}],
            },
            {
                "title": "Fortresses (Catan chips left)",
                "kind": "counters",
                "items": [
                    {
                        "label": c,
                        "value": state["fortresses"][q],
                        "color": c,
                        **({"text": "captured"} if state["fortresses"][q] == 0 else {}),
                    }
                    for q, c in players
                ],
            },
            {
                "title": "Warships",
                "kind": "counters",
                "items": [
                    {"label": c, "value": state["warships"][q], "color": c} for q, c in players
                ],
            },
        ]
        sections.append(
            {
                "title": "Routes: mark, then fortress",
                "kind": "list",
                "items": [
                    {
                        "label": c,
                        "color": c,
                        "value": f"{len(self.route(game, q)[0])} ships",
                        "text": f"mark {self._corner_words(game, self.positions[q].mark)}; "
                        f"fortress {self._corner_words(game, self.positions[q].fortress)}",
                    }
                    for q, c in players
                ],
            }
        )
        if state["due"]:
            due = state["due"][0]
            who = game.players[due["seat"]]
            text = (
                f"gives up {due['cards']} cards to the fleet"
                if due["kind"] == "plunder"
                else "beat the fleet: takes a card of their choice"
            )
            sections.append(
                {
                    "title": "Waiting for",
                    "kind": "list",
                    "items": [{"label": who, "text": text, "color": who}],
                }
            )
        return {
            "title": "The Pirate Islands",
            "text": "The fleet sails by the lower die; capture your fortress and reach 10 points.",
            "sections": sections,
        }

    @staticmethod
    def _corner_words(game: Game, v: int) -> str:
        """A corner as the table finds it: by the land hexes that meet there."""
        t = game.topology
        tiles = [game.board.tiles[t.hexes[h]] for h in t.vertex_hexes[v] if game.hex_land[h]]
        hexes = " and ".join(
            f"the {tile.terrain.value}" + (f" {tile.number}" if tile.number else "")
            for tile in tiles
        )
        return f"by {hexes} {tuple(t.vertices[v])}"

    # -- a computer player's taste --------

    def bot_score(self, game: Game, action: Action) -> float | None:
        from companion.actions import BuildShip

        p = game.seat(action.player)
        warships = self._state(game)["warships"][p]
        match action:
            case BuildShip():
                return 60.0  # the route is the way to the fortress, and the only one allowed
            case AttackFortress():
                # At least half the attacks win with 4 warships; with no cards left to arm
                # more, attacking is the only way on.
                return 100.0 if warships >= 4 or not any(game.deck) else -10.0
            case ArmWarship():
                return 50.0
            case RevealVictoryPoint():
                return 20.0 if warships < 4 else -20.0
            case Raid(victim=str() as victim):
                return 10.0 + sum(game.hands[game.seat(victim)])
            case SurrenderCards() | TakeBooty() | Raid():
                return 10.0
        return None
