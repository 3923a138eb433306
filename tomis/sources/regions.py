"""Records in one text: each found, the one to read chosen, its places traced back.

A reply often quotes the records before it. :func:`find_regions` finds each record in
one pass; :func:`choose_region` takes the one that extends the others (same game, their
actions its first ones), passes over a quoted one that no longer reads, and refuses two
that diverge, naming both places. :class:`MailPlaces` and :class:`ExtractedPlaces` map a
place in the text handed to the reader back to the file as saved.
"""

from __future__ import annotations

import copy
import re
from bisect import bisect_left
from dataclasses import dataclass

from ..errors import FileError, RecordError, TomisError
from ..mail import quotes
from ..mail.webmail import Repaired, describe
from ..notation import record
from ..rules.position import to_string


@dataclass
class _Region:
    """One record found in the text: the extracted text and the body lines it spans."""

    extracted: quotes.Extracted
    offset: int            # body lines before the slice the extraction ran on
    first: int             # body line of its first line
    last: int              # body line of its last line (the result's)
    shown_shift: int = 0   # saved-file lines before the body, when they are known

    def locate(self, line: int, column: int | None) -> tuple[int, int | None]:
        line, column = self.extracted.locate(line, column)
        return line + self.offset, column

    @property
    def quoted(self) -> bool:
        """Was it quoted mail (``>``), i.e. part of an earlier message?"""
        return any(note.startswith("removed mail quoting") for note in self.extracted.notes)

    @property
    def span(self) -> str:
        return f"lines {self.first + self.shown_shift}-{self.last + self.shown_shift}"


_TAIL_NOTE = "ignored the text after the last result"
_FIRST_WINDOW = 256            # lines; doubled while a record runs past it
MAX_RECORDS_PER_MESSAGE = 100
_DIGEST_TAG = re.compile(r'^\s*\[\s*Digest\s+"', re.MULTILINE)


def find_regions(text: str, one_game: bool = False) -> list[_Region]:
    """The records in ``text``: the first as :func:`quotes.extract_record` finds it, then one
    more after each result that mail text follows, as long as another record starts.

    One pass over the text, not one per record (a message of many small records took
    minutes, issue 23): after the first record, the lines are split once, where a record
    may start is found once, and each further record is extracted from a window of lines just large enough that the result
    is the one the whole rest of the text would give (see :func:`_extract_window`). At most
    :data:`MAX_RECORDS_PER_MESSAGE` records are kept. With ``one_game`` (a message's
    text), each game and each quote level is a record of its own (quotes.extract_record).
    """
    # The first record as the whole text gives it; most texts hold one, and a 16 MiB
    # archive should not be split into lines to learn that (issue 16).
    extracted = quotes.extract_record(text, one_game)
    regions = [_region(extracted, 0)]
    if not _was_cut(extracted) or regions[0].last <= 0:
        return regions
    lines = text.split("\n")
    tag_lines, move_lines = quotes.record_start_lines(lines)
    offset = regions[0].last
    while offset < len(lines):
        if regions and not _starts_at_or_after(offset, tag_lines, move_lines):
            break
        if len(regions) == MAX_RECORDS_PER_MESSAGE:
            raise FileError(f"this text holds more than {MAX_RECORDS_PER_MESSAGE} records; "
                            "a reply never quotes that many: save the one you mean on its own")
        extracted, cut = _extract_window(lines, offset, tag_lines, one_game)
        regions.append(_region(extracted, offset))
        if not cut or regions[-1].last <= offset:
            break
        offset = regions[-1].last
    return regions


_LEADING_BLANKS = re.compile(r"\s*")


def _region(extracted, offset: int) -> _Region:
    # The last row holding more than blanks (a cut leaves an empty row at the end),
    # counted in place: copies of a 16 MiB archive cost 16 MiB each (issue 16).
    content_rows = extracted.text.count("\n", 0, _content_end(extracted.text)) + 1
    # Its first row holding more than blanks: blank lines kept before a record are not it.
    first_row = extracted.text.count("\n", 0, _LEADING_BLANKS.match(extracted.text).end()) + 1
    first = extracted.locate(min(first_row, content_rows))[0] + offset
    last = extracted.locate(content_rows)[0] + offset
    return _Region(extracted, offset, first, last)


