"""The Seafarers hooks shared by several scenarios (RULES.md §4.1-§4.4, §4.9).

Founding areas, land that never takes a settlement, hexes the robber may not enter, the
special victory points for new islands, and the exploration of fog hexes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.hooks.base import Hook, land_hexes_of

if TYPE_CHECKING:
    from companion.actions import Reveal
    from companion.game import Event, Game, IllegalAction


class FoundingArea(Hook):
    """Founding settlements only on the given areas (e.g. S1-FOUND-MAIN, rule 4.1.2)."""

    name = "founding_area"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.allowed = self.hexes(params["areas"])
        self.rule = params.get("rule", "4")

    def settlement_error(self, game: Game, p: int, v: int, founding: bool) -> IllegalAction | None:
        from companion.game import IllegalAction

        land = land_hexes_of(game, v)
        if founding and not land & self.allowed:
            where = ", ".join(self.params["areas"])
            return IllegalAction(self.rule, f"founding settlements go on the {where} only")
        return None


class NoSettlement(Hook):
    """Never a settlement on the given areas (e.g. S5-NO-SETTLE-SMALL, rule 4.5.6)."""

    name = "no_settlement"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.forbidden = self.hexes(params["areas"])
        self.rule = params.get("rule", "4")

    def settlement_error(self, game: Game, p: int, v: int, founding: bool) -> IllegalAction | None:
        from companion.game import IllegalAction

        land = land_hexes_of(game, v)
        if land and land <= self.forbidden:
            return IllegalAction(self.rule, "no settlement may ever be built there")
        return None


class RobberForbidden(Hook):
    """The robber never goes onto the given areas (e.g. S5-ROBBER, rule 4.5.8)."""

    name = "robber_forbidden"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.forbidden = self.hexes(params["areas"])
        self.rule = params.get("rule", "4")

    def robber_error(self, game: Game, p: int, h: int) -> IllegalAction | None:
        from companion.game import IllegalAction

        if game.topology.hexes[h] in self.forbidden:
            return IllegalAction(self.rule, "the robber may not go there in this scenario")
        return None


class IslandBonus(Hook):
    """Special victory points for a player's first settlement on each foreign island.

    ``home`` is ``"founding"`` (the islands of one's founding settlements are home, S2/S9) or a
    list of areas that are everyone's home (S1's main island). ``regions`` is ``"islands"``
    (each connected piece of land is a region) or a list of areas, each its own region (S4:
    the strip beyond the desert counts apart from the main island it belongs to).
    Rules 4.1.4, 4.2.3, 4.4.4, 4.9.5.
    """

    name = "island_bonus"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.vp = int(params.get("vp", 2))
        self.home = params.get("home", "founding")
        regions = params.get("regions", "islands")
        self.region_areas: list[str] | None = None if regions == "islands" else list(regions)
        if self.region_areas is not None:
            self.hexes(self.region_areas)  # unknown names fail now
        self._regions: dict[tuple[int, int], int] | None = None

    def regions(self, game: Game) -> dict[tuple[int, int], int]:
        """Region number of every land hex."""
        if self._regions is None:
            if self.region_areas is not None:
                self._regions = {
                    h: i for i, n in enumerate(self.region_areas) for h in self.areas[n]
                }
            else:
                self._regions = _islands(game)
        return self._regions

    def _region_of(self, game: Game, v: int) -> int | None:
        regions = self.regions(game)
        found = {regions[h] for h in land_hexes_of(game, v) if h in regions}
        return min(found) if found else None

    def after_settlement(self, game: Game, p: int, v: int, founding: bool) -> list[Event]:
        state = game.hook_state.setdefault(self.name, {"home": {}, "awarded": {}})
        color = game.players[p]
        region = self._region_of(game, v)
        if region is None:
            return []
        homes = state["home"].setdefault(color, [])
        if founding:
            if self.home == "founding" and region not in homes:
                homes.append(region)
            return []
        if self.home == "founding":
            home_regions = set(homes)
        else:
            regions = self.regions(game)
            home_regions = {regions[h] for h in self.hexes(self.home) if h in regions}
        awarded = state["awarded"].setdefault(color, [])
        if region in home_regions or region in awarded:
            return []
        awarded.append(region)
        game.special_vp[p] += self.vp
        return [{"type": "special_vp", "player": color, "vp": self.vp, "why": "new island"}]


def _islands(game: Game) -> dict[tuple[int, int], int]:
    """Connected components of land hexes, numbered from 0."""
    from companion.board import hex_neighbours

    land = {game.topology.hexes[h] for h in range(len(game.topology.hexes)) if game.hex_land[h]}
    region: dict[tuple[int, int], int] = {}
    for start in sorted(land):
        if start in region:
            continue
        n = len(set(region.values()))
        stack = [start]
        while stack:
            h = stack.pop()
            if h in region:
                continue
            region[h] = n
            stack.extend(x for x in hex_neighbours(h) if x in land and x not in region)
    return region


class Exploration(Hook):
    """Fog: a new road or ship whose end reaches an unexplored hex turns it face up.

    The revealed hex comes from the face-down stacks (``stack``: terrain and chip counts);
    land gives its explorer one card of its resource, gold one of choice, sea nothing
    (RULES.md 4.3.5-4.3.7). GAP choices: one hex per new piece (``reveal``: "one", or "all"
    unexplored hexes at its ends); moving a ship explores nothing; when the hex stack is
    empty nothing more is revealed, when the chip stack is, land gets no chip.
    """

    name = "exploration"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        stack = params["stack"]
        self.terrain_stack = {str(k): int(v) for k, v in stack["terrain"].items()}
        self.chip_stack = {str(k): int(v) for k, v in stack.get("chips", {}).items()}
        self.reveal_all = params.get("reveal", "one") == "all"
        self.rule = params.get("rule", "4.3.5")

    def _stacks(self, game: Game) -> dict[str, dict[str, int]]:
        """The stacks as they are now; read-only (checks must not change the state)."""
        return game.hook_state.get(self.name) or {
            "terrain": dict(self.terrain_stack),
            "chips": dict(self.chip_stack),
        }

    def _fog_at(self, game: Game, e: int) -> list[int]:
        from companion.board import Terrain

        t = game.topology
        fog: list[int] = []
        for v in t.edge_vertices[e]:
            for h in t.vertex_hexes[v]:
                tile = game.board.tiles[t.hexes[h]]
                if tile.terrain == Terrain.UNEXPLORED and h not in fog:
                    fog.append(h)
        fog.sort()
        return fog if self.reveal_all else fog[:1]

    def draw_reveals(self, game: Game, p: int, e: int) -> tuple[Reveal, ...]:
        stacks = self._stacks(game)
        terrains = dict(stacks["terrain"])
        chips = dict(stacks["chips"])
        out: list[Reveal] = []
        for h in self._fog_at(game, e):
            names = sorted(k for k, n in terrains.items() if n > 0)
            if not names:
                break
            terrain = names[game.rng.pick([terrains[k] for k in names])]
            terrains[terrain] -= 1
            number = 0
            if terrain not in ("sea", "desert"):
                values = sorted((k for k, n in chips.items() if n > 0), key=int)
                if values:
                    number = int(values[game.rng.pick([chips[k] for k in values])])
                    chips[str(number)] -= 1
            q, r = game.topology.hexes[h]
            out.append((q, r, terrain, number))
        return tuple(out)

    def reveal_error(
        self, game: Game, p: int, e: int, revealed: tuple[Reveal, ...]
    ) -> IllegalAction | None:
        from companion.game import IllegalAction

        fog = {game.topology.hexes[h] for h in self._fog_at(game, e)}
        stacks = self._stacks(game)
        terrains, chips = dict(stacks["terrain"]), dict(stacks["chips"])
        for q, r, terrain, number in revealed:
            if (q, r) not in fog:
                return IllegalAction(self.rule, f"hex {(q, r)} is not explored by this piece")
            if terrains.get(terrain, 0) <= 0:
                return IllegalAction(self.rule, f"no {terrain} hex is left in the fog stack")
            terrains[terrain] -= 1
            if number:
                if chips.get(str(number), 0) <= 0:
                    return IllegalAction(self.rule, f"no {number} chip is left in the stack")
                chips[str(number)] -= 1
        return None

    def reveal(self, game: Game, p: int, revealed: tuple[Reveal, ...]) -> list[Event]:
        from companion.board import RESOURCES, Terrain, Tile

        stacks = game.hook_state.setdefault(self.name, self._stacks(game))
        events: list[Event] = []
        for q, r, name, number in revealed:
            terrain = Terrain(name)
            stacks["terrain"][name] -= 1
            if number:
                stacks["chips"][str(number)] -= 1
            game.set_tile((q, r), Tile(terrain, number or None))
            event: Event = {
                "type": "explored",
                "player": game.players[p],
                "hex": [q, r],
                "terrain": name,
                "number": number or None,
            }
            resource = terrain.resource
            if resource is not None:
                i = RESOURCES.index(resource)
                if game.bank[i] > 0:  # 4.3.6: one card of the new hex's resource
                    game.bank[i] -= 1
                    game.hands[p][i] += 1
                    event["cards"] = {resource.value: 1}
            elif terrain == Terrain.GOLD:  # 4.3.7 GAP (standard): one card of choice
                game.start_gold_choice({p: 1})
            events.append(event)
        return events
