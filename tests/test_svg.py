"""tomis.pictures.svg: stable bytes (goldens), well-formed XML, and data-* facts equal to show --json."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from svg_cases import CASES, GOLDEN_DIR, SAMPLES, sample_game
from tomis.notation import record
from tomis.pictures import svg
from tomis.rules.position import from_string, to_json, to_string

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def facts(root: ET.Element) -> dict:
    """The position as the SVG states it, in the shape of ``to_json``'s units and gates."""
    units = [{"square": g.get("data-square"), "side": g.get("data-side"), "piece": g.get("data-piece")}
             for g in root.iter(f"{NS}g") if g.get("class") == "unit"]
    gates = [{"square": g.get("data-square"), "side": g.get("data-side"), "state": g.get("data-state"),
              "markers": int(g.get("data-markers")), "direction": g.get("data-direction") or None}
             for g in root.iter(f"{NS}g") if g.get("class") == "gate"]
    return {"units": sorted(units, key=lambda u: u["square"]), "gates": sorted(gates, key=lambda g: g["square"])}


def expected_facts(state) -> dict:
    data = to_json(state)
    return {"units": sorted(data["units"], key=lambda u: u["square"]),
            "gates": sorted(data["gates"], key=lambda g: g["square"])}


def every_position():
    for path in SAMPLES:
        for checked in record.read(path.read_text(encoding="utf-8")):
            game = checked.game
            for number, state in enumerate(game.states):
                yield path.name, number, game, state


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_bytes(name):
    """Same input, same bytes: each case matches its golden file exactly.
    After an intended change run tools/gen_svg_goldens.py and look at the diff."""
    golden = (GOLDEN_DIR / f"{name}.svg").read_bytes()
    assert CASES[name]().encode("utf-8") == golden


def test_goldens_cover_every_kind_and_state():
    """The golden set is worth having only if it draws every piece and gate state."""
    roots = [parse((GOLDEN_DIR / f"{name}.svg").read_text(encoding="utf-8")) for name in CASES]
    pieces = {g.get("data-piece") for r in roots for g in r.iter(f"{NS}g") if g.get("class") == "unit"}
    states = {g.get("data-state") for r in roots for g in r.iter(f"{NS}g") if g.get("class") == "gate"}
    markers = {g.get("data-markers") for r in roots for g in r.iter(f"{NS}g") if g.get("data-state") == "jump"}
    classes = {g.get("class") for r in roots for g in r.iter(f"{NS}g")}
    assert pieces == {"base", "frigate", "sentry", "tower", "flagship"}
    assert states == {"inactive", "active", "jump"}
    assert markers == {"1", "2"}
    assert {"destroyed", "captured", "arrow", "pointer"} <= classes


def test_every_position_of_every_sample_states_the_json_facts():
    """Units and gates (data-*) and the root's position string, side to act and result
    equal show --json for every position of every sample, in both orientations."""
    count = 0
    for name, number, game, state in every_position():
        last = game.nodes[number - 1].report if number else None
        for orientation in ("white", "black"):
            root = parse(svg.board(state, orientation=orientation, last=last))
            assert facts(root) == expected_facts(state), (name, number, orientation)
            data = to_json(state)
            assert root.get("data-to-move") == (data["to_move"] or ""), (name, number)
            assert root.get("data-result") == data["result"]
            assert to_json(from_string(root.get("data-position"))) == data, (name, number)
        count += 1
    assert count > 200          # all six samples were read, not an empty glob


def test_every_square_is_a_named_rect_with_its_shade():
    root = parse(svg.board(sample_game("every-action.tgn").final))
    squares = [r for r in root.iter(f"{NS}rect") if r.get("class", "").startswith("square ")]
    assert len(squares) == 64
    for rect in squares:
        kind, shade, name = rect.get("class").split()
        assert name == rect.get("data-square")
        file, rank = "abcdefgh".index(name[0]), int(name[1]) - 1
        assert shade == ("dark" if (file + rank) % 2 == 0 else "light")   # a1 dark, as in chess


def _corner(root, square):
    rect = next(r for r in root.iter(f"{NS}rect") if r.get("data-square") == square and "square" in r.get("class"))
    return float(rect.get("x")), float(rect.get("y"))


