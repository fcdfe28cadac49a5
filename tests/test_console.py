"""The command line's console and progress: full width off a terminal, few phase lines, nothing unasked."""

from __future__ import annotations

from musaport import cli
from musaport.validate.compile.compile import Progress


def test_off_a_terminal_a_console_is_as_wide_as_its_content(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert cli.console().width == cli.UNLIMITED
    monkeypatch.setenv("COLUMNS", "72")
    assert cli.console().width == 72  # a width the user asked for wins


def test_library_code_says_nothing_unless_given_a_reporter(capsys) -> None:
    progress = Progress()  # what validate_compile and check use when the caller gives none
    with progress.phase("generating headers"):
        pass
    with progress.steps("checking 3 files", 3) as counter:
        for _ in range(3):
            counter.advance()
    assert capsys.readouterr() == ("", "")


def test_phase_lines_off_a_terminal_are_few_and_on_stderr(capsys) -> None:
    progress = cli.phase_reporter(quiet=False)  # stderr is captured: not a terminal
    assert isinstance(progress, cli.PhaseLines)
    with progress.phase("generating the ATen/ops headers"):
        pass
    with progress.steps("checking 335 translation units", 335) as counter:
        for _ in range(335):
            counter.advance()
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[:2] == ["musaport: generating the ATen/ops headers ...", "musaport: checking 335 translation units ..."]
    counts = lines[2:]
    assert len(counts) == 9 and counts[0] == "musaport: 34 of 335 done", counts
    assert all(line.startswith("musaport: ") and line.endswith(" of 335 done") for line in counts)
    with progress.steps("building 19 kernels", 19) as counter:
        for _ in range(19):
            counter.advance()
    assert len(capsys.readouterr().err.splitlines()) == 1 + 9  # a small loop is not a line per step


def test_quiet_says_nothing(capsys) -> None:
    progress = cli.phase_reporter(quiet=True)
    with progress.phase("x"):
        pass
    with progress.steps("y", 10) as counter:
        counter.advance(10)
    assert capsys.readouterr() == ("", "")
