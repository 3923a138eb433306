"""The picture commands (tomis.cli.pictures): show --svg/--png and export --html/--gif."""

from __future__ import annotations

import os
import stat
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import invoke
from svg_cases import ROOT, sample_game
from tomis.pictures import svg
from tomis.cli import pictures
from tomis.rules.position import to_string

SAMPLE = str(ROOT / "samples" / "every-action.tgn")


def run(*args):
    return invoke(*args, catch_exceptions=False)


def test_show_svg_to_stdout_is_the_board_at_n():
    game = sample_game("every-action.tgn")
    result = run("show", SAMPLE, "--svg", "--at", "50")
    assert result.exit_code == 0, result.output
    assert result.stdout == svg.board(game.states[50], last=game.nodes[49].report)


def test_show_svg_flip_size_and_file(tmp_path):
    out = tmp_path / "board.svg"
    result = run("show", SAMPLE, "--svg", "--flip", "--size", "250", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert root.get("width") == "250"
    assert root.get("data-position") == to_string(sample_game("every-action.tgn").final)
    # flipped: h1 drawn left of a1
    rects = {r.get("data-square"): float(r.get("x")) for r in root.iter("{http://www.w3.org/2000/svg}rect")
             if "square" in (r.get("class") or "")}
    assert rects["h1"] < rects["a1"]
    mode = stat.S_IMODE(out.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask        # a shared picture, not a private temporary file


def test_show_png_to_file(tmp_path):
    pytest.importorskip("resvg_py", reason="resvg-py is not installed (pip install 'tomis[images]')")
    out = tmp_path / "board.png"
    result = run("show", SAMPLE, "--png", "--at", "0", "--size", "120", "-o", str(out))
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 120     # IHDR width


def test_binary_output_refuses_a_terminal(monkeypatch):
    monkeypatch.setattr(pictures, "is_terminal", lambda stream: True)
    for args in (("show", SAMPLE, "--png"), ("export", SAMPLE, "--gif", "-o", "-")):
        result = run(*args)
        assert result.exit_code == 2
        assert "binary and stdout is a terminal" in result.stderr


def test_missing_extra_is_one_line_and_exit_1(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "resvg_py", None)
    out = tmp_path / "board.png"
    result = run("show", SAMPLE, "--png", "-o", str(out))
    assert result.exit_code == 1
    assert result.stderr == ("tomis: PNG and GIF pictures need resvg-py and Pillow: "
                             "pip install 'tomis[images]'\n")
    assert not out.exists()


@pytest.mark.parametrize("args, words", [
    (("show", SAMPLE, "--svg", "--json"), "choose one"),
    (("show", SAMPLE, "--at", "3", "-o", "x.svg"), "add --svg or --png"),
    (("show", SAMPLE, "--svg", "--at", "999"), "the game has 59 actions; choose 0 to 59"),
    (("show", SAMPLE, "--svg", "--size", "0"), "--size"),
    (("export", SAMPLE, "-o", "x.html"), "choose --html or --gif"),
    (("export", SAMPLE, "--html"), "-o"),
    (("export", SAMPLE, "--html", "-o", "x.html", "--game", "2"), "there is no game 2"),
    (("export", SAMPLE, "--gif", "-o", "x.gif", "--delay", "nan"), "--delay"),
])
def test_usage_errors_exit_2(args, words):
    result = run(*args)
    assert result.exit_code == 2
    assert words in result.stderr


def test_an_invalid_record_is_a_located_line(tmp_path):
    bad = tmp_path / "bad.tgn"
    bad.write_text("1. B@e4 *\n", encoding="utf-8")
    result = run("show", str(bad), "--svg")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{bad}:1:4: game 1, action 1 (White) B@e4:")
    assert "R5" in result.stderr


def test_export_html_writes_the_page(tmp_path):
    out = tmp_path / "replay.html"
    result = run("export", SAMPLE, "--html", "-o", str(out), "--delay", "0.5")
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert 'id="board" data-action="59"' in page
    assert 'download="every-action.tgn"' in page
    assert '<option value="0.5" selected>' in page


def test_export_gif_writes_frames(tmp_path):
    pil = pytest.importorskip("PIL.Image", reason="Pillow is not installed (pip install 'tomis[images]')")
    pytest.importorskip("resvg_py", reason="resvg-py is not installed (pip install 'tomis[images]')")
    out = tmp_path / "game.gif"
    result = run("export", str(ROOT / "samples" / "pbem-in-progress.tgn"), "--gif", "-o", str(out), "--delay", "0.2")
    assert result.exit_code == 0, result.output
    with pil.open(out) as animation:
        assert animation.n_frames == len(sample_game("pbem-in-progress.tgn").nodes) + 2   # and the result


def test_an_unwritable_output_leaves_nothing(tmp_path):
    target = tmp_path / "missing-folder" / "board.svg"
    result = run("show", SAMPLE, "--svg", "-o", str(target))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "nothing was written" in result.stderr
    assert not target.parent.exists()


def test_show_legend_adds_the_key_to_a_picture_and_needs_one():
    from conftest import SAMPLES_DIR, invoke

    result = invoke("show", SAMPLES_DIR / "readme-win.tgn", "--svg", "--legend")
    assert result.exit_code == 0 and 'class="legend"' in result.stdout
    refused = invoke("show", SAMPLES_DIR / "readme-win.tgn", "--legend")
    assert refused.exit_code == 2 and "--legend is for a picture" in refused.stderr