def _was_cut(extracted) -> bool:
    return any(note.startswith(_TAIL_NOTE) for note in extracted.notes)


def _starts_at_or_after(offset: int, tag_lines: list[int], move_lines: list[int]) -> bool:
    return bool(tag_lines and tag_lines[-1] >= offset or move_lines and move_lines[-1] >= offset)


def _extract_window(lines: list[str], offset: int, tag_lines: list[int], one_game: bool):
    """``(extracted, cut)``: the record of ``lines[offset:]``, extracted from the fewest
    lines that give the same answer as all of them.

    A window of whole lines, doubled until the extraction ends at a result inside it (the
    text after that result, up to the next line's end, decides the cut, and it is the same
    in the window as in the whole), and, when the record it found starts without a tag,
    until no tag line lies beyond (a tag line anywhere is preferred as the start).
    """
    size = _FIRST_WINDOW
    while True:
        end = min(len(lines), offset + size)
        extracted = quotes.extract_record("\n".join(lines[offset:end]), one_game)
        cut = _was_cut(extracted)
        if end == len(lines):
            return extracted, cut
        next_tag = bisect_left(tag_lines, offset)
        tag_settled = next_tag == len(tag_lines) or tag_lines[next_tag] < end
        if cut and tag_settled:
            return extracted, cut
        size *= 2


def _content_end(text: str) -> int:
    """The length of ``text`` without its trailing blanks (``len(text.rstrip())``, no copy)."""
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    return end


def _same_game(one, other) -> bool:
    names = ("White", "Black", "Event", "Site", "Round", "Date")
    return (to_string(one.start) == to_string(other.start)
            and all(one.tags.get(n) == other.tags.get(n) for n in names))


def _first_difference(short, long) -> int | None:
    """0-based index of the first action where ``short`` leaves ``long``, or None if a prefix."""
    for index, (a, b) in enumerate(zip(short.nodes, long.nodes)):
        if str(a.action) != str(b.action):
            return index
    return None if len(short.nodes) <= len(long.nodes) else len(long.nodes)


def extends(short, long) -> bool:
    """Is record ``long`` the same game as ``short``, with ``short``'s actions its first ones?"""
    return _same_game(short, long) and _first_difference(short, long) is None


def choose_region(regions: list[_Region], locate_body) -> tuple[_Region, list[str]]:
    """The record to take among several, and notes on why; a divergence is a RecordError.

    ``locate_body(line, column)`` maps a body place to the saved file's (for messages).
    """
    if len(regions) == 1:
        return regions[0], []
    read = [(region, record.read(region.extracted.text)) for region in regions]
    read, notes = _pass_over_broken_quotes(read)
    for region, checked in read:
        if not _one_valid_game(checked):
            spans = ", ".join(r.span for r, _ in read)
            return region, notes + [
                f"found {len(read)} records ({spans}); the one at {region.span} does not "
                f"read as one valid game, so it is the one checked"]
    if len(read) == 1:
        return read[0][0], notes
    games = [(region, checked[0].game) for region, checked in read]
    newest_region, newest = max(games, key=lambda pair: len(pair[1].nodes))
    for region, game in games:
        if region is newest_region:
            continue
        difference = None if _same_game(game, newest) else 0
        if difference is None:
            difference = _first_difference(game, newest)
        if difference is not None:
            raise _divergence(region, game, newest_region, newest, difference, locate_body)
    others = [r.span for r, _ in games if r is not newest_region]
    shorter = sum(1 for _, g in games if len(g.nodes) < len(newest.nodes))
    why = ("it extends the other record(s): their actions are its first ones"
           if shorter else "all hold the same actions; the first is taken")
    # The reader checks a Digest tag and then drops it: look for the tag in the text.
    digest = ("and its Digest checks" if _DIGEST_TAG.search(newest_region.extracted.text)
              else "but it has no Digest tag to check")
    return newest_region, notes + [
        f"found {len(games)} records of this game; took the one at {newest_region.span} "
        f"({len(newest.nodes)} actions), not {', '.join(others)}: {why}, {digest}"]


def _one_valid_game(checked) -> bool:
    return len(checked) == 1 and checked[0].error is None