def test_orientation_puts_the_chosen_side_at_the_bottom():
    state = sample_game("every-action.tgn").final
    white = parse(svg.board(state))
    black = parse(svg.board(state, orientation="black"))
    # White at the bottom: a1 bottom-left, h8 top-right; flipped: a1 top-right
    assert _corner(white, "a1")[0] < _corner(white, "h1")[0] and _corner(white, "a1")[1] > _corner(white, "a8")[1]
    assert _corner(black, "a1")[0] > _corner(black, "h1")[0] and _corner(black, "a1")[1] < _corner(black, "a8")[1]


def test_size_and_coordinates():
    state = sample_game("every-action.tgn").final
    root = parse(svg.board(state, size=123))
    assert (root.get("width"), root.get("height")) == ("123", "123")
    letters = sorted(t.text for t in root.iter(f"{NS}text") if "file" in t.get("class"))
    assert letters == sorted("abcdefgh" * 2)
    bare = parse(svg.board(state, coordinates=False))
    assert not list(bare.iter(f"{NS}text"))


def test_last_action_and_its_destroyed_squares():
    """Action 50 of every-action is Ff6-f5, whose combat destroyed White's frigate on f4."""
    game = sample_game("every-action.tgn")
    report = game.nodes[49].report
    root = parse(svg.board(game.states[50], last=report))
    last = {r.get("class"): r.get("data-square") for r in root.iter(f"{NS}rect") if "last" in r.get("class")}
    assert last == {"last from": "f6", "last to": "f5"}
    crosses = [(g.get("data-square"), g.get("data-side"), g.get("data-piece"))
               for g in root.iter(f"{NS}g") if g.get("class") == "destroyed"]
    assert crosses == [("f4", "white", "frigate")]
    assert "Ff6-f5" in root.find(f"{NS}title").text


def test_a_gate_strike_marks_both_frigates_captured():
    """Action 21 (Ff4xf5): the strike destroys both frigates (R13)."""
    game = sample_game("every-action.tgn")
    root = parse(svg.board(game.states[21], last=game.nodes[20].report))
    captured = sorted(g.get("data-square") for g in root.iter(f"{NS}g") if g.get("class") == "captured")
    assert captured == ["f4", "f5"]


def test_a_bare_action_as_last_tints_squares_without_crosses():
    game = sample_game("every-action.tgn")
    root = parse(svg.board(game.states[50], last=game.nodes[49].action))
    assert [r.get("data-square") for r in root.iter(f"{NS}rect") if "last" in r.get("class")] == ["f6", "f5"]
    assert not [g for g in root.iter(f"{NS}g") if g.get("class") == "destroyed"]


def test_frigates_point_the_way_they_move():
    """R9: White's frigates move up the board, Black's down; the triangle's tip says which."""
    game = sample_game("every-action.tgn")
    for orientation, white_up in (("white", True), ("black", False)):
        root = parse(svg.board(game.states[50], orientation=orientation))
        for unit in root.iter(f"{NS}g"):
            if unit.get("data-piece") != "frigate":
                continue
            ys = [float(p.split(",")[1]) for p in unit.find(f"{NS}polygon").get("points").split()]
            tip_on_top = ys[0] == min(ys)
            assert tip_on_top == ((unit.get("data-side") == "white") == white_up), unit.attrib


def test_sides_differ_by_fill_not_only_hue():
    """White's units are light, Black's dark: far apart in lightness, so print keeps them apart."""
    def lightness(colour):
        r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    assert lightness(svg.COLORS["white"]) - lightness(svg.COLORS["black"]) > 180


def test_jump_gate_pointers_follow_the_direction():
    """every-action's c3 jump gate points N with two markers at action 46 (Mc3:N): two heads."""
    game = sample_game("every-action.tgn")
    state = game.states[46]
    root = parse(svg.board(state))
    pointer = next(g for g in root.iter(f"{NS}g") if g.get("class") == "pointer")
    assert pointer.get("data-square") == "c3" and pointer.get("data-direction") == "N"
    heads = pointer.findall(f"{NS}polygon")
    assert len(heads) == 2
    cx, cy = _corner(root, "c3")
    tip_x, tip_y = (float(v) for v in heads[0].get("points").split()[0].split(","))
    assert abs(tip_x - (cx + 25)) < 0.01 and tip_y < cy + 25     # straight up from the centre


def test_title_and_desc_say_the_position_in_words():
    game = sample_game("every-action.tgn")
    root = parse(svg.board(game.states[50], last=game.nodes[49].report))
    desc = root.find(f"{NS}desc").text
    assert "White units: base on e1" in desc
    assert "jump gate on c3 pointing north, 2 markers" in desc
    assert "Action 51: White to act" in desc
    assert root.find(f"{NS}title").text == "Tomis after action 50: Black played 25... Ff6-f5 (action 50)"
    assert "empty board" in parse(svg.board(game.states[0])).find(f"{NS}title").text


