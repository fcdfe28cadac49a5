"""Validate modes are units: each result carries its exit code; the command line is made from MODES."""

from __future__ import annotations

import pytest

from conftest import musaport
from musaport.errors import LoadError
from musaport.validate import modes
from musaport.validate.modes import MODES, Invocation, Mode, Option, Result, choose


def test_a_result_carries_its_exit_code() -> None:
    assert Result(3, 3, "").exit_code == 0
    assert Result(2, 3, "").exit_code == 1
    assert Result(0, 0, "").exit_code == 0
    assert Result(0, 0, "", empty_fails=True).exit_code == 1  # --run that selects no kernel fails


def test_the_command_line_offers_every_mode_and_its_options() -> None:
    done = musaport("validate", "--help")
    assert done.returncode == 0
    for mode in MODES:
        assert mode.flag in done.stdout
        for option in mode.options:  # an old spelling is hidden: it only says what it is now
            assert (option.decls[0] in done.stdout) != option.hidden, option.decls


class _Fake(Mode):
    name = "fake"
    help = "A mode added by one class."
    options = (Option(("--fake-level",), "How fake.", kind="text"),)
    owns = ("fake_level",)

    def run(self, request: Invocation) -> Result:
        request.echo("PASS everything")
        return Result(1, 1, "1 of 1 faked")


def test_a_new_mode_is_one_class_and_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _Fake()
    monkeypatch.setattr(modes, "MODES", (*MODES, fake))
    assert choose({"fake": True}, {}, ()) is fake
    with pytest.raises(LoadError, match="give exactly one of --compile, --run, --backend, --opinfo, --merge-reports, --extension or --fake"):
        choose({"fake": True, "run": True}, {}, ())
    with pytest.raises(LoadError, match="--fake-level goes with --fake"):
        choose({"run": True}, {"fake_level": "3"}, ())
    lines: list[str] = []
    result = fake.run(Invocation(None, (), 1, echo=lines.append))  # type: ignore[arg-type]
    assert (lines, result.exit_code, fake.command) == (["PASS everything"], 0, "validate --fake")
