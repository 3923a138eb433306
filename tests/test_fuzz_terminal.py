"""Fuzz shapes of issue 23, finding 4: escape sequences in every tag and in comments,
through the commands that print text for a person.

Whatever the values hold, each command ends with 0, 1 or 2, never an internal error,
and nothing it prints holds a raw control character (the newline aside) or a bidi
override. The commands run in process with ``color=True``: click strips nothing, so
the output is what a terminal would get.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import cli_runner

FEW = settings(max_examples=40, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Pieces of terminal escape sequences and other characters a terminal acts on.
PIECES = ["\x1b", "\x1b[", "\x1b]", "\x1b]0;", "\x1b]8;;", "\x07", "\x1b\\", "\x9b", "\x9d",
          "\x85", "\x7f", "\x08", "\r", "\t", "\x0b", "\x0c", "\u202a", "\u202e", "\u2066",
          "\u2069", "\u200f", "\u2028", "2J", "31m", "http://x", ";", "Ana", "é", " "]
TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Annotator", "Termination", "Note")
COMMANDS = (("show",), ("replay",), ("moves",), ("validate",), ("stats",), ("select",),
            ("clock", "--now", "2026-11-24T10:00Z"))

values = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


def record(tags: dict, comment: str, result: str) -> str:
    # A quote or a brace would end the value early; the reader's refusal of that is
    # test_fuzz.py's business, so they are left out here.
    def clean(text: str) -> str:
        return text.replace('"', "").replace("\\", "").replace("}", "")

    head = "".join(f'[{name} "{clean(value)}"]\n' for name, value in tags.items())
    return (f'{head}[TimeControl "30d+3d"]\n\n{{[%ts 2026-11-23T10:15Z]}} 1. B@e1 '
            f"{{{clean(comment)}}} {{[%ts 2026-11-23T11:00Z]}} B@d8 {{[%ts 2026-11-23T12:00Z]}} {result}\n")


def assert_shown_safely(result, command: str) -> None:
    assert result.exit_code in (0, 1, 2), result.stderr
    assert "internal error" not in result.stderr
    # select writes records to stdout, byte for byte: only its stderr is for a person.
    for text in (result.stderr,) if command == "select" else (result.stdout, result.stderr):
        raw = {char for char in text if not (char.isprintable() or char == "\n")}
        assert not raw, f"raw characters reached the terminal: {sorted(raw)!r}"


@FEW
@given(tags=st.fixed_dictionaries({name: values for name in TAGS}), comment=values,
       result=st.sampled_from(["*", "1-0", "0-1", "1/2-1/2"]), command=st.sampled_from(COMMANDS))
def test_finding4_escape_sequences_in_every_tag_never_reach_the_terminal(tmp_path, tags, comment,
                                                                         result, command):
    from tomis.cli import cli

    path = tmp_path / "fuzz.tgn"
    path.write_text(record(tags, comment, result), encoding="utf-8", newline="")
    outcome = cli_runner().invoke(cli, [command[0], str(path), *command[1:]], color=True,
                                  catch_exceptions=False)
    assert_shown_safely(outcome, command[0])
