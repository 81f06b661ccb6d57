"""Rule sets: presets (the rule book (section 8)), variants, validation, decks, serialisation."""

from __future__ import annotations

import dataclasses
import json
import tomllib

import pytest

from yaniv_sim import Rules

# the rule book (section 8), written out by hand.
STANDARD_TABLE = {
    "threshold": 7,
    "assaf": True,
    "assaf_penalty": 30,
    "assaf_winner_scores": "zero",
    "joker_in_sets": True,
    "set_draw": "any",
    "jokers_per_deck": 2,
    "decks": "auto",
    "auto_two_decks_from": 6,
    "two_decks_min_players": 2,
    "milestones": ((50, 25), (100, 50)),
    "limit": 200,
    "starter": "rotate",
    "slapdown": False,
    "milestone_theft": False,
}
NORDIC_TABLE = {
    "threshold": 5,
    "assaf": True,
    "assaf_penalty": 30,
    "assaf_winner_scores": "hand",
    "joker_in_sets": False,
    "set_draw": "ends",
    "jokers_per_deck": 2,
    "decks": 1,
    "auto_two_decks_from": 4,
    "two_decks_min_players": 4,
    "milestones": ((100, 50), (200, 100)),
    "limit": 200,
    "starter": "winner",
    "slapdown": False,
    "milestone_theft": False,
}
# Section 8b defaults and section 3's turn cap, the same for both presets.
HOUSE_DEFAULTS = {
    "hand_size": 5,
    "assaf_adds_hand": True,
    "empty_stock": "reshuffle",
    "max_turns": 1000,
}
VARIANT_TABLE = {
    "yaniv5": {"threshold": 5},
    "yaniv9": {"threshold": 9},
    "no-assaf": {"assaf": False},
    "slapdown": {"slapdown": True},
    "double-joker": {"jokers_per_deck": 4},
    "milestone-theft": {"milestone_theft": True},
}
PRESET_TABLES = {"standard": STANDARD_TABLE, "nordic": NORDIC_TABLE}


