"""Terrain classification: joint with the material counts, robust to light."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest

from companion.board import Terrain, hex_center
from vision.synth.boards import SEAFARERS_LAND
from vision.terrain import (
    COUNTS,
    PROTOTYPES,
    apply_gains,
    bgr_to_lab,
    chip_light,
    chip_paper,
    classify_terrain,
    hex_features,
    lab_to_bgr,
    stray_discs,
)


def _base_features(rng: np.random.Generator) -> tuple[np.ndarray, list[Terrain]]:
    """Features of a base board's 19 hexes: each terrain's first prototype plus noise."""
    truth = list(COUNTS["base"].elements())
    rng.shuffle(truth)
    feats = np.array([PROTOTYPES[t][0] for t in truth], float)
    feats[:, :3] += rng.normal(0, 2.0, (len(truth), 3))
    return feats, truth


def test_prototype_colours_are_read_back() -> None:
    feats, truth = _base_features(np.random.default_rng(1))
    out = classify_terrain(feats, kind="base")
    assert [r.terrain for r in out] == truth
    assert all(r.confidence > 0.5 for r in out)


def test_counts_are_a_constraint() -> None:
    # Two hexes look like fields; the base board has 4 fields, so with 5 field-like hexes
    # one of them must be the desert it most resembles.
    feats, truth = _base_features(np.random.default_rng(2))
    desert = truth.index(Terrain.DESERT)
    feats[desert] = PROTOTYPES[Terrain.FIELDS][0]
    feats[desert, 0] += 4.0  # a little lighter, as sand is
    out = classify_terrain(feats, kind="base")
    assert Counter(r.terrain for r in out) == COUNTS["base"]
    free = classify_terrain(feats)  # without counts, five fields
    assert Counter(r.terrain for r in free)[Terrain.FIELDS] == 5


@pytest.mark.parametrize("gains", [(0.6, 0.6, 0.6), (1.15, 1.0, 0.8), (0.8, 0.95, 1.2)])
def test_white_balance_and_brightness_do_not_change_the_reading(
    gains: tuple[float, float, float],
) -> None:
    # A dim lamp, a warm one, a cold one: each multiplies the camera's B, G, R channels.
    feats, truth = _base_features(np.random.default_rng(3))
    spoilt = apply_gains(feats, np.array(gains))
    assert [r.terrain for r in classify_terrain(spoilt, kind="base")] == truth


def test_a_hex_in_shadow_is_read_by_its_chips_light() -> None:
    # Six hexes lie in a shadow that halves the light; their chips are as dark.
    feats, truth = _base_features(np.random.default_rng(10))
    light = np.ones(len(truth))
    light[:6] = 0.5
    spoilt = apply_gains(feats, light[:, None])
    out = classify_terrain(spoilt, kind="base", light=light)
    assert [r.terrain for r in out] == truth


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_a_hex_that_looks_like_no_terrain_takes_what_the_counts_leave(seed: int) -> None:
    # A red rulebook corner lies over a mountains hex: it is nearer hills than anything, but
    # must not push a well-seen hills hex out of its slot; it is flagged, not trusted.
    feats, truth = _base_features(np.random.default_rng(seed))
    covered = truth.index(Terrain.MOUNTAINS)
    feats[covered] = (50.0, 45.0, 60.0, 3.0)
    out = classify_terrain(feats, kind="base")
    assert [r.terrain for r in out] == truth
    assert out[covered].unseen
    assert out[covered].confidence < 0.9
    assert not any(r.unseen for i, r in enumerate(out) if i != covered)


def test_seafarers_terrain_is_read_against_the_boards_own_print() -> None:
    # No counts on a Seafarers map; this board's fields are printed more golden than the
    # stock fields, yet still less so than its gold.
    rng = np.random.default_rng(0)
    truth = list(SEAFARERS_LAND)
    rng.shuffle(truth)
    feats = np.array([PROTOTYPES[t][0] for t in truth], float)
    feats[:, :3] += rng.normal(0, 1.5, (len(truth), 3))
    fields = [i for i, t in enumerate(truth) if t == Terrain.FIELDS]
    feats[fields, 1:3] += (8.0, 6.0)
    out = classify_terrain(feats, kind="seafarers")
    assert [r.terrain for r in out] == truth


def test_chip_light_is_each_chips_paper_against_the_boards() -> None:
    px = 30.0
    hexes = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (3, 0)]
    top = np.full((200, 320, 3), (60, 150, 90), np.uint8)
    discs = {}
    for h in hexes[:-1]:
        cx, cy = hex_center(h)
        x, y = cx * px + 60, cy * px + 60
        cv2.circle(top, (int(x), int(y)), 10, (200, 225, 235), -1)
        cv2.putText(top, "8", (int(x) - 4, int(y) + 4), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0))
        discs[h] = (x, y, 10.0)
    # A shadow over the hexes of the first row halves their light.
    top[: int(60 + 0.5 * 1.5 * px)] //= 2
    light = chip_light(chip_paper(top, hexes, discs), hexes)
    lit = light[3]
    assert light[:3] / lit == pytest.approx([0.5] * 3, abs=0.03)
    assert light[3:6] / lit == pytest.approx([1.0] * 3, abs=0.03)
    # Relative to the board's median chip, between the shadow's and the lit ones'.
    assert 0.5 < light[0] < 1.0 < lit
    # (3, 0) has no chip: it takes its neighbours' light, (2, 0) in shadow and (2, 1) not.
    assert light[6] == pytest.approx((light[2] + light[5]) / 2)


def test_a_disc_of_sea_taken_for_a_chip_gives_its_hex_no_light() -> None:
    # bench vision seed 37, render 74: registration found a "chip" on open sea; its blue,
    # read as paper, said the hex lay in a deep shadow (light 0.57).
    px = 30.0
    hexes = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (3, 0)]
    top = np.full((200, 320, 3), (60, 150, 90), np.uint8)
    discs = {}
    for h in hexes:
        cx, cy = hex_center(h)
        x, y = cx * px + 60, cy * px + 60
        paper = (190, 103, 38) if h == (3, 0) else (200, 225, 235)  # the last one is sea
        cv2.circle(top, (int(x), int(y)), 10, paper, -1)
        discs[h] = (x, y, 10.0)
    papers = chip_paper(top, hexes, discs)
    assert np.isnan(papers[6])
    assert np.isfinite(papers[:6]).all()
    assert chip_light(papers, hexes)[6] == pytest.approx(1.0)


def test_sea_hexes_stay_sea_and_out_of_the_counts() -> None:
    feats, truth = _base_features(np.random.default_rng(4))
    sea_feat = np.array([PROTOTYPES[Terrain.SEA][0]])
    all_feats = np.vstack([feats, sea_feat, sea_feat])
    sea = np.array([False] * len(feats) + [True, True])
    out = classify_terrain(all_feats, kind="base", sea=sea)
    assert [r.terrain for r in out[-2:]] == [Terrain.SEA, Terrain.SEA]
    assert [r.terrain for r in out[:-2]] == truth


def test_impossible_counts_fall_back_to_free_choice() -> None:
    feats, _ = _base_features(np.random.default_rng(5))
    out = classify_terrain(feats[:10], kind="base")  # 10 hexes cannot hold 19 tiles
    assert len(out) == 10
    assert all(r.terrain != Terrain.GOLD for r in out)


def test_hex_features_measure_each_hex_ring() -> None:
    # A synthetic top view: each hex painted one flat colour, a white chip in the middle.
    px = 30.0
    hexes = [(0, 0), (1, 0)]
    plane_to_top = np.array([[px, 0, 60.0], [0, px, 60.0], [0, 0, 1]])
    top = np.zeros((140, 200, 3), np.uint8)
    colours = [(40, 110, 50), (60, 190, 220)]
    for h, colour in zip(hexes, colours, strict=True):
        cx, cy = hex_center(h)
        centre = (int(cx * px + 60), int(cy * px + 60))
        cv2.circle(top, centre, int(0.9 * px), colour, -1)
        cv2.circle(top, centre, int(0.35 * px), (235, 240, 240), -1)
    feats = hex_features(top, plane_to_top, hexes)
    for f, colour in zip(feats, colours, strict=True):
        lab = cv2.cvtColor(np.uint8([[colour]]), cv2.COLOR_BGR2Lab)[0, 0].astype(float)
        assert f[0] == pytest.approx(lab[0] * 100 / 255, abs=1.0)
        assert f[1] == pytest.approx(lab[1] - 128, abs=1.0)
        assert f[3] == pytest.approx(0.0, abs=0.5)  # flat colour: no texture


def _seafarers_features(rng: np.random.Generator) -> tuple[np.ndarray, list[Terrain]]:
    """A Seafarers-like map: its land from the stock prototypes, then 12 sea hexes."""
    truth = list(SEAFARERS_LAND)
    rng.shuffle(truth)
    truth += [Terrain.SEA] * 12
    feats = np.array([PROTOTYPES[t][0] for t in truth], float)
    feats[:, :3] += rng.normal(0, 1.5, (len(truth), 3))
    return feats, truth


def test_sea_that_registration_missed_is_read_as_this_boards_sea() -> None:
    # Registration's blue test found 10 of the 12 sea hexes; this board's sea is greener
    # than the stock sea, and the two it missed look like it.
    feats, truth = _seafarers_features(np.random.default_rng(1))
    sea_rows = [i for i, t in enumerate(truth) if t == Terrain.SEA]
    feats[sea_rows, 1:3] += (-12.0, 14.0)
    found = np.array([i in sea_rows[2:] for i in range(len(truth))])
    out = classify_terrain(feats, kind="seafarers", sea=found)
    assert [r.terrain for r in out] == truth


def test_gold_never_outnumbers_fields() -> None:
    # A warm lamp the light estimate missed makes every field look golden: the most golden
    # hexes are the gold, the others fields.
    feats, truth = _seafarers_features(np.random.default_rng(2))
    yellow = [i for i, t in enumerate(truth) if t in (Terrain.FIELDS, Terrain.GOLD)]
    feats[yellow, 1:3] += (12.0, 12.0)
    sea = np.array([t == Terrain.SEA for t in truth])
    out = classify_terrain(feats, kind="seafarers", sea=sea)
    read = Counter(r.terrain for r in out)
    assert read[Terrain.GOLD] <= read[Terrain.FIELDS]
    assert [r.terrain for r in out] == truth


def test_a_hidden_hex_is_unseen_and_takes_what_the_counts_leave() -> None:
    feats, truth = _base_features(np.random.default_rng(11))
    covered = truth.index(Terrain.FOREST)
    feats[covered] = PROTOTYPES[Terrain.DESERT][0]  # a hand, as light as sand
    hidden = np.arange(len(truth)) == covered
    out = classify_terrain(feats, kind="base", hidden=hidden)
    assert [r.terrain for r in out] == truth
    assert out[covered].unseen and out[covered].confidence < 0.9


def test_sea_that_registration_missed_does_not_tint_the_land() -> None:
    # Registration's blue test found half of the map's sea: the other half, counted as land
    # in the light estimate, made the board look bluer than it is, and the gains that undid
    # that tint read three mountains as desert and the desert as fields. The land's light is
    # measured again on the hexes read as land.
    feats, truth = _seafarers_features(np.random.default_rng(3))
    sea_rows = [i for i, t in enumerate(truth) if t == Terrain.SEA]
    found = np.array([i in sea_rows[6:] for i in range(len(truth))])
    out = classify_terrain(feats, kind="seafarers", sea=found)
    assert [r.terrain for r in out] == truth


@pytest.mark.parametrize("kind", ["base", None])
def test_a_hex_holding_a_read_chip_is_neither_desert_nor_sea(kind: str | None) -> None:
    # A fields hex washed out to the desert's sand colour, the desert looking like fields:
    # read alone the fields hex is the desert; its chip, read surely, says it is not.
    feats, truth = _base_features(np.random.default_rng(3))
    desert = truth.index(Terrain.DESERT)
    fields = truth.index(Terrain.FIELDS)
    feats[[desert, fields]] = feats[[fields, desert]]
    assert classify_terrain(feats, kind=kind)[fields].terrain == Terrain.DESERT
    chipped = np.zeros(len(truth), bool)
    chipped[fields] = True
    out = classify_terrain(feats, kind=kind, chipped=chipped)
    assert out[fields].terrain not in (Terrain.DESERT, Terrain.SEA)
    if kind == "base":
        assert Counter(r.terrain for r in out) == COUNTS["base"]


def test_a_maps_counts_give_a_hand_hidden_sea_hex_the_sea_they_leave() -> None:
    # A hand lies over a sea hex that registration's blue test therefore missed: read freely
    # it is some land the hand's skin resembles; the map's counts (sea included) leave one
    # sea for the hexes not found sea, and the one under the hand takes it, unseen.
    feats, truth = _seafarers_features(np.random.default_rng(12))
    under = [i for i, t in enumerate(truth) if t == Terrain.SEA][0]
    feats[under] = (70.0, 15.0, 25.0, 2.0)  # skin
    hidden = np.arange(len(truth)) == under
    found = np.array([t == Terrain.SEA for t in truth]) & ~hidden
    free = classify_terrain(feats, kind="seafarers", sea=found, hidden=hidden)
    assert free[under].terrain != Terrain.SEA
    pool = Counter(truth)
    out = classify_terrain(feats, kind="seafarers", sea=found, hidden=hidden, counts=pool)
    assert [r.terrain for r in out] == truth
    assert out[under].unseen and out[under].confidence <= 0.5


def test_a_maps_counts_hold_its_gold_where_glare_hides_it() -> None:
    # A gold hex under a glare spot has lost most of its red: read freely it is fields; the
    # map has two gold, and no fields hex looks as golden, so the counts keep it gold.
    feats, truth = _seafarers_features(np.random.default_rng(13))
    gold = truth.index(Terrain.GOLD)
    fields, rich = (np.array(PROTOTYPES[t][0]) for t in (Terrain.FIELDS, Terrain.GOLD))
    feats[gold] = fields + 0.4 * (rich - fields)
    sea = np.array([t == Terrain.SEA for t in truth])
    assert classify_terrain(feats, kind="seafarers", sea=sea)[gold].terrain == Terrain.FIELDS
    out = classify_terrain(feats, kind="seafarers", sea=sea, counts=Counter(truth))
    assert Counter(r.terrain for r in out) == Counter(truth)
    assert out[gold].terrain == Terrain.GOLD


def test_gold_under_a_lamp_that_clips_its_red_and_the_chips_is_read_gold() -> None:
    # A bright lamp (1.35 times the light, every chip alike) clips the red of gold and fields:
    # on a print whose gold is a little yellower and whose fields a little greener than the
    # stock ones (as print runs differ), the gold's red is cut further than the stock gold's
    # would be, and the clipped gold looked like fields.
    feats, truth = _seafarers_features(np.random.default_rng(1))
    bgr = lab_to_bgr(feats[:, :3])
    gold = [i for i, t in enumerate(truth) if t == Terrain.GOLD]
    fields = [i for i, t in enumerate(truth) if t == Terrain.FIELDS]
    bgr[gold] *= [1.0, 1.15, 1.0]
    bgr[fields] *= [1.0, 0.94, 1.0]
    feats[:, :3] = bgr_to_lab(np.clip(bgr * 1.35, 0.0, 1.0))
    sea = np.array([t == Terrain.SEA for t in truth])
    out = classify_terrain(feats, kind="seafarers", sea=sea, light=np.ones(len(truth)))
    assert [r.terrain for r in out] == truth
    assert all(out[i].confidence >= 0.9 for i in gold)


def test_a_glared_hex_of_a_map_read_freely_is_read_as_the_glare_explains_it() -> None:
    # A glare spot adds white to a fields hex and to its chip alike (bench vision seed 0,
    # render 263): divided by the chip's light, as if the lamp were brighter there, the
    # washed-out fields looked like desert. Without counts the glare's explanation reads it
    # where it explains the hex better, by more than its prior, than more light does.
    feats, truth = _seafarers_features(np.random.default_rng(5))
    paper = 0.5  # a dim room: the board's chips at half of white, nothing clips
    field = truth.index(Terrain.FIELDS)
    white = 0.15
    bgr = lab_to_bgr(feats[:, :3]) * 0.6
    bgr[field] += white
    feats[:, :3] = bgr_to_lab(bgr)
    light = np.ones(len(truth))
    light[field] = 1.0 + white / paper
    sea = np.array([t == Terrain.SEA for t in truth])
    out = classify_terrain(feats, kind="seafarers", sea=sea, light=light, paper=paper)
    assert [r.terrain for r in out] == truth


def test_a_hex_a_hand_touches_vouches_for_no_other_hexs_reading() -> None:
    # bench vision --real-hands, catan_55: two fields hexes of the old art each looked half
    # desert; a hand's shadow over one made it look surely fields, and the other, clear of
    # the hand, was read desert with 0.96. A hex a hand reaches into says nothing of where
    # the desert is not.
    feats, truth = _base_features(np.random.default_rng(4))
    desert = truth.index(Terrain.DESERT)
    shaded = truth.index(Terrain.FIELDS)
    between = 0.55 * np.array(PROTOTYPES[Terrain.DESERT][0]) + 0.45 * np.array(
        PROTOTYPES[Terrain.FIELDS][0]
    )
    feats[desert] = between
    free = classify_terrain(feats, kind="base")
    assert free[desert].terrain == Terrain.DESERT and free[desert].confidence >= 0.9
    touched = np.zeros(len(truth), bool)
    touched[shaded] = True
    read = classify_terrain(feats, kind="base", touched=touched)
    assert [r.terrain for r in read] == [r.terrain for r in free]
    assert read[desert].confidence < 0.9


def test_a_hex_far_from_the_stock_art_but_like_its_boards_print_is_seen() -> None:
    # This board's mountains are printed bluer than the stock art: two a little, one beyond
    # every stock prototype. It looks like the board's other mountains, so it is its
    # terrain seen, not a hand or a book over it.
    feats, truth = _base_features(np.random.default_rng(4))
    mountains = [i for i, t in enumerate(truth) if t == Terrain.MOUNTAINS]
    feats[mountains[:2]] = (58.0, 11.0, -20.0, 5.0)
    feats[mountains[2]] = (56.0, 15.0, -30.0, 4.6)
    out = classify_terrain(feats, kind="base")
    assert [r.terrain for r in out] == truth
    assert not out[mountains[2]].unseen and out[mountains[2]].confidence >= 0.9


def test_a_disc_beyond_the_view_has_no_paper() -> None:
    from vision.terrain import disc_paper

    top = np.full((20, 30, 3), 200, np.uint8)
    assert disc_paper(top, (100.0, 5.0, 4.0)) is None
    grey, colour = disc_paper(top, (15.0, 10.0, 6.0))
    assert grey == 200.0 and colour.tolist() == [200.0, 200.0, 200.0]


def test_a_disc_the_reader_found_on_the_art_is_no_chip() -> None:
    # Registration's chips give the board's paper; a disc the reader found alone (a Hough
    # circle on a pasture's sheep under a hand's change of the lattice: bench vision
    # --real-hands 4 seed 4, vieja_F_0, whose 11 was read off the sheep as 4 at 0.96) whose
    # colour is the grass's is a stray, and one of the paper's is not.
    top = np.full((200, 400, 3), (60, 150, 90), np.uint8)
    hexes = [(q, 0) for q in range(8)]
    discs = {}
    for q, h in enumerate(hexes):
        x, y = 40 + 45 * q, 100
        paper = (90, 185, 170) if h == (6, 0) else (200, 225, 235)  # (6, 0): sheep on grass
        cv2.circle(top, (x, y), 15, paper, -1)
        discs[h] = (float(x), float(y), 15.0)
    assert stray_discs(top, discs, set(hexes[:6])) == {(6, 0)}
    # Too few trusted chips to know the board's paper: nothing is ruled out.
    assert stray_discs(top, discs, set(hexes[:3])) == set()
    # A disc beyond the view shows no paper and is not ruled out by it.
    assert stray_discs(top, discs | {(9, 0): (900.0, 100.0, 15.0)}, set(hexes[:6])) == {(6, 0)}
