"""Every rule id a report can show is answered by ``musaport rules explain``.

Rules made by code (build-file edits and findings of ``run --src``, the include renames, the
stub exclusions) used to answer "no rule" although their ids are in the reports.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, ROOT, musaport
from musaport.cli import RULE_MAKERS
from musaport.resources import default_packs, extension_packs, optional_pack
from musaport.rewrite.explain import explain_id
from musaport.rewrite.packs import load_packs

EXTENSIONS = ROOT / "fixtures" / "extensions"


def _ids(report: dict) -> set[str]:
    """Every rule id in a porting report: the rules that fired and every finding's rule."""
    found = set(report.get("rules") or {})

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("rule"), str):
                found.add(value["rule"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(report)
    return found


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    base = tmp_path_factory.mktemp("registry")
    done = []
    for name in sorted(p.name for p in EXTENSIONS.iterdir() if p.is_dir()):
        src = base / "src" / name
        shutil.copytree(EXTENSIONS / name, src)
        result = musaport("run", "--src", str(src), "--out", str(base / name), "-q")
        assert result.returncode == 0, result.stderr
        done.append(json.loads((base / name / "porting_report.json").read_text()))
    tree = base / "pytorch"
    shutil.copytree(FIXTURE_TREE, tree)
    result = musaport("run", "--pytorch-src", str(tree), "--out", str(base / "pt"), "-q", "--pack", "torch-musa",
                      "--exclude-stubs", "abs_stub")
    assert result.returncode == 0, result.stderr
    done.append(json.loads((base / "pt" / "porting_report.json").read_text()))
    return done


@pytest.mark.slow
def test_every_rule_id_in_the_reports_is_explained(reports: list[dict]) -> None:
    ruleset = load_packs([*default_packs(), optional_pack("torch-musa"), *extension_packs()])
    ids = set().union(*(_ids(r) for r in reports))
    assert {"cmake-find-cuda", "setup-builder-imports", "exclude-stub-abs_stub"} <= ids  # made by code
    unexplained = sorted(i for i in ids if explain_id(i, ruleset, RULE_MAKERS) is None)
    assert unexplained == []


def test_rules_explain_answers_a_rule_made_by_code() -> None:
    done = musaport("rules", "explain", "cmake-find-cuda")
    assert done.returncode == 0, done.stderr
    assert "made by code, flag rule" in done.stdout and "buildfiles.py" in done.stdout
    done = musaport("rules", "explain", "exclude-stub-index_stub")
    assert done.returncode == 0 and "--exclude-stubs" in done.stdout
    done = musaport("rules", "explain", "no-such-rule")
    assert done.returncode == 2 and "no rule 'no-such-rule'" in done.stderr