def one_line_error(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message.strip()
    return message


# -- presets -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard", "nordic"])
@pytest.mark.parametrize("field", list(STANDARD_TABLE))
def test_preset_matches_the_rule_book_table(name, field):
    rules = Rules.preset(name)
    assert getattr(rules, field) == PRESET_TABLES[name][field]


@pytest.mark.parametrize("name", ["standard", "nordic"])
@pytest.mark.parametrize("field", list(HOUSE_DEFAULTS))
def test_preset_house_rule_defaults(name, field):
    assert getattr(Rules.preset(name), field) == HOUSE_DEFAULTS[field]


def test_preset_default_name_is_standard_and_equals_default_rules():
    assert Rules.preset() == Rules.preset("standard")
    assert Rules() == Rules.preset("standard")


def test_presets_differ():
    assert Rules.preset("standard") != Rules.preset("nordic")


def test_milestones_are_a_sorted_tuple_of_pairs():
    rules = Rules(milestones={100: 50, 50: 25})
    assert rules.milestones == ((50, 25), (100, 50))
    assert Rules(milestones=[(200, 100), (100, 50)]).milestones == ((100, 50), (200, 100))
    assert Rules(milestones={"150": 75}).milestones == ((150, 75),)
    assert Rules(milestones={}).milestones == ()


# -- variants and overrides ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard", "nordic"])
@pytest.mark.parametrize("variant", list(VARIANT_TABLE))
def test_each_variant_changes_only_its_field(name, variant):
    rules = Rules.preset(name, variants=[variant])
    base = Rules.preset(name)
    expected = dataclasses.asdict(base) | VARIANT_TABLE[variant]
    assert dataclasses.asdict(rules) == expected
    field, value = next(iter(VARIANT_TABLE[variant].items()))
    assert getattr(rules, field) == value


def test_variants_combine():
    rules = Rules.preset("nordic", variants=["yaniv9", "slapdown", "double-joker"])
    assert rules.threshold == 9
    assert rules.slapdown is True
    assert rules.jokers_per_deck == 4
    assert rules.set_draw == "ends"


def test_overrides_apply_on_top_of_preset_and_variants():
    rules = Rules.preset("standard", variants=["yaniv5"], threshold=3, limit=100)
    assert rules.threshold == 3
    assert rules.limit == 100
    assert rules.milestones == ((50, 25), (100, 50))


def test_override_of_every_house_rule_field():
    rules = Rules.preset(
        "nordic",
        hand_size=7,
        threshold=11,
        assaf_penalty=25,
        assaf_adds_hand=False,
        assaf_winner_scores="all_zero",
        milestones={50: 0, 100: 50, 150: 100, 200: 150},
        limit=100,
        empty_stock="end_round",
        max_turns=50,
        max_rounds=20,
    )
    assert rules.hand_size == 7
    assert rules.threshold == 11
    assert rules.assaf_penalty == 25
    assert rules.assaf_adds_hand is False
    assert rules.assaf_winner_scores == "all_zero"
    assert rules.milestones == ((50, 0), (100, 50), (150, 100), (200, 150))
    assert rules.limit == 100
    assert rules.empty_stock == "end_round"
    assert rules.max_turns == 50
    assert rules.max_rounds == 20
    assert rules.starter == "winner"


def test_replace_changes_and_validates():
    rules = Rules.preset("standard")
    assert rules.replace(threshold=5).threshold == 5
    assert rules.threshold == 7
    with pytest.raises(ValueError, match="threshold"):
        rules.replace(threshold=99)
    with pytest.raises(ValueError, match="nonsense"):
        rules.replace(nonsense=1)


# -- validation ----------------------------------------------------------------------------


def test_unknown_preset():
    with pytest.raises(ValueError) as info:
        Rules.preset("german")
    assert "german" in one_line_error(info)


def test_unknown_variant():
    with pytest.raises(ValueError) as info:
        Rules.preset("standard", variants=["yaniv5", "yaniv7"])
    assert "yaniv7" in one_line_error(info)


def test_unknown_field_in_overrides():
    with pytest.raises(ValueError) as info:
        Rules.preset("standard", treshold=5)
    assert "treshold" in one_line_error(info)


def test_unknown_field_in_from_dict():
    with pytest.raises(ValueError) as info:
        Rules.from_dict({"threshold": 5, "jokers": 3})
    assert "jokers" in one_line_error(info)


def test_rules_are_keyword_only():
    with pytest.raises(TypeError):
        Rules(7)  # type: ignore[misc]


@pytest.mark.parametrize(
    "field, value",
    [
        ("threshold", -1),
        ("threshold", 16),
        ("assaf_penalty", -1),
        ("assaf_penalty", 101),
        ("jokers_per_deck", -1),
        ("jokers_per_deck", 5),
        ("auto_two_decks_from", 1),
        ("auto_two_decks_from", 9),
        ("two_decks_min_players", 1),
        ("two_decks_min_players", 9),
        ("limit", 0),
        ("limit", 10001),
        ("hand_size", 4),
        ("hand_size", 8),
        ("max_turns", 0),
        ("max_rounds", 0),
    ],
)
def test_integer_out_of_range(field, value):
    with pytest.raises(ValueError) as info:
        Rules(**{field: value})
    assert field in one_line_error(info)


@pytest.mark.parametrize(
    "field, value",
    [
        ("threshold", 0),
        ("threshold", 15),
        ("assaf_penalty", 0),
        ("assaf_penalty", 100),
        ("jokers_per_deck", 0),
        ("jokers_per_deck", 4),
        ("limit", 1),
        ("limit", 10000),
        ("hand_size", 5),
        ("hand_size", 7),
        ("two_decks_min_players", 2),
        ("two_decks_min_players", 6),
    ],
)
def test_integer_range_ends_are_allowed(field, value):
    assert getattr(Rules(**{field: value}), field) == value


@pytest.mark.parametrize(
    "field, value",
    [
        ("threshold", "7"),
        ("threshold", 7.0),
        ("threshold", True),
        ("limit", None),
        ("hand_size", 5.5),
        ("assaf", 1),
        ("assaf", "yes"),
        ("assaf_adds_hand", None),
        ("joker_in_sets", 0),
        ("slapdown", "false"),
        ("milestone_theft", 1),
        ("decks", 3),
        ("decks", 0),
        ("decks", "two"),
        ("decks", True),
        ("decks", 2.0),
        ("decks", 1.0),
        ("decks", "2"),
        ("decks", "Auto"),
        ("assaf_winner_scores", "lowest"),
        ("assaf_winner_scores", "Zero"),
        ("set_draw", "middle"),
        ("starter", "random"),
        ("empty_stock", "stop"),
    ],
)
def test_wrong_type_or_choice(field, value):
    with pytest.raises(ValueError) as info:
        Rules(**{field: value})
    assert field in one_line_error(info)


@pytest.mark.parametrize(
    "milestones",
    [
        {50: 60},
        {50: 50},
        {0: 0},
        {-10: -20},
        {50: -1},
        {50: "x"},
        {"fifty": 25},
        "50:25",
        50,
        [(50, 25), (50, 20)],
        [(50, 25, 10)],
        {10001: 5},
        {50.5: 25},
        {True: 0},
    ],
)
def test_bad_milestones(milestones):
    with pytest.raises(ValueError) as info:
        Rules(milestones=milestones)
    assert "milestones" in one_line_error(info)


def test_auto_decks_from_below_min_players_is_a_conflict():
    with pytest.raises(ValueError) as info:
        Rules(decks="auto", auto_two_decks_from=3, two_decks_min_players=4)
    message = one_line_error(info)
    assert "auto_two_decks_from" in message or "two_decks_min_players" in message


def test_auto_decks_conflict_does_not_apply_with_a_fixed_deck_count():
    rules = Rules(decks=1, auto_two_decks_from=3, two_decks_min_players=4)
    assert rules.decks_for(3) == 1


# -- decks and deal feasibility ----------------------------------------------------------------


@pytest.mark.parametrize("players, decks", [(2, 1), (3, 1), (4, 1), (5, 1), (6, 2), (7, 2), (8, 2)])
def test_standard_uses_two_decks_from_six_players(players, decks):
    rules = Rules.preset("standard")
    assert rules.decks_for(players) == decks
    assert rules.deck_size(players) == decks * 54


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_nordic_uses_one_deck(players):
    rules = Rules.preset("nordic")
    assert rules.decks_for(players) == 1
    assert rules.deck_size(players) == 54


def test_nordic_auto_decks_from_four_players():
    rules = Rules.preset("nordic", decks="auto")
    assert rules.decks_for(3) == 1
    assert rules.decks_for(4) == 2
    assert rules.deck_size(4) == 108


def test_double_joker_deck_size():
    rules = Rules.preset("standard", variants=["double-joker"])
    assert rules.deck_size(4) == 56
    assert rules.deck_size(6) == 112


def test_no_jokers_deck_size():
    assert Rules(jokers_per_deck=0, decks=1).deck_size(4) == 52


def test_standard_eight_players_seven_cards_works_with_two_decks():
    rules = Rules.preset("standard", hand_size=7)
    rules.check_players(8)
    assert rules.decks_for(8) == 2


def test_one_deck_eight_players_seven_cards_cannot_deal():
    rules = Rules.preset("standard", decks=1, hand_size=7)
    with pytest.raises(ValueError) as info:
        rules.check_players(8)
    one_line_error(info)
    with pytest.raises(ValueError):
        rules.decks_for(8)
    with pytest.raises(ValueError):
        rules.deck_size(8)


@pytest.mark.parametrize(
    "overrides, players, ok",
    [
        # 54 cards: 8 * 6 + 2 = 50 fits, 8 * 7 + 2 = 58 does not, 7 * 7 + 2 = 51 fits
        ({"decks": 1, "hand_size": 6}, 8, True),
        ({"decks": 1, "hand_size": 7}, 7, True),
        ({"decks": 1, "hand_size": 7}, 8, False),
        # 52 cards: 7 * 7 + 2 = 51 fits; 8 * 6 + 2 = 50 fits
        ({"decks": 1, "jokers_per_deck": 0, "hand_size": 7}, 7, True),
        ({"decks": 1, "jokers_per_deck": 0, "hand_size": 6}, 8, True),
        ({"decks": 1, "jokers_per_deck": 0, "hand_size": 7}, 8, False),
        # 5 cards each: 8 * 5 + 2 = 42 fits one deck
        ({"decks": 1}, 8, True),
        ({"decks": 2}, 2, True),
    ],
)
def test_deal_feasibility(overrides, players, ok):
    rules = Rules.preset("standard", **overrides)
    if ok:
        rules.check_players(players)
    else:
        with pytest.raises(ValueError):
            rules.check_players(players)


def test_nordic_two_decks_with_three_players_fails():
    rules = Rules.preset("nordic", decks=2)
    with pytest.raises(ValueError) as info:
        rules.check_players(3)
    one_line_error(info)
    rules.check_players(4)
    assert rules.decks_for(4) == 2
    assert rules.deck_size(4) == 108


def test_standard_two_decks_allowed_from_two_players():
    rules = Rules.preset("standard", decks=2)
    rules.check_players(2)
    assert rules.deck_size(2) == 108


@pytest.mark.parametrize("players", [0, 1, 9, -2, True, 4.0, "4", None])
def test_bad_player_counts(players):
    with pytest.raises(ValueError):
        Rules.preset("standard").check_players(players)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_every_table_size_deals_under_both_presets(players):
    Rules.preset("standard").check_players(players)
    Rules.preset("nordic").check_players(players)


# -- serialisation ---------------------------------------------------------------------------

ALL_RULE_SETS = [
    Rules.preset("standard"),
    Rules.preset("nordic"),
    *[Rules.preset(p, variants=[v]) for p in ("standard", "nordic") for v in VARIANT_TABLE],
    Rules.preset("nordic", variants=["slapdown", "milestone-theft"], limit=100, hand_size=6),
    Rules(milestones={}, decks=2, assaf_winner_scores="all_zero", empty_stock="end_round"),
]


def test_to_dict_of_standard():
    data = Rules.preset("standard").to_dict()
    assert data["milestones"] == {"50": 25, "100": 50}
    assert data["decks"] == "auto"
    for field, value in STANDARD_TABLE.items():
        if field != "milestones":
            assert data[field] == value


def test_to_dict_of_nordic_milestones():
    assert Rules.preset("nordic").to_dict()["milestones"] == {"100": 50, "200": 100}


@pytest.mark.parametrize("rules", ALL_RULE_SETS)
def test_to_dict_from_dict_round_trip(rules):
    assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("rules", ALL_RULE_SETS)
def test_round_trip_through_json(rules):
    text = json.dumps(rules.to_dict())
    assert Rules.from_dict(json.loads(text)) == rules


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    raise TypeError(value)


def _to_toml(data: dict) -> str:
    lines = [f"{key} = {_toml_value(value)}" for key, value in data.items() if key != "milestones"]
    lines.append("[milestones]")
    lines += [f'"{old}" = {new}' for old, new in data["milestones"].items()]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rules", ALL_RULE_SETS)
def test_round_trip_through_toml(rules):
    assert Rules.from_dict(tomllib.loads(_to_toml(rules.to_dict()))) == rules


def test_from_dict_with_preset_and_variants_in_toml():
    text = """
preset = "nordic"
variants = ["yaniv9", "slapdown"]
limit = 100

[milestones]
"100" = 50
"50" = 20
"""
    rules = Rules.from_dict(tomllib.loads(text))
    assert rules == Rules.preset(
        "nordic", variants=["yaniv9", "slapdown"], limit=100, milestones={50: 20, 100: 50}
    )
    assert rules.threshold == 9
    assert rules.set_draw == "ends"
    assert rules.milestones == ((50, 20), (100, 50))


def test_from_dict_preset_only():
    assert Rules.from_dict({"preset": "nordic"}) == Rules.preset("nordic")


def test_from_dict_variants_without_preset_start_from_standard():
    rules = Rules.from_dict({"variants": ["no-assaf"]})
    assert rules == Rules.preset("standard", variants=["no-assaf"])
    assert rules.assaf is False


def test_from_dict_unknown_preset_and_variant():
    with pytest.raises(ValueError, match="german"):
        Rules.from_dict({"preset": "german"})
    with pytest.raises(ValueError, match="fast"):
        Rules.from_dict({"preset": "standard", "variants": ["fast"]})


def test_from_dict_validates_values():
    with pytest.raises(ValueError, match="threshold"):
        Rules.from_dict({"threshold": 20})
    with pytest.raises(ValueError, match="milestones"):
        Rules.from_dict({"milestones": {"50": 75}})


def test_to_dict_is_plain_data():
    data = Rules.preset("nordic", variants=["milestone-theft"]).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert all(isinstance(key, str) for key in data["milestones"])


# -- frozen ---------------------------------------------------------------------------------


def test_rules_are_frozen():
    rules = Rules.preset("standard")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.threshold = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.milestones = ()  # type: ignore[misc]
    assert rules.threshold == 7


def test_rules_are_hashable_and_equal_by_value():
    a = Rules.preset("nordic", variants=["yaniv9"])
    b = Rules.preset("nordic", threshold=9)
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, Rules.preset("nordic")}) == 2


def test_to_dict_is_a_copy():
    rules = Rules.preset("standard")
    data = rules.to_dict()
    data["threshold"] = 1
    data["milestones"]["50"] = 0
    assert rules.threshold == 7
    assert rules.milestones == ((50, 25), (100, 50))


def test_every_variant_has_its_one_line_in_the_rule_book():
    from pathlib import Path

    from yaniv_sim.rules import VARIANT_MEANINGS, VARIANTS

    assert set(VARIANT_MEANINGS) == set(VARIANTS)
    text = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text()
    for name, meaning in VARIANT_MEANINGS.items():
        sets = ", ".join(f"`{k} = {str(v).lower()}`" for k, v in VARIANTS[name].items())
        assert f"| `{name}` | {sets} | {meaning} |" in text
