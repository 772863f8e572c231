"""LED maps of every frame shape, and dice from every source."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.board import base_frame, extension_frame
from firmware_bridge.dice import DiceRoll, DiceSource, host_roll, manual_roll, parse_dice
from firmware_bridge.driver import describe_roll
from firmware_bridge.leds import LedMap
from firmware_bridge.protocol import DiceKind


def _frame(radius: int) -> list[tuple[int, int]]:
    return [
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(max(-radius, -radius - r), min(radius, radius - r) + 1)
    ]


@pytest.mark.parametrize(
    ("hexes", "per_hex"), [(base_frame(), 1), (base_frame(), 3), (extension_frame(), 2)]
)
def test_serpentine_gives_each_hex_its_own_consecutive_leds(
    hexes: list[tuple[int, int]], per_hex: int
) -> None:
    m = LedMap.serpentine(hexes, per_hex)
    assert m.n_leds == len(hexes) * per_hex
    for ids in m.leds.values():
        assert list(ids) == list(range(ids[0], ids[0] + per_hex))
    assert sorted(i for ids in m.leds.values() for i in ids) == list(range(m.n_leds))


def test_serpentine_turns_round_at_the_end_of_each_row() -> None:
    m = LedMap.serpentine(_frame(2))
    first_row = [m.leds[(q, -2)][0] for q in range(0, 3)]
    second_row = [m.leds[(q, -1)][0] for q in range(-1, 3)]
    assert first_row == [0, 1, 2]
    assert second_row == [6, 5, 4, 3]  # right to left, continuing from the row above


def test_led_map_json_round_trip_and_errors(tmp_path) -> None:  # noqa: ANN001
    m = LedMap.serpentine(_frame(1), 2)
    assert LedMap.from_json(m.to_json()) == m
    path = tmp_path / "map.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        LedMap.load(path)
    with pytest.raises(ValueError, match="look like 'q,r'"):
        LedMap.from_json({"0;0": [1]})
    with pytest.raises(ValueError, match="mapped to both"):
        LedMap({(0, 0): (1,), (1, 0): (1,)})
    with pytest.raises(ValueError, match="has no LEDs"):
        LedMap({(0, 0): ()})
    with pytest.raises(ValueError, match="leds_per_hex"):
        LedMap.serpentine(_frame(1), 0)


def test_host_roll_is_fair() -> None:
    rng = random.Random(2024)
    counts: Counter[int] = Counter()
    for _ in range(12_000):
        roll = host_roll(DiceKind.TWO_D6, rng)
        assert roll.source == DiceSource.HOST
        counts.update(roll.values)
    chi2 = sum((counts[v] - 4000) ** 2 / 4000 for v in range(1, 7))
    assert chi2 < 20.515  # p = 0.001, 5 degrees of freedom


def test_manual_dice_are_parsed_and_validated() -> None:
    assert parse_dice("3 4") == parse_dice("3,4") == parse_dice("34") == [3, 4]
    roll = manual_roll(DiceKind.TWO_D6, parse_dice("6 6"))
    assert roll.total == 12 and roll.source == DiceSource.MANUAL
    with pytest.raises(ValueError, match="numbers like"):
        parse_dice("three four")
    with pytest.raises(ValueError, match="needs 2"):
        manual_roll(DiceKind.TWO_D6, [3])


def test_resource_dice_faces_and_json() -> None:
    roll = DiceRoll(DiceKind.RESOURCE, (0, 1, 2, 3, 4, 5), DiceSource.BUTTON)
    assert roll.faces == ("wool", "grain", "brick", "ore", "lumber", "gold")
    with pytest.raises(ValueError, match="no total"):
        _ = roll.total
    assert roll.to_json() == {
        "kind": "resource",
        "values": [0, 1, 2, 3, 4, 5],
        "source": "button",
    }
    assert describe_roll(roll).startswith("wool, grain")
    assert describe_roll(manual_roll(DiceKind.TWO_D6, [2, 5])) == "2 + 5 = 7 (manual)"
