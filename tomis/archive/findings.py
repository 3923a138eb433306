"""Findings: one problem found in an archive, with a stable rule id, as plain data.

Every report format (:mod:`tomis.reports`) says the same thing about a problem: its rule
id, file, game, line, column, action and message. A :class:`Finding` carries exactly that,
and crosses process boundaries (it pickles small), unlike the exceptions it is made from.

Rule ids are stable; new ones may be added, none is ever renamed:

- ``R1`` ... ``R23``: an action or record the rules forbid; the ruling the message cites
  (the first one of its last citation, so ``(R6, R7)`` gives ``R6``).
- ``N-...``: the notation and the record format (docs/NOTATION.md), where no ruling is at
  stake or the record's own claim is wrong: see :data:`RULES`.
- ``F-...``: the file as a whole.
- ``X-internal``: a bug in tomis itself.
"""

from __future__ import annotations

from ..errors import FileError, NotationError, TomisError
from ..util.lazyre import LazyPattern
from ..util.plain import Plain

RULING_TITLES = {
    "R1": "Board and directions", "R2": "Pieces and reserves", "R3": "Squares, units and gates",
    "R4": "Turns and move numbers", "R5": "Bases first", "R6": "Gates, in a forced order",
    "R7": "Opening before the main phase", "R8": "Deploy", "R9": "Move", "R10": "Gate toggle",
    "R11": "Markers", "R12": "Gate jump", "R13": "Gate strike", "R14": "Jump",
    "R15": "Attacks", "R16": "Targets", "R17": "Attack points and defence",
    "R18": "Resolution", "R19": "Base", "R20": "Flagship unlock", "R21": "Victory",
    "R22": "Other endings", "R23": "Resignation and agreement",
}

NOTATION_RULES = {
    "N-syntax": "Text that is not record syntax (a word that is no action, an unclosed comment, ...)",
    "N-tag": "A tag pair the reader refuses (twice the same tag, an unknown Rules edition, "
             "a bad Position tag)",
    "N-result": "The result token disagrees with the Result tag or with a decided position",
    "N-digest": "The Digest tag is malformed or does not match the actions",
    "N-destroyed": "A (sq,...) suffix names other squares than the combat destroyed (R15-R19)",
    "N-annotation": "A glyph, numeric annotation or suffix in the wrong place or form",
    "N-limit": "A documented size limit exceeded (MAX_... in docs/SECURITY.md)",
    "N-record": "Any other problem with a record's form",
    "F-unreadable": "The file cannot be read: missing, a folder, not UTF-8, binary, too large",
    "F-no-game": "The file holds no game at all",
    "X-internal": "A bug in tomis (please report it)",
}

RULES = {**{rid: title for rid, title in RULING_TITLES.items()}, **NOTATION_RULES}

# The patterns read a failing game's message: compiled when the first one fails.
# The last parenthesised citation in a message, e.g. "(R15)", "(R6, R7)", "(R5-R7)".
_CITATION = LazyPattern(r"\((R\d+)[^()]*\)")
# Record-level claims, recognised by the reader's wording (tests/test_reports.py pins each).
_CLAIMS = (
    ("N-limit", LazyPattern(r"\(MAX_[A-Z_]+\)")),
    ("N-digest", LazyPattern(r"\bthe Digest tag\b")),
    ("N-destroyed", LazyPattern(r"\bthe record says the combat destroyed\b|destroyed squares are given twice")),
    ("N-result", LazyPattern(r"\bthe Result tag\b|\bit must end with\b|\bbut the record ends with\b")),
    ("N-tag", LazyPattern(r"\bthe tag \w+ appears twice|\bthe (Rules|Position) tag\b")),
    ("N-annotation", LazyPattern(r"annotation|must follow an action|glyph")),
)


class Finding(Plain):
    """One problem: where it is and which rule it breaks.

    ``game`` and ``action`` are 1-based (None when not about one); ``line`` and
    ``column`` are 1-based places in the file as the user has it (None when unknown).
    Not changed once made: :meth:`moved` gives a changed copy. (A Plain class rather
    than a dataclass: the walker loads this module at every validate.)
    """

    __slots__ = ("rule", "message", "path", "game", "line", "column", "action", "source")

    def __init__(self, rule: str, message: str, path: str | None = None,
                 game: int | None = None, line: int | None = None, column: int | None = None,
                 action: int | None = None, source: str | None = None):
        self.rule = rule
        self.message = message
        self.path = path
        self.game = game
        self.line = line
        self.column = column
        self.action = action
        self.source = source        # the offending line as the user has it, for a caret

    def moved(self, **changes) -> Finding:
        """A copy with the fields named in ``changes`` changed."""
        fields = dict(zip(self.__slots__, self._fields()))
        fields.update(changes)
        return Finding(**fields)

    def located(self) -> str:
        """``path:line:column: message``, exactly as :meth:`TomisError.located` writes it."""
        error = TomisError(self.message, self.line, self.column)
        error.path = self.path
        return error.located()

    def error_json(self) -> dict:
        """The ``error`` object of ``validate --json`` (README): line, column, action, message."""
        return {"line": self.line, "column": self.column, "action": self.action,
                "message": self.message}


def rule_id(error: Exception, message: str | None = None) -> str:
    """The stable rule id of ``error`` (a TomisError), judged on ``message`` (default its own).

    Pass the message without its ``game N`` prefix where there is one; the prefix says
    nothing about the rule.
    """
    text = error.message if message is None and hasattr(error, "message") else (message or str(error))
    if isinstance(error, FileError):
        return "F-unreadable"
    if text.startswith("no game found"):
        return "F-no-game"
    for rid, pattern in _CLAIMS[:3]:        # limits, digest, destroyed: whatever the class
        if pattern.search(text):
            return rid
    if isinstance(error, NotationError):
        return "N-syntax"
    for rid, pattern in _CLAIMS[3:]:
        if pattern.search(text):
            return rid
    citations = _CITATION.findall(text)
    if citations and citations[-1] in RULING_TITLES:
        return citations[-1]
    return "N-record"


def internal_finding(error: BaseException, path: str | None) -> Finding:
    """A bug of ours met while reading ``path``: that file fails, the run goes on."""
    text = str(error)
    text = text if len(text) <= 200 else text[:200] + "..."
    return Finding("X-internal", f"internal error: {type(error).__name__}: {text} "
                   "(please report it; TOMIS_DEBUG=1 shows the traceback)", path)
