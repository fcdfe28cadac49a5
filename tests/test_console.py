"""musaport.console: full width off a terminal, progress only when a command asks for it, and few lines."""

from __future__ import annotations

import pytest

from musaport import console as con


@pytest.fixture(autouse=True)
def silent_again():
    yield
    con._reporter = con._Silent()


def test_off_a_terminal_a_console_is_as_wide_as_its_content(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert con.console().width == con.UNLIMITED
    monkeypatch.setenv("COLUMNS", "72")
    assert con.console().width == 72  # a width the user asked for wins


def test_library_code_prints_nothing_until_a_command_turns_progress_on(capsys) -> None:
    with con.phase("generating headers"):
        pass
    with con.steps("checking 3 files", 3) as counter:
        for _ in range(3):
            counter.advance()
    assert capsys.readouterr() == ("", "")


def test_phase_lines_off_a_terminal_are_few_and_on_stderr(capsys) -> None:
    con.progress(quiet=False)  # stderr is captured: not a terminal
    with con.phase("generating the ATen/ops headers"):
        pass
    with con.steps("checking 335 translation units", 335) as counter:
        for _ in range(335):
            counter.advance()
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[:2] == ["musaport: generating the ATen/ops headers ...", "musaport: checking 335 translation units ..."]
    counts = lines[2:]
    assert 5 <= len(counts) <= 10 and counts[0] == "musaport: 33 of 335 done", counts
    assert all(line.startswith("musaport: ") and line.endswith(" of 335 done") for line in counts)


def test_quiet_prints_nothing(capsys) -> None:
    con.progress(quiet=True)
    with con.phase("x"):
        pass
    assert capsys.readouterr() == ("", "")
