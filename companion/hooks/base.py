"""The base of every scenario rule hook: the points where the engine asks a scenario.

A scenario (see :mod:`companion.scenario`) lists hooks such as
``{"hook": "island_bonus", "vp": 2, "home": "founding"}``. The engine calls every hook at a
few fixed points (a settlement spot is judged, a settlement is built, the robber moves, ...),
so no scenario's ``if`` is scattered through the engine. A hook keeps what it must remember in
``game.hook_state[its name]``, which is JSON-safe and part of the game's snapshot.

A hook may also bring actions of its own (a wonder's level, a gifted harbour, an attack on a
fortress): it names their classes in :attr:`Hook.actions` (registered with
:func:`companion.actions.register_action` so that they travel as JSON), lists them in
:meth:`Hook.generate`, judges them in :meth:`Hook.check` and carries them out in
:meth:`Hook.execute`. A hook that must have a decision before play goes on (where a gifted
harbour goes, say) reports it through :meth:`Hook.pending`: while it does, only its own
actions are legal.

Each hook cites the RULES.md rule it implements in its refusals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from companion.actions import Action, Reveal
    from companion.game import Event, Game, IllegalAction


class Hook:
    """A scenario rule. Subclasses override the points they need; the defaults do nothing."""

    name: ClassVar[str] = ""
    #: the action classes this hook adds to the game (it checks and executes them)
    actions: ClassVar[tuple[type[Action], ...]] = ()

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        self.areas = area_map
        self.params = params

    def hexes(self, names: Sequence[str]) -> frozenset[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for n in names:
            if n not in self.areas:
                raise ValueError(f"hook {self.name}: unknown area {n!r}")
            out |= self.areas[n]
        return frozenset(out)

    # -- judging and following the base game's actions ------------------------------------

    def settlement_error(self, game: Game, p: int, v: int, founding: bool) -> IllegalAction | None:
        return None

    def robber_error(self, game: Game, p: int, h: int) -> IllegalAction | None:
        return None

    def after_settlement(self, game: Game, p: int, v: int, founding: bool) -> list[Event]:
        return []

    def may_spare(self, game: Game, p: int, h: int) -> bool:
        """Whether seat ``p`` may move the robber to hex ``h`` and rob nobody, though a
        player there could be robbed (Best Friends: a harmless move to the desert)."""
        return False

    def after_robber(self, game: Game, p: int, h: int, victim: int | None) -> list[Event]:
        """Seat ``p`` has just moved the robber to hex ``h`` and robbed ``victim`` (a seat) or
        nobody: what the move earns in this scenario."""
        return []

    def pirate_error(self, game: Game, p: int, h: int) -> IllegalAction | None:
        """Why seat ``p`` may not move the pirate to sea hex ``h`` (by index) in this scenario,
        or None (Cloth for Catan: only a player trading with a village may choose it)."""
        return None

    def ship_move_error(self, game: Game, p: int, e: int) -> IllegalAction | None:
        """Why seat ``p`` may not move its ship on side ``e`` though the base rules would let
        it (a route to a village counts as closed), or None."""
        return None

    def route_error(self, game: Game, p: int, e: int, kind: int) -> IllegalAction | None:
        """Why seat ``p`` may not put a road or ship (``kind``, the engine's ROAD or SHIP) on
        free side ``e`` now, beyond the base rules (a map's own road spaces), or None.

        Asked both when legal actions are listed and when one is checked, so it must not
        change the state.
        """
        return None

    def after_route(self, game: Game, p: int, e: int, kind: int, founding: bool) -> list[Event]:
        """Seat ``p`` has just put a road or ship on side ``e`` (in the founding phase if
        ``founding``): what it earns on this map (a Catan chip, a trade, a token)."""
        return []

    def after_ship_moved(self, game: Game, p: int, e: int) -> list[Event]:
        """Seat ``p`` has just moved a ship onto side ``e`` (RULES.md 3.4): what it finds
        there (a gift of the Forgotten Tribe, say). A new ship goes to :meth:`after_route`."""
        return []

    def turn_ended(self, game: Game, p: int) -> list[Event]:
        """Seat ``p`` ends their turn (before the special building phase, if any): undo
        what lasted only for the turn."""
        return []

    def extra_points(self, game: Game, p: int) -> int:
        return 0

    def setup(self, game: Game) -> None:
        """Put what the scenario pre-places on the board before the founding phase (pieces
        set out as the diagram shows, counters in ``game.hook_state``); called once, at the
        end of :class:`~companion.game.Game`'s construction, so a replay builds it again."""

    def on_roll(self, game: Game, p: int, dice: tuple[int, int]) -> list[Event]:
        """What a roll does before production and before a 7's discards (a fleet that sails
        by the dice, say); the events follow the roll's own event."""
        return []

    def keeps_hand(self, game: Game, p: int) -> bool:
        """Whether seat ``p``, over the limit on a 7, keeps every card (a helper protects
        them); asked right after :meth:`on_roll`."""
        return False

    def may_win(self, game: Game, p: int) -> bool:
        """Whether seat ``p`` may win now, given enough victory points (a scenario that asks
        for more, such as a captured fortress, says no until it is done)."""
        return True

    def goal_reached(self, game: Game, p: int) -> bool:
        """Whether seat ``p`` has reached the scenario's own goal, which wins whatever the
        points (a completed wonder, say); asked when :meth:`may_win` is, on ``p``'s turn."""
        return False

    def cards_aside(self, game: Game) -> int:
        """How many development cards of the deck the scenario has laid out face down, away
        from the deck (the Forgotten Tribe's gifts): they are not for sale."""
        return 0

    def game_end(self, game: Game) -> int | None:
        """The seat that wins because the scenario's game ends now, whoever is on turn (the
        most points when Cloth for Catan's villages run dry), or None. Asked when no one has
        won by the points or a goal, on the turn player's actions and at each turn start."""
        return None

    def pieces_aside(self, game: Game, p: int) -> dict[str, int]:
        """Pieces of seat ``p`` the scenario holds off the board and out of the supply, by
        kind ("settlements", ...): e.g. the settlement on top of a pirate fortress."""
        return {}

    def bot_score(self, game: Game, action: Action) -> float | None:
        """How much a simple computer player (:class:`companion.bots.GreedyBot`) likes
        ``action`` in this scenario (the base game's end of turn scores 5, a settlement about
        100), or None to leave it to the bot's own rules of thumb."""
        return None

    def bot_goals(self, game: Game, p: int) -> list[tuple[int, ...]]:
        """Costs (counts in RESOURCES order) a simple computer player of seat ``p`` should save
        and trade for before the base game's city, settlement and card (a wonder's level)."""
        return []

    def draw_reveals(self, game: Game, p: int, e: int) -> tuple[Reveal, ...]:
        """Hexes a new road or ship on side ``e`` turns face up (drawn at random)."""
        return ()

    def reveal_error(
        self, game: Game, p: int, e: int, revealed: tuple[Reveal, ...]
    ) -> IllegalAction | None:
        """Why the table's account of what was revealed cannot be right, or None."""
        return None

    def reveal(self, game: Game, p: int, revealed: tuple[Reveal, ...]) -> list[Event]:
        """Turn revealed hexes face up and hand out what they give."""
        return []

    # -- the hook's own actions ------------------------------------------------------------

    def pending(self, game: Game) -> IllegalAction | None:
        """A decision this hook needs before play goes on, as the refusal of anything else.

        While it returns one, :meth:`Game.legal_actions` lists only the hooks' own actions
        and every base-game action is refused with it.
        """
        return None

    def generate(self, game: Game, out: list[Action]) -> None:
        """Append this hook's actions that are legal now to ``out``."""

    def check(self, game: Game, p: int, action: Action) -> None:
        """Raise :class:`~companion.game.IllegalAction` if ``action`` (one of
        :attr:`actions`, by seat ``p``) may not be made now."""

    def resolve(self, game: Game, action: Action) -> Action:
        """``action`` (already checked) with its random outcome filled in, if it has one."""
        return action

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        """Carry out ``action`` (checked and resolved) and return its events."""
        raise NotImplementedError(f"hook {self.name} lists {type(action).__name__}")

    # -- what the page shows -----------------------------------------------------------------

    def public_view(self, game: Game) -> dict[str, Any] | None:
        """What everyone at the table may see of this hook, as a panel of the page, or None.

        The page draws any panel of this shape without code of its own (docs/api.md, "The
        scenario panel")::

            {"title": "Guild favours", "text": "one line of explanation (optional)",
             "sections": [{"title": "Supply", "kind": "counters" | "list" | "cards",
                           "items": [{"label": "Favour tiles", "value": 61,
                                      "text": "...", "color": "red", "tags": ["B side"]}]}]}

        Every item field but ``label`` is optional; ``color`` is a player's colour (drawn as
        their swatch). Hidden information belongs in :meth:`private_view`.
        """
        return None

    def private_view(self, game: Game, p: int) -> dict[str, Any] | None:
        """What seat ``p`` alone may see of this hook (their face-down tiles, say): a panel
        shaped as in :meth:`public_view`, or None."""
        return None

    def action_labels(self) -> dict[str, str]:
        """A short label for each action type this hook adds, for the page's buttons.

        An action class may set a ``label`` class attribute; otherwise its type is used, e.g.
        ``"redeem_favour"`` reads "Redeem favour".
        """
        return {
            cls.type: getattr(cls, "label", "") or cls.type.replace("_", " ").capitalize()
            for cls in self.actions
        }


def land_hexes_of(game: Game, v: int) -> set[tuple[int, int]]:
    """The land hexes around corner ``v`` (by index), as (q, r)."""
    t = game.topology
    return {t.hexes[h] for h in t.vertex_hexes[v] if game.hex_land[h]}


def refusal(rule: str, reason: str, *args: object) -> IllegalAction:
    """The engine's refusal of an action by rule ``rule``, for a hook to raise or return."""
    # Imported here: companion.game imports the hooks.
    from companion.game import IllegalAction

    return IllegalAction(rule, reason, *args)
