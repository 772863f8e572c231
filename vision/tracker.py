"""Follow the board frame by frame and report only stable changes of its pieces.

Per frame (``Tracker.update(timestamp, frame)``):

1. **Registration.** The board is registered once (``vision.register``, sharpened on the tile
   borders by ``vision.pieces.refine_homography``), then kept. Each frame
   is warped to the board's small top view with that registration; the board is considered
   *moved* only when most hexes stop looking like the reference top view (normalised
   correlation per hex) for several frames in a row, and is then registered again. A new
   registration is turned to the orientation of the old one (the rotation whose top view
   matches the reference best), so corners and sides keep their names.
2. **Occlusion.** What differs from the reference top view (relative brightness, so the lamp's
   drift cancels) is cut into blobs. A blob larger than any piece is an occluder (a hand, an
   arm, its shadow, a glare spot; with hysteresis, so a soft rim belongs to its blob); so is
   what moved since the previous frame. Skin colour is not used: the beige tile borders, the
   hills and the desert art are skin-coloured, so a piece taken away would look like a hand.
   Occluders are grown by a margin (shadows lie beside arms) and every site
   they touch is *unknown* for the frame: never read as empty, never reported.
3. **Reading.** Only when something small differs from the reference (a piece may have been
   placed, moved or taken) are the sites read (``vision.pieces``); a frame identical to the
   reference keeps the committed state (this is what keeps the tracker fast).
4. **Stability.** A site's new state is committed only after it has been read the same for
   ``stable_s`` seconds, uncovered. Then an :class:`Observation` of the whole board is
   emitted and the reference top view is renewed.

New buildings are settlements (the rules make a city only from a settlement); a settlement
becomes a city when the area of its colour that differs from the reference top view at its
corner reaches :data:`UPGRADE_GAIN` (a city's wing and larger roof): what lies around the
corner and stays is in the reference, so it cannot make a city.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.board import Edge, Hex, Piece, hex_center
from vision.pieces import (
    EMPTY,
    KIND_CERTAIN,
    UNKNOWN,
    DetectedPiece,
    PieceDetector,
    SiteReadings,
    pieces_from_states,
    refine_homography,
    state_code,
)

log = logging.getLogger(__name__)

#: A settlement has become a city when this much of its colour (hex radii squared, within 0.42
#: hex radii of its corner) differs from the reference: a city adds 0.033..0.061 on renders.
UPGRADE_GAIN = 0.02

# Relative brightness change (|log ratio| to the reference) that counts as "different",
# and the faint one that still joins an occluder.
_DIFF = 0.22
_FAINT = 0.1
# A blob of difference larger than this (hex radii squared) is not a piece but an occluder.
_OCCLUDER_AREA = 0.6
# Occluders are grown by this margin (hex radii): shadows and blurred edges lie beside them.
_MARGIN = 0.45
# Grey-level change between consecutive frames that counts as motion.
_MOTION = 18
# A hex whose top view correlates with the reference below this has changed.
_HEX_NCC = 0.5
# A site whose pixels differ from the reference over less than this fraction is unchanged.
_SITE_CHANGED = 0.2
# ... or whose surroundings changed over more than this fraction.
_AROUND_CHANGED = 0.5
# Read state of a site that cannot have changed (it keeps its committed state).
_SAME = -9
# A blob of small, stable difference this large (hex radii squared) changed its hex: about
# half the robber's footprint.
_HEX_CHANGE = 0.08
# An occluder unchanged for this long (seconds) is part of the scene.
_HEAL_S = 2.0
# The board moved when this fraction of its hexes changed ...
_MOVED_FRACTION = 0.7
# ... for this many frames in a row.
_MOVED_FRAMES = 3


@dataclass(frozen=True)
class Observation:
    """A stable reading of the board (what ``companion.reconcile`` compares with the game).

    Attributes:
        timestamp: the source's timestamp (seconds) of the frame that made it stable.
        pieces: every piece seen, in the board's coordinates.
        detected: the same pieces with their confidences.
        robber, pirate: where they were seen, or None (not read by this tracker).
        numbers: chip numbers read (empty: chips are not re-read while tracking).
        changed: the corners and sides whose state changed since the previous observation.
        changed_hexes: hexes where something that is not a piece changed and stayed (the
            robber or the pirate moving leaves two: the hex it left and the one it went to).
        doubtful_kinds: the sides of ``changed`` that now hold a road or ship whose kind was in
            doubt (a kind confidence below :data:`vision.pieces.KIND_CERTAIN` in any frame
            that held the reading while it became stable: on a coast, a ship lying along its
            side looks like a road).
    """

    timestamp: float
    pieces: tuple[Piece, ...]
    detected: tuple[DetectedPiece, ...] = ()
    robber: Hex | None = None
    pirate: Hex | None = None
    numbers: Mapping[Hex, int] = field(default_factory=dict)
    changed: tuple[tuple, ...] = ()
    changed_hexes: tuple[Hex, ...] = ()
    doubtful_kinds: tuple[Edge, ...] = ()


@dataclass
class TrackerStatus:
    """How the tracker is doing (for the camera's health on the page)."""

    registered: bool = False
    frames: int = 0
    reads: int = 0
    registrations: int = 0
    covered_fraction: float = 0.0
    pending_sites: int = 0
    detail: str = "waiting for the board"


Registrar = Callable[[np.ndarray], object]


def _default_registrar(kind: str | None) -> Registrar:
    def reg(frame: np.ndarray) -> object:
        from vision.register import register

        return register(frame, kind)

    return reg


class Tracker:
    """Frame-by-frame tracker of one board.

    Args:
        stable_s: how long a site must read the same, uncovered, before it is reported.
        registrar: ``frame -> registration`` (``homography``, ``hexes``, ``sea_fraction``
            or a known frame's ``sea_hexes``, ``kind``); raises ValueError when no board is
            seen. Default: vision.register.
        kind: board kind for the default registrar, or None to detect it.
        retry_s: how long to wait between attempts to find the board.
        px_per_unit: top-view resolution for reading (see vision.pieces).
    """

    def __init__(
        self,
        *,
        stable_s: float = 0.5,
        registrar: Registrar | None = None,
        kind: str | None = None,
        retry_s: float = 1.0,
        px_per_unit: float = 32.0,
    ):
        if stable_s < 0:
            raise ValueError(f"stable_s must be >= 0, not {stable_s}")
        self.stable_s = stable_s
        self.retry_s = retry_s
        self.px = px_per_unit
        self._registrar = registrar or _default_registrar(kind)
        self.status = TrackerStatus()
        self.detector: PieceDetector | None = None
        self._last_try: float | None = None
        self._reference: np.ndarray | None = None  # float32 grey top view
        self._reference_bgr: np.ndarray | None = None  # float32 (H, W, 3) colour top view
        self._previous: np.ndarray | None = None  # uint8 grey top view of the previous frame
        # Per corner: the reference holds its whole area disc as last seen (False while a part
        # of it kept an older view at a renewal after something there changed under cover).
        self._whole = np.zeros(0, bool)
        self._moved_frames = 0
        self._hex_masks: list[np.ndarray] = []
        self._hex_centres = np.zeros((0, 2))
        self._sea: list[Hex] = []
        self._still: tuple[float, np.ndarray] | None = None
        self._healed: tuple[float, np.ndarray] | None = None
        self._other_since: tuple[float, tuple[Hex, ...]] | None = None
        self._ships = False
        self.v_state = np.zeros(0, np.int64)
        self.e_state = np.zeros(0, np.int64)
        self._cand_v = np.zeros(0, np.int64)
        self._cand_e = np.zeros(0, np.int64)
        self._since_v = np.zeros(0)
        self._since_e = np.zeros(0)
        # Per side: how sure the committed kind (road or ship) is, and the least sure reading
        # of the candidate while it was held (vision.pieces: SiteReadings.edge_kind_conf).
        self._kind_e = np.ones(0)
        self._cand_kind_e = np.ones(0)

    # -- registration -------------------------------------------------------------------------

    def _register(self, t: float, frame: np.ndarray) -> bool:
        if self._last_try is not None and t - self._last_try < self.retry_s:
            return False
        self._last_try = t
        try:
            reg = self._registrar(frame)
        except ValueError as exc:
            self.status.detail = str(exc)
            return False
        first = self.detector is None
        if first:
            # A known frame (vision.known_frame) knows its sea; otherwise it is what looks it.
            known_sea = getattr(reg, "sea_hexes", None)
            self._sea = (
                list(known_sea)
                if known_sea is not None
                else [h for h, f in getattr(reg, "sea_fraction", {}).items() if f > 0.7]
            )
            self._ships = getattr(reg, "kind", "base") == "seafarers"
        hexes = reg.hexes  # type: ignore[attr-defined]
        # Chips place the grid to a tenth of a hex; the borders place it to a road's width.
        homography = refine_homography(frame, reg.homography, hexes, self._sea)  # type: ignore[attr-defined]
        if first:
            detector = self._detector(homography, hexes)
        else:
            detector = self._same_orientation(homography, frame)
        self.detector = detector
        self.status.registrations += 1
        self.status.registered = True
        self.status.detail = "tracking"
        top = detector.top_view(frame)
        self._set_reference(top)
        self._previous = None
        self._moved_frames = 0
        self._hex_masks = self._make_hex_masks(detector)
        self._hex_centres = detector._to_top(np.array([hex_center(h) for h in detector.hexes]))
        if first:
            readings = detector.read_top(top)
            n_v, n_e = len(readings.vertex_state), len(readings.edge_state)
            # What is on the board at the start is taken as it is read (unknown as empty).
            self.v_state = np.maximum(readings.vertex_state, EMPTY)
            self.e_state = np.maximum(readings.edge_state, EMPTY)
            self._cand_v = self.v_state.copy()
            self._cand_e = self.e_state.copy()
            self._since_v = np.full(n_v, t)
            self._since_e = np.full(n_e, t)
            self._kind_e = _edge_kinds(readings)
            self._cand_kind_e = self._kind_e.copy()
        return True

    def _detector(self, homography: np.ndarray, hexes: object) -> PieceDetector:
        return PieceDetector(homography, hexes, self._sea, self._ships, px_per_unit=self.px)  # type: ignore[arg-type]

    def _same_orientation(self, homography: np.ndarray, frame: np.ndarray) -> PieceDetector:
        """The new registration turned by the grid rotation whose top view matches the old
        reference best, so that corners and sides keep their names."""
        assert self._reference is not None and self.detector is not None
        old = self.detector
        best, best_score = None, -np.inf
        for k in range(6):
            cand = self._detector(homography @ _plane_rotation(k), old.hexes)
            score = _ncc(_grey(cand.top_view(frame)), self._reference, old.land)
            if score > best_score:
                best, best_score = cand, score
        assert best is not None
        return best

    @staticmethod
    def _make_hex_masks(d: PieceDetector) -> list[np.ndarray]:
        """Flat top-view indices of the inner part of each hex (for the moved test)."""
        w, h = d.size
        ys, xs = np.mgrid[0:h, 0:w]
        masks = []
        for hx in d.hexes:
            c = d._to_top(np.array(hex_center(hx)))[0]
            inner = (xs - c[0]) ** 2 + (ys - c[1]) ** 2 <= (0.75 * d.px) ** 2
            masks.append(np.flatnonzero(inner))
        return masks

    # -- per frame ----------------------------------------------------------------------------

    def update(self, t: float, frame: np.ndarray) -> Observation | None:
        """Process one frame; returns an Observation when a change has become stable.

        Args:
            t: the frame's timestamp in seconds (increasing).
            frame: BGR uint8 (H, W, 3).
        """
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError("the frame must be a colour (H, W, 3) uint8 array")
        self.status.frames += 1
        if self.detector is None:
            self._register(t, frame)
            return None
        d = self.detector
        top = d.top_view(frame)
        grey = _grey(top)
        if self._board_moved(grey):
            log.info("the board moved: registering it again")
            self.status.detail = "the board moved: finding it again"
            self._last_try = None
            if not self._register(t, frame):
                self.status.registered = False
            return None
        covered, small, grown = self._occlusion(top, grey)
        self._heal(t, top, covered)
        self.status.covered_fraction = float(covered[d.land].mean()) if d.land.any() else 0.0
        pending = bool((self._cand_v != self.v_state).any() or (self._cand_e != self.e_state).any())
        if not small.any() and not pending:
            self.status.pending_sites = 0
            if not covered.any():
                # A calm frame equal to the reference: follow the lamp's slow drift.
                assert self._reference is not None and self._reference_bgr is not None
                self._reference = 0.9 * self._reference + 0.1 * grey
                self._reference_bgr = 0.9 * self._reference_bgr + 0.1 * top
                # Nothing differs from it anywhere: it shows every corner as it is.
                self._whole[:] = True
            return None
        self.status.reads += 1
        readings = d.read_top(top, covered, small)
        # A site can only have changed where its pixels differ from the reference: elsewhere
        # a different reading is the light or the classifier wavering, not a piece.
        # And a piece is small: when a site's surroundings changed as much as the site itself,
        # something larger lies over it (the soft rim of a glare spot, a shadow's edge).
        v_diff, e_diff = d.site_fractions(small)
        v_around, e_around = d.site_fractions(small, around=True)
        v_same = (v_diff < _SITE_CHANGED) | (v_around > _AROUND_CHANGED)
        e_same = (e_diff < _SITE_CHANGED) | ((e_around > _AROUND_CHANGED) & ~d.sea_edges)
        if self._healed is not None and t < self._healed[0]:
            # Sites under a region just taken into the reference are read for what they show.
            v_heal, e_heal = d.site_fractions(self._healed[1])
            v_same &= v_heal < _SITE_CHANGED
            e_same &= e_heal < _SITE_CHANGED
        readings.vertex_state[v_same & (readings.vertex_state != UNKNOWN)] = _SAME
        readings.edge_state[e_same & (readings.edge_state != UNKNOWN)] = _SAME
        observation = self._settle(t, readings, top, covered)
        if observation is not None or self.status.pending_sites:
            self._other_since = None
            return observation
        return self._other_change(t, grown, top, covered)

    def _other_change(
        self, t: float, small: np.ndarray, top: np.ndarray, covered: np.ndarray
    ) -> Observation | None:
        """Small differences that are no piece (the robber, the pirate, a token): once they
        have stayed the same for ``stable_s``, report the hexes they are on and take them into
        the reference (so they are not read again and again)."""
        assert self.detector is not None
        # Each blob belongs to the hex whose centre is nearest to its own: the robber stands
        # half a hex off its centre and would reach into a neighbour's disc. A hex's blobs
        # are counted together: a grey robber on grey rock differs in pieces, and one piece
        # wavering about the threshold would keep the change from ever being stable.
        n, _, stats, centroids = cv2.connectedComponentsWithStats(
            small.astype(np.uint8), connectivity=8
        )
        area: dict[Hex, int] = {}
        for a, c in zip(stats[1:, cv2.CC_STAT_AREA], centroids[1:], strict=True):
            hx = self.detector.hexes[int(np.argmin(np.linalg.norm(self._hex_centres - c, axis=1)))]
            area[hx] = area.get(hx, 0) + int(a)
        least = _HEX_CHANGE * self.px * self.px
        hexes = tuple(sorted(h for h, a in area.items() if a >= least))
        if self._other_since is None or self._other_since[1] != hexes:
            self._other_since = (t, hexes)
            return None
        if t - self._other_since[0] < self.stable_s:
            return None
        self._other_since = None
        self._set_reference(top, covered)
        if not hexes:
            return None
        detected = self.pieces()
        return Observation(
            t, tuple(p.to_piece() for p in detected), tuple(detected), changed_hexes=hexes
        )

    def _set_reference(
        self,
        top: np.ndarray,
        covered: np.ndarray | None = None,
        touched: np.ndarray | None = None,
    ) -> None:
        """Take ``top`` as the reference, except where it is covered (an occluder must never
        become part of the board: it would look like a change once it has gone).

        ``touched``: bool (V,) corners where a change was just committed (at them or at their
        sides). The part of their area disc kept from the old reference is older than the
        change: what the change put there would later differ from it and read as a city's
        gain, so their upgrade test waits for a renewal that sees the whole disc.
        """
        assert self.detector is not None
        new_bgr, new_grey = top.astype(np.float32), _grey(top)
        n_v = len(self.detector.topology.vertices)
        if covered is not None and self._reference_bgr is not None and covered.any():
            new_bgr[covered] = self._reference_bgr[covered]
            assert self._reference is not None
            new_grey[covered] = self._reference[covered]
            seen = self.detector.area_fractions(covered) == 0
            kept = self._whole if touched is None else self._whole & ~touched
            self._whole = seen | kept
        else:
            self._whole = np.ones(n_v, bool)
        self._reference_bgr, self._reference = new_bgr, new_grey

    def _heal(self, t: float, top: np.ndarray, covered: np.ndarray) -> None:
        """An occluder that has not changed for :data:`_HEAL_S` is part of the scene (a glare
        that was in the reference and is gone, a lamp's reflection that stays): take it into
        the reference, and read the sites under it for what they show for a while."""
        if not covered.any():
            self._still = None
            return
        if self._still is None or _iou(self._still[1], covered) < 0.9:
            self._still = (t, covered)
            return
        if t - self._still[0] < _HEAL_S:
            return
        assert self._reference_bgr is not None and self._reference is not None
        self._reference_bgr[covered] = top[covered]
        self._reference[covered] = _grey(top)[covered]
        self._healed = (t + 3 * self.stable_s + 0.5, covered)
        self._still = None

    def _board_moved(self, grey: np.ndarray) -> bool:
        assert self._reference is not None
        changed = 0
        g, r = grey.ravel(), self._reference.ravel()
        for idx in self._hex_masks:
            if _ncc_flat(g[idx], r[idx]) < _HEX_NCC:
                changed += 1
        if changed >= _MOVED_FRACTION * len(self._hex_masks):
            self._moved_frames += 1
        else:
            self._moved_frames = 0
        return self._moved_frames >= _MOVED_FRAMES

    def _occlusion(
        self, top: np.ndarray, grey: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(covered, changed, grown): bool top-view masks of the occluders (grown by the
        margin), of the small differences from the reference (where a piece may have
        changed), and of those differences with the faint difference joined to them (the
        whole footprint of what changed, for what is no piece)."""
        assert self._reference_bgr is not None and self.detector is not None
        px = self.detector.px
        ratio = difference(top, self._reference_bgr)
        # Hysteresis: occluders are the large blobs of even a faint difference (so the soft
        # rim of a glare spot or a shadow belongs to it); pieces are small, strong ones.
        faint = (ratio > _FAINT).astype(np.uint8)
        n, faint_labels, stats, _ = cv2.connectedComponentsWithStats(faint, connectivity=8)
        big = stats[:, cv2.CC_STAT_AREA] > _OCCLUDER_AREA * px * px
        big[0] = False
        occluder = big[faint_labels]
        strong = (ratio > _DIFF) & ~occluder
        n, labels, stats, _ = cv2.connectedComponentsWithStats(
            strong.astype(np.uint8), connectivity=8
        )
        keep = stats[:, cv2.CC_STAT_AREA] >= 0.01 * px * px  # not noise specks
        keep[0] = False
        small = keep[labels]
        # The same hysteresis for what is no piece: a grey robber on grey rock differs
        # strongly only in spots, but faintly over its whole footprint.
        seeded = np.zeros(len(big), bool)
        seeded[faint_labels[small]] = True
        seeded[0] = False
        grown = seeded[faint_labels] & ~big[faint_labels]
        current = np.clip(grey, 0, 255).astype(np.uint8)
        if self._previous is not None:
            occluder |= cv2.absdiff(current, self._previous) > _MOTION
        self._previous = current
        if occluder.any():
            r = max(1, int(round(_MARGIN * px)))
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
            occluder = cv2.dilate(occluder.astype(np.uint8), kernel) > 0
        return occluder, small, grown

    def _settle(
        self, t: float, readings: SiteReadings, top: np.ndarray, covered: np.ndarray
    ) -> Observation | None:
        assert self.detector is not None
        topo = self.detector.topology
        read_v = readings.vertex_state.copy()
        read_e = readings.edge_state.copy()
        read_v[read_v == _SAME] = self.v_state[read_v == _SAME]
        read_e[read_e == _SAME] = self.e_state[read_e == _SAME]
        gain = readings.vertex_gain
        assert gain is not None
        sides_moving = {
            v
            for e in np.flatnonzero((read_e != self.e_state) | (self._cand_e != self.e_state))
            for v in topo.edge_vertices[e]
        }
        # Buildings: a new one is a settlement; a settlement that gained enough of its colour
        # is a city (unless a side of its corner is changing too: a new road's edges may lie
        # off its band, and the hand placing it is there).
        for v in np.flatnonzero(read_v > EMPTY):
            c = (int(read_v[v]) - 1) // 2
            old = int(self.v_state[v])
            if old > EMPTY and (old - 1) // 2 == c:
                was_city = (old - 1) % 2 == 1
                grown = v not in sides_moving and self._whole[v] and gain[v] >= UPGRADE_GAIN
                read_v[v] = state_code(c, was_city or grown)
            else:
                read_v[v] = state_code(c, False)
        # A side's kind is as sure as its least sure reading while its candidate was held.
        kind_e = _edge_kinds(readings)
        same = readings.edge_state == _SAME
        kind_e[same] = self._kind_e[same]
        known_e = read_e != UNKNOWN
        fresh = known_e & (read_e != self._cand_e)
        held = known_e & ~fresh
        self._cand_kind_e[fresh] = kind_e[fresh]
        self._cand_kind_e[held] = np.minimum(self._cand_kind_e[held], kind_e[held])
        changed = []
        for read, cand, since, state in (
            (read_v, self._cand_v, self._since_v, self.v_state),
            (read_e, self._cand_e, self._since_e, self.e_state),
        ):
            known = read != UNKNOWN
            new = known & (read != cand)
            cand[new] = read[new]
            since[new] = t
            # A covered site keeps its candidate but must be seen again for the full time.
            since[~known] = t
            ready = known & (cand != state) & (t - since >= self.stable_s)
            changed.append(np.flatnonzero(ready))
        self.status.pending_sites = int(
            (self._cand_v != self.v_state).sum() + (self._cand_e != self.e_state).sum()
        )
        cv_, ce_ = changed
        if not len(cv_) and not len(ce_):
            return None
        self.v_state[cv_] = self._cand_v[cv_]
        self.e_state[ce_] = self._cand_e[ce_]
        self._kind_e[ce_] = self._cand_kind_e[ce_]
        touched = np.zeros(len(self.v_state), bool)
        touched[cv_] = True
        for e in ce_:
            touched[list(topo.edge_vertices[e])] = True
        # A site still waiting to be stable keeps its old view in the reference: taken in now,
        # its change would no longer differ from the reference and be lost (a ship moved: the
        # side it left settles before the side it went to).
        waiting = self.detector.sites_mask(
            self._cand_v != self.v_state, self._cand_e != self.e_state
        )
        self._set_reference(top, covered | waiting, touched)
        detected = self.pieces()
        where = [tuple(topo.vertices[v]) for v in cv_] + [tuple(topo.edges[e]) for e in ce_]
        doubt = [e for e in ce_ if self.e_state[e] > EMPTY and self._kind_e[e] < KIND_CERTAIN]
        return Observation(
            t,
            tuple(p.to_piece() for p in detected),
            tuple(detected),
            changed=tuple(where),
            doubtful_kinds=tuple(topo.edges[e] for e in doubt),
        )

    def pieces(self) -> list[DetectedPiece]:
        """The committed pieces (what the last observation said)."""
        if self.detector is None:
            return []
        t = self.detector.topology
        return pieces_from_states(
            t.vertices, t.edges, self.v_state, self.e_state, edge_kind_conf=self._kind_e
        )


def _edge_kinds(readings: SiteReadings) -> np.ndarray:
    """float64 (E,) the readings' kind confidence per side (1 where none is given)."""
    if readings.edge_kind_conf is None:
        return np.ones(len(readings.edge_state))
    return readings.edge_kind_conf.astype(np.float64)


def difference(top: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """float32 (H, W): how much a top view (BGR, (H, W, 3)) differs from a reference top view
    of the same board, as |log| of the brightness ratio of its most changed channel, less the
    view's median change per channel (the lamp's overall drift and tint). Per channel, so an
    orange piece on yellow fields (the same grey) is a change too; above ``_DIFF`` a piece
    may have changed there.

    >>> ref = np.full((2, 2, 3), 100, np.uint8)
    >>> top = ref.copy(); top[0, 0] = (100, 100, 180)
    >>> (difference(top, ref) > _DIFF).tolist()
    [[True, False], [False, False]]
    """
    ref = reference.astype(np.float32) if reference.dtype == np.uint8 else reference
    ratio = np.log((top.astype(np.float32) + 8.0) / (ref + 8.0))
    ratio -= np.median(ratio.reshape(-1, 3), axis=0)
    return np.abs(ratio).max(axis=2)


def _grey(top: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else 1.0


def _ncc_flat(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 1e-6 else 1.0


def _ncc(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None) -> float:
    if mask is not None and mask.shape == a.shape:
        return _ncc_flat(a[mask], b[mask])
    return _ncc_flat(a.ravel(), b.ravel())


def _plane_rotation(k: int) -> np.ndarray:
    """Board-plane rotation by ``k`` x 60 degrees about the origin (3x3 homogeneous)."""
    a = np.radians(60.0 * k)
    return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
