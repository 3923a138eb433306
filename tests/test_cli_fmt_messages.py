"""``tomis fmt`` on a saved message: refused in one line that names the command that
keeps its record, and the file is left as it was (fmt rewrites record files only)."""

from __future__ import annotations

import shutil

from conftest import invoke
from mail_support import MAIL


def test_fmt_refuses_a_saved_message_and_says_how_to_keep_its_record(tmp_path):
    saved = tmp_path / "reply.eml"
    shutil.copy(MAIL / "apple-top-qp.eml", saved)
    before = saved.read_bytes()
    for options in ([], ["--check"]):
        result = invoke("fmt", *options, saved)
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            f"{saved}: a saved message, not a record file: fmt rewrites records only; "
            f"keep its record with  tomis extract {saved} > game.tgn"]
        assert saved.read_bytes() == before


def test_fmt_still_formats_a_record_that_starts_like_a_tag(tmp_path):
    record = tmp_path / "g.tgn"
    record.write_text('[White "Ana"]\n\n1. B@e1   B@d8 *\n', encoding="utf-8")
    assert invoke("fmt", record).exit_code == 0
    assert "1. B@e1 B@d8 *" in record.read_text(encoding="utf-8")
