"""Reconciliation: what the camera sees, compared with what the rules engine knows.

A stable observation of the board (pieces, robber, pirate, chip numbers) is compared with the
engine's state. Each difference becomes either a *proposal* (an action the engine accepts, such
as "red built a settlement at (0, 0, N)") or a *discrepancy* (something the table must fix, such
as a piece that disappeared or a road that red cannot pay for), with what the table should do.

Nothing is decided here by guessing the rules: every proposed action is tried on a copy of the
game, in an order that lets a road come before the settlement at its end; what the engine
refuses becomes a discrepancy carrying the engine's reason and rule number. The game itself is
never changed: applying a proposal is the Table's job.

This module imports no vision code: an observation is anything with the attributes of
:class:`SeenBoard` (``vision.tracker.Observation`` has them).

>>> from companion.layouts import random_board
>>> from companion.game import Game
>>> from companion.board import Piece, Vertex
>>> game = Game(random_board(4, seed=1), ["red", "blue", "white"], rng=1)
>>> seen = Seen(pieces=[Piece("settlement", "red", vertex=Vertex(0, 0, "N"))])
>>> result = reconcile(game, seen)
>>> [p.text for p in result.proposals]
['red built a settlement at (0, 0, N)']
>>> result.discrepancies
[]
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from companion.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    MovePirate,
    MoveRobber,
    MoveShip,
)
from companion.board import Edge, Hex, Piece, Vertex
from companion.game import Game, IllegalAction, Phase
from companion.longest_route import SHIP

#: Piece kinds by the engine's vertex level (1 settlement, 2 city).
_LEVEL_KIND = {1: "settlement", 2: "city"}


class SeenBoard(Protocol):
    """What reconciliation needs of an observation."""

    pieces: Sequence[Piece]
    robber: Hex | None
    pirate: Hex | None
    numbers: Mapping[Hex, int]


@dataclass(frozen=True)
class Seen:
    """A plain observation (for tests and callers without a camera)."""

    pieces: Sequence[Piece] = ()
    robber: Hex | None = None
    pirate: Hex | None = None
    numbers: Mapping[Hex, int] = field(default_factory=dict)
    #: New roads and ships whose kind the camera could not tell (optional on a
    #: :class:`SeenBoard`, read with getattr: ``vision.tracker.Observation`` has it).
    doubtful_kinds: tuple[Edge, ...] = ()
    #: The corners and sides whose pieces changed just now (a tracker's observation has
    #: them); None: the observation makes no such claim, and every difference is taken as new.
    changed: tuple[tuple[Any, ...], ...] | None = None


#: What a proposal's choices answer: who was robbed (a robber or pirate move), or which kind
#: of piece stands on a side (road or ship).
ASKS_VICTIM = "victim"
ASKS_KIND = "kind"
#: The choices of a road-or-ship question.
KIND_CHOICES = ("road", "ship")


@dataclass(frozen=True)
class Proposal:
    """An action the engine accepts (tried in order on a copy of the game).

    ``confirm`` is True when a person must complete or confirm it on the page before it is
    applied; ``choices`` then lists the options and ``asks`` what they answer
    (:data:`ASKS_VICTIM`: the players the robber can rob; :data:`ASKS_KIND`: road or ship,
    the action being the camera's reading).
    """

    action: Action
    text: str
    confirm: bool = False
    choices: tuple[str, ...] = ()
    asks: str | None = None

    def to_json(self) -> dict[str, Any]:
        from companion.actions import action_to_json

        return {
            "action": action_to_json(self.action),
            "text": self.text,
            "confirm": self.confirm,
            "choices": list(self.choices),
            "asks": self.asks,
        }


@dataclass(frozen=True)
class Discrepancy:
    """Something the camera sees that the game cannot accept, and what the table should do.

    ``kind`` is one of: ``refused`` (the engine refused the action: ``rule`` says why),
    ``missing`` (a piece the game has is gone), ``changed`` (a piece of another kind or colour
    than the game's), ``off_grid`` (a piece where the board has no such corner or side),
    ``robber``, ``pirate`` (moved when the game does not expect it), ``number`` (a chip that
    differs from the game's), ``competing`` (new pieces of one player the engine accepts one by
    one but not all together: which were built is the table's to say), ``unread`` (something
    that is no piece the camera can read changed on a hex and stayed: see
    ``companion.camera_link.unread_changes``).
    """

    kind: str
    text: str
    fix: str
    where: tuple[Any, ...] = ()
    rule: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "fix": self.fix,
            "where": list(self.where),
            "rule": self.rule,
        }


@dataclass
class Reconciliation:
    """The outcome of one comparison. Empty lists mean the camera agrees with the game."""

    proposals: list[Proposal] = field(default_factory=list)
    discrepancies: list[Discrepancy] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.proposals and not self.discrepancies


def game_pieces(game: Game) -> list[Piece]:
    """The pieces of ``game`` as a camera sees them when the table agrees with the game:
    settlements and cities on corners, then roads and ships on sides.

    >>> from companion.layouts import random_board
    >>> from companion.actions import BuildSettlement
    >>> from companion.board import Vertex
    >>> game = Game(random_board(4, seed=1), ["red", "blue", "white"], rng=1)
    >>> _ = game.apply(BuildSettlement("red", Vertex(0, 0, "N")))
    >>> [(p.kind, p.color) for p in game_pieces(game)]
    [('settlement', 'red')]
    """
    t = game.topology
    pieces = [
        Piece("settlement" if game.vertex_level[v] == 1 else "city", game.players[o], vertex=name)
        for v, (name, o) in enumerate(zip(t.vertices, game.vertex_owner, strict=True))
        if o != -1
    ]
    pieces += [
        Piece("ship" if game.edge_kind[e] == SHIP else "road", game.players[o], edge=name)
        for e, (name, o) in enumerate(zip(t.edges, game.edge_owner, strict=True))
        if o != -1
    ]
    return pieces


def _name(x: Iterable[Any]) -> str:
    return "(" + ", ".join(str(v) for v in x) + ")"


def _missing(color: str, kind: str, name: Vertex | Edge) -> Discrepancy:
    """The game's piece at ``name`` is not seen."""
    return Discrepancy(
        "missing",
        f"{color}'s {kind} at {_name(name)} disappeared",
        f"put {color}'s {kind} back at {_name(name)}",
        tuple(name),
    )


def _changed(piece: Piece, color: str, kind: str, name: Vertex | Edge) -> Discrepancy:
    """Another colour's or kind's ``piece`` is seen where the game has ``color``'s ``kind``."""
    return Discrepancy(
        "changed",
        f"a {piece.color} {piece.kind} at {_name(name)} where the game has {color}'s {kind}",
        f"put {color}'s {kind} back at {_name(name)}",
        tuple(name),
    )


def reconcile(game: Game, seen: SeenBoard) -> Reconciliation:
    """Compare an observation with the engine's state.

    Args:
        game: the engine (read only: it is never changed).
        seen: the pieces, robber, pirate and numbers the camera sees. A ``None`` robber or
            pirate means "not seen" (covered or not read) and is not a difference.

    Returns:
        Proposals in an order the engine accepts, and discrepancies.
    """
    out = Reconciliation()
    t = game.topology
    candidates: list[tuple[Action, str]] = []

    seen_vertices: dict[int, Piece] = {}
    seen_edges: dict[int, Piece] = {}
    for piece in seen.pieces:
        if piece.vertex is not None and piece.kind in ("settlement", "city"):
            i = t.vertex_index.get(Vertex(*piece.vertex))
            target, where = seen_vertices, piece.vertex
        elif piece.edge is not None and piece.kind in ("road", "ship"):
            i = t.edge_index.get(Edge(*piece.edge))
            target, where = seen_edges, piece.edge
        else:
            i, target, where = None, {}, piece.vertex or piece.edge or ()
        if i is None:
            out.discrepancies.append(
                Discrepancy(
                    "off_grid",
                    f"a {piece.color} {piece.kind} at {_name(where)} is not on this board's grid",
                    "take it off or put it on a corner (settlement, city) or side (road, ship)",
                    tuple(where),
                )
            )
            continue
        target[i] = piece

    # Corners.
    for v, name in enumerate(t.vertices):
        owner, level = game.vertex_owner[v], game.vertex_level[v]
        piece = seen_vertices.get(v)
        where = tuple(name)
        if owner == -1:
            if piece is None:
                continue
            if piece.kind == "settlement":
                candidates.append(
                    (
                        BuildSettlement(piece.color, name),
                        f"{piece.color} built a settlement at {_name(name)}",
                    )
                )
            else:
                out.discrepancies.append(
                    Discrepancy(
                        "refused",
                        f"a {piece.color} city at {_name(name)} where the game has no settlement",
                        "replace it by a settlement: a city only upgrades a settlement",
                        where,
                        "1.9.6",
                    )
                )
            continue
        color, kind = game.players[owner], _LEVEL_KIND[level]
        if piece is None:
            out.discrepancies.append(_missing(color, kind, name))
        elif piece.color != color:
            out.discrepancies.append(_changed(piece, color, kind, name))
        elif piece.kind == "city" and kind == "settlement":
            candidates.append((BuildCity(color, name), f"{color} built a city at {_name(name)}"))
        elif piece.kind == "settlement" and kind == "city":
            out.discrepancies.append(
                Discrepancy(
                    "changed",
                    f"{color}'s city at {_name(name)} is seen as a settlement",
                    f"put {color}'s city back at {_name(name)}",
                    where,
                )
            )

    # Sides: a ship gone from one side and a ship of the same colour new on another is a move.
    gone_ships: dict[str, list[int]] = {}
    new_ships: dict[str, list[int]] = {}
    for e, name in enumerate(t.edges):
        owner = game.edge_owner[e]
        piece = seen_edges.get(e)
        if owner == -1:
            if piece is None:
                continue
            if piece.kind == "ship":
                new_ships.setdefault(piece.color, []).append(e)
            else:
                candidates.append(
                    (BuildRoad(piece.color, name), f"{piece.color} built a road at {_name(name)}")
                )
            continue
        color = game.players[owner]
        kind = "ship" if game.edge_kind[e] == SHIP else "road"
        if piece is None:
            if kind == "ship":
                gone_ships.setdefault(color, []).append(e)
            else:
                out.discrepancies.append(_missing(color, "road", name))
        elif piece.color != color or piece.kind != kind:
            out.discrepancies.append(_changed(piece, color, kind, name))
    for color, news in new_ships.items():
        gone = gone_ships.get(color, [])
        if len(gone) == 1 and len(news) == 1:
            a, b = t.edges[gone.pop()], t.edges[news[0]]
            candidates.append(
                (MoveShip(color, a, b), f"{color} moved a ship from {_name(a)} to {_name(b)}")
            )
            continue
        for e in news:
            name = t.edges[e]
            candidates.append((BuildShip(color, name), f"{color} built a ship at {_name(name)}"))
    for color, gone in gone_ships.items():
        for e in gone:
            name = t.edges[e]
            out.discrepancies.append(_missing(color, "ship", t.edges[e]))

    trial, proposals = _accepted_together(game, candidates, out.discrepancies)
    doubt = {tuple(x) for x in getattr(seen, "doubtful_kinds", ())}
    proposals = _ask_kinds(game, proposals, doubt) if doubt else proposals
    changed = getattr(seen, "changed", None)
    out.proposals.extend(_unseen_asked(p, changed) for p in proposals)
    _robber_and_pirate(game, trial, seen, out)
    for h, number in sorted(seen.numbers.items()):
        tile = game.board.tiles.get(h)
        if tile is not None and tile.number is not None and tile.number != number:
            out.discrepancies.append(
                Discrepancy(
                    "number",
                    f"the camera sees a {number} at {_name(h)} where the game has a {tile.number}",
                    f"put the {tile.number} chip back on {_name(h)} (or correct the game's board)",
                    tuple(h),
                )
            )
    return out


def _accepted_together(
    game: Game, candidates: list[tuple[Action, str]], discrepancies: list[Discrepancy]
) -> tuple[Game, list[Proposal]]:
    """The candidates the engine accepts, and the game after them (a copy).

    A player's new pieces that the engine accepts one by one but not all together (two cities
    seen for one city's worth of cards) compete: which one was really built is a guess, and a
    misread piece could take the cards of the real one. So none of that player's pieces is
    proposed; the table is asked instead.
    """
    trial = copy.deepcopy(game)
    accepted, refused = _accepted_in_order(trial, candidates)
    rivals = {candidates[i][0].player for i in refused if _accepted_alone(game, candidates[i][0])}
    asked: list[Proposal] = []
    for i, exc in refused.items():
        action, text = candidates[i]
        if action.player in rivals:
            continue
        other = _other_kind(action)
        if other is not None and _accepted_alone(trial, other):
            # A road and a ship look alike along a coast; the game takes only the other kind
            # here: the table says which it was.
            kind = "a ship" if isinstance(other, BuildShip) else "a road"
            asked.append(
                Proposal(other, f"{text}; the game takes only {kind} there: was it {kind}?", True)
            )
            continue
        discrepancies.append(
            Discrepancy(
                "refused",
                f"{text}, but the game refuses it: {exc.reason}",
                "take the piece back, or enter what happened on the page",
                _where(action),
                exc.rule,
            )
        )
    if not rivals:
        return trial, [Proposal(*candidates[i]) for i in accepted] + asked
    for color in sorted(rivals):
        mine = [i for i in (*accepted, *refused) if candidates[i][0].player == color]
        texts = "; ".join(candidates[i][1] for i in sorted(mine))
        for i in sorted(mine):
            discrepancies.append(
                Discrepancy(
                    "competing",
                    f"{texts}: {color} cannot have built all of them (not enough cards or pieces)",
                    f"enter on the page what {color} built, and take back any piece not built",
                    _where(candidates[i][0]),
                )
            )
    kept = [i for i in accepted if candidates[i][0].player not in rivals]
    trial = copy.deepcopy(game)
    for i in kept:
        trial.apply(candidates[i][0])
    return trial, [Proposal(*candidates[i]) for i in kept] + asked


def _ask_kinds(
    game: Game, proposals: list[Proposal], doubt: set[tuple[Any, ...]]
) -> list[Proposal]:
    """The proposals, with each new road or ship on a side in ``doubt`` (the camera could
    not tell its kind) turned into a question when the engine would take the other kind there
    too (with the other proposals applied): which of the two was built is the table's to say.
    Where only the kind read is legal it stands. A ship's move to a side in doubt is a
    question to confirm."""
    out: list[Proposal] = []
    for p in proposals:
        if isinstance(p.action, MoveShip) and not p.confirm and tuple(p.action.to) in doubt:
            # What stands on the side it went to may be a road (or a building's colour): a
            # ship's move read from it is asked, never applied unasked.
            text = f"{p.text}; the camera cannot tell what stands there: was it this move?"
            out.append(Proposal(p.action, text, True))
            continue
        other = _other_kind(p.action)
        if other is None or p.confirm or tuple(getattr(p.action, "edge", ())) not in doubt:
            out.append(p)
            continue
        rest = copy.deepcopy(game)
        for q in proposals:
            if q is not p and not q.confirm:
                try:
                    rest.apply(q.action)
                except IllegalAction:
                    continue
        if _accepted_alone(rest, other):
            text = f"{p.text}; the camera cannot tell a road from a ship there: road or ship?"
            out.append(Proposal(p.action, text, True, KIND_CHOICES, ASKS_KIND))
        else:
            out.append(p)
    return out


def _unseen_asked(proposal: Proposal, changed: Iterable[Iterable[Any]] | None) -> Proposal:
    """``proposal`` made a question when the pieces did not change at one of its corners or
    sides just now (``changed``; None: no such claim, the proposal stands).

    The camera's pieces can disagree with the game for a long time: a move it missed went in
    on the page, a piece it misread was left as it was. Such an old disagreement, read again
    with the next change somewhere else, would be applied as if it had just happened (a ship
    moved on the page and its old side read as a ship again: the camera moved it back). What
    the camera did not see happen now, a person confirms.
    """
    sites = _sites(proposal.action)
    if proposal.confirm or changed is None or not sites:
        return proposal
    now = {tuple(x) for x in changed}
    if all(site in now for site in sites):
        return proposal
    return replace(
        proposal, text=f"{proposal.text} (not seen happen just now: was it?)", confirm=True
    )


def _sites(action: Action) -> tuple[tuple[Any, ...], ...]:
    """The corners and sides a build or a ship's move puts a piece on or takes one from."""
    return tuple(
        tuple(value)
        for attr in ("vertex", "edge", "to")
        if (value := getattr(action, attr, None)) is not None
    )


def _other_kind(action: Action) -> Action | None:
    """The same side's build with the other kind of piece (road <-> ship), or None."""
    if isinstance(action, BuildRoad):
        return BuildShip(action.player, action.edge)
    if isinstance(action, BuildShip):
        return BuildRoad(action.player, action.edge)
    return None


def _accepted_alone(game: Game, action: Action) -> bool:
    """Whether the engine accepts ``action`` on ``game`` as it is (tried on a copy)."""
    try:
        copy.deepcopy(game).apply(action)
    except IllegalAction:
        return False
    return True


def _accepted_in_order(
    trial: Game, candidates: list[tuple[Action, str]]
) -> tuple[list[int], dict[int, IllegalAction]]:
    """Apply candidates to ``trial`` in whatever order the engine accepts them.

    A road may have to come before the settlement at its end, and a settlement before the
    founding road beside it; so every pass applies each candidate the engine now accepts, until
    a pass accepts nothing. Returns the accepted candidates' indices in the order applied, and
    the engine's refusal of each one left (its word on the final state: the last pass accepted
    nothing).
    """
    accepted: list[int] = []
    refusals: dict[int, IllegalAction] = {}
    left = list(range(len(candidates)))
    progress = True
    while left and progress:
        progress = False
        for i in list(left):
            try:
                trial.apply(candidates[i][0])
            except IllegalAction as exc:
                refusals[i] = exc
                continue
            accepted.append(i)
            left.remove(i)
            progress = True
    return accepted, {i: refusals[i] for i in left}


def _where(action: Action) -> tuple[Any, ...]:
    for attr in ("vertex", "edge", "to", "hex"):
        value = getattr(action, attr, None)
        if value is not None:
            return tuple(value)
    return ()


def _robber_and_pirate(game: Game, trial: Game, seen: SeenBoard, out: Reconciliation) -> None:
    """The robber (and pirate) seen on another hex: a move to confirm, or a discrepancy."""
    t = game.topology
    for piece, seen_hex, index in (
        ("robber", seen.robber, game.robber),
        ("pirate", seen.pirate, game.pirate),
    ):
        if seen_hex is None or index is None or t.hexes[index] == tuple(seen_hex):
            continue
        old, new = t.hexes[index], (int(seen_hex[0]), int(seen_hex[1]))
        player = trial.current_player
        victims = tuple(_victims(trial, piece, new))
        action_type = MoveRobber if piece == "robber" else MovePirate
        # The engine checks the move with a victim filled in; the page then says who it was.
        probe = action_type(player, new, victims[0] if victims else None)
        try:
            trial.resolve(probe)
        except IllegalAction as exc:
            fix = (
                f"put the {piece} back on {_name(old)}"
                if trial.phase != Phase.MOVE_ROBBER
                else f"move the {piece} to a hex it may go to"
            )
            out.discrepancies.append(
                Discrepancy(
                    piece,
                    f"the {piece} moved from {_name(old)} to {_name(new)}, "
                    f"but the game refuses it: {exc.reason}",
                    fix,
                    new,
                    exc.rule,
                )
            )
            continue
        if victims:
            text = f"{player} moved the {piece} to {_name(new)}: who was robbed?"
        else:
            text = f"{player} moved the {piece} to {_name(new)} (nobody to rob)"
        out.proposals.append(
            Proposal(
                action_type(player, new),
                text,
                confirm=bool(victims),
                choices=victims,
                asks=ASKS_VICTIM if victims else None,
            )
        )


def _victims(game: Game, piece: str, h: Hex) -> list[str]:
    """Other players than the one to act with a building (robber) or ship (pirate) on ``h``
    and cards in hand."""
    t = game.topology
    i = t.hex_index[h]
    if piece == "robber":
        owners = {game.vertex_owner[v] for v in t.hex_vertices[i]}
    else:
        owners = {game.edge_owner[e] for e in t.hex_edges[i] if game.edge_kind[e] == SHIP}
    return [
        game.players[o]
        for o in sorted(owners)
        if o not in (-1, game.current) and sum(game.hands[o]) > 0
    ]