def test_colors_and_style_are_used_and_escaped():
    state = sample_game("every-action.tgn").final
    text = svg.board(state, colors={"square light": "#123456"}, style="rect{x:1}</style><x>")
    root = parse(text)                   # still well-formed: the style text was escaped
    light = [r.get("fill") for r in root.iter(f"{NS}rect") if "light" in r.get("class", "")]
    assert set(light) == {"#123456"}
    assert root.find(f"{NS}style").text == "rect{x:1}</style><x>"


def test_accepts_anything_that_wraps_a_state():
    class Wrapper:
        def __init__(self, state):
            self.state = state
    state = sample_game("every-action.tgn").final
    assert svg.board(Wrapper(state)) == svg.board(state)


@pytest.mark.parametrize("options, words", [
    ({"orientation": "red"}, "orientation"),
    ({"size": 0}, "size"),
    ({"arrows": [("e4", "z9")]}, "not a square"),
    ({"marks": [64]}, "not a square"),
])
def test_bad_options_raise_value_error(options, words):
    state = sample_game("every-action.tgn").final
    with pytest.raises(ValueError, match=words):
        svg.board(state, **options)


def test_position_string_on_the_root_round_trips():
    state = sample_game("readme-win.tgn").final
    assert parse(svg.board(state)).get("data-position") == to_string(state)


def test_last_in_the_public_api_shape_draws_the_same():
    """``Position.last`` of the public API names squares, sides and pieces; the picture
    must not depend on which of the two shapes it was given."""
    from typing import NamedTuple

    from tomis.rules.board import PIECE_NAMES, SIDE_NAMES, SQUARE_NAMES

    class Removed(NamedTuple):
        square: str
        side: str
        piece: str

    class LastAction(NamedTuple):
        number: int
        side: str
        action: object
        captured: tuple
        destroyed: tuple

    def named(items):
        return tuple(Removed(SQUARE_NAMES[d.square], SIDE_NAMES[d.side], PIECE_NAMES[d.piece]) for d in items)

    game = sample_game("every-action.tgn")
    for number in (21, 50):
        report = game.nodes[number - 1].report
        public = LastAction(number, SIDE_NAMES[report.side], report.action, named(report.captured),
                            named(report.destroyed))
        assert svg.board(game.states[number], last=public) == svg.board(game.states[number], last=report)


def test_position_repr_svg_is_the_board_with_its_last_action():
    """A notebook shows ``Position._repr_svg_``: the picture svg.board draws, last action included."""
    import tomis

    sample = next(path for path in SAMPLES if path.name == "every-action.tgn")
    game = tomis.read_game(str(sample))
    [checked] = record.read(sample.read_text(encoding="utf-8"))
    positions = game.positions()
    for number in (0, 21, 50):
        last = checked.game.nodes[number - 1].report if number else None
        assert positions[number]._repr_svg_() == svg.board(checked.game.states[number], last=last)
    assert "data-position" in tomis.Position()._repr_svg_()


def test_a_legend_names_every_piece_shape_and_gate_state_under_the_board():
    from xml.etree import ElementTree

    from tomis.pictures import svg
    from tomis.rules import new_game

    plain = svg.board(new_game("manual"), size=400)
    keyed = svg.board(new_game("manual"), size=400, legend=True)
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ElementTree.fromstring(keyed)
    legend = root.find("s:g[@class='legend']", ns)
    items = legend.findall("s:g[@class='legend-item']", ns)
    assert [item.get("data-piece") for item in items[:5]] == ["base", "frigate", "sentry", "tower", "flagship"]
    assert [item.get("data-gate") for item in items[5:8]] == ["inactive", "active", "jump"]
    words = " ".join(text.text for text in legend.iter("{http://www.w3.org/2000/svg}text"))
    assert words == "base frigate sentry tower flagship gate off gate on jump gate hollow: White solid: Black"
    # As wide as without it, taller by the strip; and no unit or gate a reader would count.
    extent = 8 * svg.SQUARE + 2 * svg.MARGIN
    assert root.get("width") == "400" and root.get("height") == str(round(400 * (extent + svg.LEGEND_HEIGHT) / extent))
    assert root.get("viewBox") == f"0 0 {extent} {extent + svg.LEGEND_HEIGHT}"
    assert keyed.count('class="gate"') == plain.count('class="gate"') == 0
    assert 'class="legend"' not in plain
