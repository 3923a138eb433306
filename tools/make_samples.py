"""Write the sample game records in ``samples/`` (issue #4).

Each game below is scripted as movetext: actions in notation, ``{comments}`` after the
action they talk about (a comment before the first action opens the game), and an
optional glyph (``!``, ``?``, ``?!`` ...) stuck to an action. The script replays every
action through the engine (:func:`tomis.record.append`, which applies
:func:`tomis.rules.apply`), checks that each game ends the way its file name promises,
and writes it with :func:`tomis.record.write`, so every sample is in canonical form.

Run from the top of the checkout::

    python tools/make_samples.py            # rewrite samples/*.tgn
    python tools/make_samples.py --check    # only verify the files are up to date

It exits non-zero (naming the game and action) when an action is illegal, a game ends
differently than promised, or, with ``--check``, a file differs from what it would write.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tomis import record

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

_GLYPH = re.compile(r"^(.*?)(!!|\?\?|!\?|\?!|!|\?)?$")


@dataclass
class Sample:
    name: str                  # file name in samples/
    tags: dict                 # keyword arguments of record.new_record
    movetext: str              # actions and {comments}
    result: str                # the result the game must end with
    ending: str                # "decided" (R21/R22), "resigned" (R23) or "open" (unfinished)
    reason: str | None = None  # a word the engine's reason must contain when decided


def build(sample: Sample) -> record.Record:
    """Replay ``sample`` into a record; raise ``ValueError`` if it ends wrongly."""
    game = record.new_record(**sample.tags)
    for token in re.findall(r"\{[^}]*\}|\S+", sample.movetext):
        if token.startswith("{"):
            text = " ".join(token[1:-1].split())
            (game.nodes[-1].comments if game.nodes else game.comments).append(text)
            continue
        action, glyph = _GLYPH.match(token).groups()
        try:
            record.append(game, action)
        except Exception as error:  # name the game, keep the engine's words
            raise ValueError(f"{sample.name}: {error}") from error
        game.nodes[-1].glyphs = glyph or ""
    final = game.final
    if sample.ending == "open":
        if final.is_over:
            raise ValueError(f"{sample.name}: an unfinished game must stay undecided ({final.reason})")
    elif sample.ending == "resigned":
        if final.is_over:
            raise ValueError(f"{sample.name}: the position is already decided ({final.reason})")
        record.finish(game, sample.result)
    elif not final.is_over or sample.reason not in (final.reason or ""):
        raise ValueError(f"{sample.name}: expected an ending by {sample.reason}, got {final.reason!r}")
    if game.result != sample.result:
        raise ValueError(f"{sample.name}: result {game.result}, expected {sample.result}")
    return game


MANUAL_WIN = Sample(
    "manual-win.tgn",
    dict(event="Tomis club championship", site="Constanta", date="2026.03.14", round=3,
         white="Ana Petrescu", black="Bogdan Ionescu", rules="manual"),
    """
    {Both sides build a diagonal chain of gates toward the centre.}
    B@c1 B@f8 G@h1 G@a8 G@g2 G@b7 G@f3 G@c6 G@e4 G@d5
    {All eight gates are down; the fleets come out.}
    F@e1 F@d8 Fe1-e2 Fd8-d7 Fe2-e3 Fd7-d6 F@d1 F@e8 Fd1-d2 Fe8-e7
    Fe3-f3 Fd6-c6 Ff3=A Fc6=A Fd2-d3 Fe7-e6 Fd3-d4 Fe6-e5
    {Frigate meets frigate: d4 and e5 hit each other with one AP each, a stalemate.}
    Ff3-f4 {The second attacker: e5 now takes two AP and is destroyed.}
    Fc6-c5 F@e1 F@d8 Fe1-e2 Fd8-d7 Fe2-e3
    S@h8 {The corner sentry sees all the way to d4, and with c5 that is two AP.}
    S@a1 {White answers on the same long diagonal: one AP each way, a stalemate.}
    Fd7-d6 T@g1 {Threatening Tg1-h1, when the sentry has nowhere to hide.}
    Fd6-d5 Tg1-h1 {Tower and sentry together: the h8 sentry is gone.}
    Fd5=A Fe3-e4 M@d5:S Fe4=A M@d5:S {Two markers: a frigate beside d5 now flies three squares, to d2, next to White's base.}
    M@e4:N Fc5^d2 {d2 puts the first AP on c1.}
    M@e4:N {White's own loaded gun: e4 points north with two markers, landing on e7.}
    T@c8 {The c-file is open: c1 is under two AP.}
    Th1-h2 {The tower lifts to h2 and hits d2 along the rank: one AP, a stalemate for now.}
    T@b8 F@d1! {Frigate and tower: d2 is destroyed and c1 breathes again.}
    Fd5-c5?! {Reloading the d5 jump, but it shuts Black's own c-file.}
    Th2-h8 {The tower on h8 sees f8 through the empty g8: one AP.}
    Tb8-b1 T@f1 {Quiet-looking: the f-file is still blocked by White's own frigate on f4.}
    Fc5-b5?? {Black reopens the c-file for a second AP on c1 and misses the threat.}
    Ff4^e7! {The jump lands a frigate on e7 and opens the f-file at the same time:
    tower h8, tower f1 and frigate e7 put three AP on f8.}
    """,
    "1-0", "decided", "R21",
)

README_WIN = Sample(
    "readme-win.tgn",
    dict(event="Readme rules friendly", site="Tulcea", date="2026.04.02", round=1,
         white="Carmen Dobre", black="Dan Matei", rules="readme"),
    """
    {Played under the readme rules: a flagship has two AP and defence two (E1), any ship on
    the enemy home row unlocks it (E2), and a base falls to three units (E4).}
    B@b1 B@g8 G@e1 G@b8 G@d2 G@e7 G@e3 G@d6 G@d4 G@e5
    F@c1 F@f8 Fc1-c2 Ff8-f7 F@d1 F@e8 Fc2-c3 Ff7-f6 Fd1-d2 Fe8-e7 Fd2-d3 Fe7-e6
    {Both sides have a frigate pair in the centre; rank 5 and rank 4 are no-man's land.}
    T@a1 S@c8 Ta1-a8! {The a-file is empty: under the readme rules a tower on the enemy
    home row unlocks the flagship (E2). Under the manual it would take a frigate.}
    F@f8 {Blocking the tower's view of g8.}
    Q@c1 Sc8-a6 {The sentry aims at d3.}
    Qc1-h6! {Two AP: the flagship alone destroys both the f6 and the f8 frigate (E1).}
    F@e8 {Black cannot both save e6 and shut the eighth rank again; it shuts the rank,
    and e6 falls to the flagship now that f6 is gone.}
    Qh6-g6 {The flagship takes e8 along the diagonal and the a6 sentry along the sixth rank.}
    F@f8 {Blocking again; f8 is out of the flagship's lines.}
    Qg6-f7 {Two AP on f8 destroy the blocker; the e8 frigate's one AP cannot hurt a
    flagship with defence two.}
    F@e8?? {e8 is on the flagship's diagonal, so it falls at once; F@d8 would have held
    the rank, since the a8 tower's one AP only stalemates it.}
    T@g1 {Tower a8 along the rank, tower g1 up the open g-file and the flagship on f7:
    three units on g8, which is what the readme asks for (E4).}
    """,
    "1-0", "decided", "R21",
)

REPETITION_DRAW = Sample(
    "repetition-draw.tgn",
    dict(event="Tomis club championship", site="Constanta", date="2026.03.21", round=4,
         white="Bogdan Ionescu", black="Elena Stan", rules="manual"),
    """
    B@g1 B@b8 G@b1 G@g8 G@g2 G@b7 G@c3 G@f6 G@f4 G@c5
    F@d1 F@e8 Fd1-d2 Fe8-e7 F@e1 F@d8 Fe1-e2 Fd8-d7 Fd2-d3 Fe7-e6 Fe2-e3 Fd7-d6
    Fd3-d4 S@c8 Fe3-e4 {Two pairs face each other across rank 5: any frigate stepping
    onto it meets two AP, so neither side can advance in the centre.}
    S@f8 S@c1 T@h8 S@f1 T@a8 {Both sentries on each side guard the diagonals around the pairs.}
    T@h1 {The towers meet on the h-file, one AP each: a stalemate.}
    Th8-h7 Th1-h2 Th7-h8 Th2-h1 {Neither side wants to open a line first.}
    Th8-h7 Th1-h2 Th7-h8 Th2-h1 {The same position for the third time: drawn by repetition (R22).}
    """,
    "1/2-1/2", "decided", "third time",
)

RESIGNATION = Sample(
    "resignation.tgn",
    dict(event="Tomis club championship", site="Constanta", date="2026.03.07", round=2,
         white="Elena Stan", black="Ana Petrescu", rules="manual"),
    """
    B@c1 B@f8 G@h1 G@a8 G@g2 G@b7 G@f3 G@c6 G@e4 G@d5
    F@e1 F@d8 Fe1-e2 Fd8-d7 Fe2-e3 Fd7-d6 F@d1 F@e8 Fd1-d2 Fe8-e7
    Fe3-f3 Fd6-c6 Ff3=A Fc6=A Fd2-d3 Fe7-e6 Fd3-d4 Fe6-e5 Ff3-f4 {e5 is destroyed by the pair d4-f4.}
    Fc6-c5 F@e1 F@d8 Fe1-e2 Fd8-d7 Fe2-e3 S@h8 {d4 falls to the sentry and c5.}
    S@a1 Fd7-d6 T@g1 Fd6-d5 Tg1-h1 {The sentry on h8 is lost.}
    Fd5=A Fe3-e4 M@d5:S Fe4=A M@d5:S M@e4:N Fc5^d2 M@e4:N T@c8 Th1-h2 T@b8
    F@d1 {d2 is destroyed by the frigate on d1 and the tower on h2.}
    {Black resigns. Ana Petrescu: "White's e4 gate throws a frigate to e7 whenever it likes,
    and Th2-h8 adds a second attacker on f8; my attack on c1 is one AP short. Well played."}
    """,
    "1-0", "resigned",
)

EVERY_ACTION = Sample(
    "every-action.tgn",
    dict(event="Teaching game", site="Constanta", date="2026.05.09", round=1,
         white="Florin Radu", black="Gina Pop", rules="manual"),
    """
    {A teaching game that shows every kind of action once or more.}
    B@e1 B@d8 G@b1 G@g8 G@c2 G@c7 G@c3 G@c6 G@f4 G@f5
    F@f1 F@f8 Ff1-f2 Ff8-f7 Ff2-f3 Ff7-f6 Ff3-f4 Ff6-f5 Ff4=A Ff5=A
    Ff4xf5 {Gate strike: both frigates stand on active gates on neighbouring ranks, and
    both are destroyed.}
    F@f8 T@f1 {The tower watches the f-file.} Ff8-f7 F@c1 Ff7-f6 Fc1-c2 Ff6-f5
    Fc2=A Ff5>f4 {Gate jump into White's half, onto the active f4 gate.}
    Fc2-c3 F@f8 Fc3=A Ff8-f7
    Fc3>f4! {A gate jump that captures: one AP of the jumper plus the f1 tower's one AP of
    support beat the frigate's defence (R12).}
    Ff7-f6 M@c3:NE {A marker turns c3 into a jump gate.} F@e8
    M@c3:NE {The second marker repeats the direction: the jump now covers three squares.}
    Fe8-e7 F@c1 Fe7-e6 Fc1-c2 S@c8 Mc3:N {Rotated: from c2 the jump lands on c6.}
    Sc8-a6 Fc2^c6 {The jump carries the frigate over the centre.} Fe6-e5
    Ff4=I {Deactivated before it falls, so Black cannot gate-jump from f5 behind White's lines.}
    Ff6-f5 {f4 takes two AP and is destroyed.}
    Fc6-c7 Fe5-e4 Fc7-c8 {A frigate on Black's home row: White's flagship is unlocked (R20).}
    S@f8 Q@d1 {The flagship looks up the open d-file at the base.} Fe4-e3 Qd1-d2 Sf8-h6
    Tf1-f3 {Tower and flagship: e3 is destroyed.}
    {Black resigns: a frigate and two sentries cannot hold off flagship, tower and the frigate on c8.}
    """,
    "1-0", "resigned",
)

PBEM_IN_PROGRESS = Sample(
    "pbem-in-progress.tgn",
    dict(event="Winter email ladder", site="By email", date="2026.01.10", round=7,
         white="Hana Vlad", black="Ion Marin", rules="manual"),
    """
    {Hana: Happy new year! I'll start.}
    B@g1 {Ion: base in the corner, classic. Mine goes opposite.} B@b8
    G@b1 G@g8 G@g2 G@b7 G@c3 G@f6 G@f4 G@c5
    {Hana: all gates down. Going for the centre.}
    F@d1 F@e8 Fd1-d2 Fe8-e7 F@e1 F@d8 Fe1-e2 Fd8-d7
    Fd2-d3 {Ion: sorry for the delay, travelling this week.} Fe7-e6
    Fe2-e3 Fd7-d6 {Ion: my pair is ready. Your move, Hana.}
    Fd3-d4 {Hana: d4 and e3 cover each other's squares. Let's see if you step onto rank 5.}
    S@c8 {Ion: a sentry for the long diagonal. Next mail in a few days.}
    """,
    "*", "open",
)

ALL = (MANUAL_WIN, README_WIN, REPETITION_DRAW, RESIGNATION, EVERY_ACTION, PBEM_IN_PROGRESS)


# --------------------------------------------------------------------------- correspondence play

@dataclass
class Turn:
    """One ``tomis move`` call of a correspondence game: when, what, and its options."""

    at: str                         # the UTC time the move was sent
    action: str
    offer: bool = False             # --offer-draw
    then: tuple[str, ...] = ()      # --then lines
    comment: str | None = None      # what the player wrote with it


def build_correspondence(name: str, tags: dict, time_control: str, start: str,
                         turns: list[Turn]) -> record.Record:
    """Play ``turns`` as ``tomis move`` would: stamps, offers, lines, and the replies they fire."""
    import tomis
    from tomis import clock
    from tomis.cli import correspondence as corr_cli     # what `tomis new/move` do

    game = tomis.Game(**tags)
    corr_cli.start_clock(game, time_control, clock.parse_stamp(start))
    for turn in turns:
        try:
            game.play(turn.action)
            played = game.record.nodes[-1]     # replies its lines fire come after it
            lines = [tuple(line.split()) for line in turn.then]
            corr_cli.after_action(game, clock.parse_stamp(turn.at), turn.offer, lines)
        except Exception as error:  # name the game, keep the engine's words
            raise ValueError(f"{name}: {error}") from error
        if turn.comment:
            played.comments.append(turn.comment)      # after its stamp and lines
    return game.record


def correspondence_cup() -> record.Record:
    """A game by email under a 30-day clock: a conditional line fires twice, another is
    cancelled, a draw offer is declined by the next action and a new one stands."""
    return build_correspondence(
        "correspondence-cup.tgn",
        dict(event="Autumn correspondence cup", site="By email", date="2026.11.01", round=1,
             white="Mara Stan", black="Radu Enache", rules="manual"),
        "30d+3d", "2026-11-01T09:00Z", [
            Turn("2026-11-01T18:30Z", "B@e1", then=("B@d8 G@b1 G@g8 G@f2",),
                 comment="Mara: if you mirror me, my first two gates are settled already."),
            Turn("2026-11-03T08:10Z", "B@d8"),
            Turn("2026-11-04T21:00Z", "G@g8",
                 comment="Radu: your line answered at once. Nice, saves us two emails."),
            Turn("2026-11-06T07:45Z", "G@a7"),
            Turn("2026-11-06T19:20Z", "G@c3"),
            Turn("2026-11-09T12:00Z", "G@e6", then=("G@h4 G@d5",)),
            Turn("2026-11-10T10:05Z", "G@g4",
                 comment="Mara: not h4 this time; your line is cancelled."),
            Turn("2026-11-12T16:40Z", "G@d5"),
            Turn("2026-11-13T08:00Z", "F@a1", offer=True,
                 comment="Mara: a quiet opening. Draw?"),
            Turn("2026-11-15T22:15Z", "F@h8", comment="Radu: not yet, thanks."),
            Turn("2026-11-16T09:30Z", "Fa1-a2"),
            Turn("2026-11-18T13:00Z", "T@a8", offer=True,
                 comment="Radu: now I would take the draw, if you like."),
        ])


ANNOTATED_TEXT = """\
{An opening with the alternatives the players looked at after the game.}
1. B@e1 B@d8 (1... B@a8 $6 {the corner base is slow to defend} 2. G@b1) 2. G@b1 G@g8
3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5 6. F@a1 F@h8 7. Fa1-b1!
(7. Fa1-a2 T@a8 {a calmer plan} (7... Fh8-g8 8. Fa2-b2)) 7... T@a8 8. Fb1=A Fh8-g8
9. M@b1:NE $1 {the jump gate points at the centre} Fg8=A *
"""


def annotated_variations() -> record.Record:
    """An annotated game: nested variations, NAGs, glyphs and comments, as read."""
    game = record.read_game(ANNOTATED_TEXT, "annotated-variations.tgn")
    game.tags.update({"Event": "Club analysis evening", "Site": "Constanta",
                      "Date": "2026.11.20", "Round": "-", "White": "Ana Petrescu",
                      "Black": "Bogdan Ionescu", "Result": "*", "Rules": "manual",
                      "Annotator": "Ana Petrescu"})
    return game


BUILT = {"correspondence-cup.tgn": correspondence_cup,
         "annotated-variations.tgn": annotated_variations}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    games = [(sample.name, build(sample)) for sample in ALL]
    games += [(name, builder()) for name, builder in BUILT.items()]
    for name, game in games:
        text = record.write(game)
        path = SAMPLES / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {path.relative_to(ROOT)} ({len(game.nodes)} actions, {game.result})")
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