def _pass_over_broken_quotes(read):
    """Drop quoted records that do not read when an unquoted one does: a quote is an old
    message, often damaged by the reply (an answer typed inside it, a client re-wrapping
    it), while the unquoted record is the new one. Each dropped record gets a note."""
    fresh = [region for region, checked in read
             if not region.quoted and _one_valid_game(checked)]
    if not fresh:
        return read, []
    kept, notes = [], []
    for region, checked in read:
        if region.quoted and not _one_valid_game(checked):
            problem = next((c.error for c in checked if c.error is not None), None)
            why = f" ({problem.message})" if problem is not None else ""
            notes.append(f"passed over the quoted record at {region.span}: it does not read "
                         f"as one valid game{why}")
        else:
            kept.append((region, checked))
    return kept, notes


class DifferentGames(RecordError):
    """Two records of a text are not of one game (not two versions of one that diverge)."""


def _divergence(region, game, newest_region, newest, index, locate_body) -> RecordError:
    """Both places, the earlier first; located at the differing action of ``newest``."""
    upper, lower = sorted((region, newest_region), key=lambda r: r.first)
    kind = RecordError
    if index >= len(game.nodes) or index >= len(newest.nodes) or not _same_game(game, newest):
        where = newest_region.locate(newest.line, 1)
        what = "hold different games"
        kind = DifferentGames
    else:
        action = newest.nodes[index].action
        where = newest_region.locate(action.line, action.column)
        by_region = {id(region): game.nodes[index].action, id(newest_region): action}
        what = (f"diverge at action {index + 1}: {by_region[id(upper)]} at {upper.span} "
                f"but {by_region[id(lower)]} at {lower.span}")
    line, column = locate_body(*where)
    return kind(f"the records at {upper.span} and {lower.span} {what}; "
                f"keep the one you mean and delete the other", line, column)


# --------------------------------------------------------------------------- the text handed on

class MailPlaces:
    """Where a place of the record text handed to the reader stands in the saved file:
    back through the extraction, the repairs and the message; an error placed there also
    names debris the reader stumbled on."""

    def __init__(self, text: str, region: _Region, repaired: Repaired, first_line: int):
        self._text, self._region, self._repaired = text, region, repaired
        self._shift = first_line - 1

    def locate(self, line: int, column: int | None = None) -> tuple[int, int | None]:
        return self._to_file(*self._region.locate(line, column))

    def _to_file(self, line: int, column: int | None) -> tuple[int, int | None]:
        if column is not None:
            column = self._repaired.original_column(line, column)
        return line + self._shift, column

    def located(self, error: TomisError) -> TomisError:
        """A copy of ``error`` at its place in the saved file, with a hint about debris
        when a repaired or strange character stands there; ``error`` is left as it was."""
        if error.line is None or error.line < 1:
            return error
        seen = _char_at(self._text, error.line, error.column)
        body_line, _ = self._region.locate(error.line, error.column)
        moved = copy.copy(error)
        moved.line, moved.column = self.locate(error.line, error.column)
        hint = describe(seen) if seen else None
        if hint is None:
            hint = self._repaired_hint(body_line)
        if hint:
            moved.message = f"{error.message}; {hint}"
        return moved

    def _repaired_hint(self, body_line: int) -> str | None:
        near = self._repaired.on_lines(body_line, body_line)
        if not near:
            return None
        item = near[0]
        return (f"this line had {describe(item.char)}, read as "
                f"{repr(item.becomes) if item.becomes else 'nothing'}")


class ExtractedPlaces:
    """Places in a record dug out of plain text, traced back through the extraction."""

    def __init__(self, extracted: quotes.Extracted):
        self._extracted = extracted

    def locate(self, line: int, column: int | None = None) -> tuple[int, int | None]:
        return self._extracted.locate(line, column)

    def located(self, error: TomisError) -> TomisError:
        """A copy of ``error`` at its place in the original text."""
        if error.line is None or error.line < 1:
            return error
        moved = copy.copy(error)
        moved.line, moved.column = self.locate(error.line, error.column)
        return moved


def _char_at(text: str, line: int, column: int | None) -> str | None:
    if not column or column < 1:
        return None
    lines = text.split("\n")
    if line > len(lines) or column > len(lines[line - 1]):
        return None
    return lines[line - 1][column - 1]
