"""Emitters for ``musaport check``: text, Markdown, JSON, SARIF 2.1.0, JUnit XML.

Each takes the check's JSON document and returns text; Markdown comes from a
template so that what a pull-request comment says can be edited as text.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, Callable

from musaport import __version__
from musaport.check.compare import CATEGORIES
from musaport.outdir import CHECK_REPORTS
from musaport.resources import render_template

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_text(doc: dict[str, Any]) -> str:
    """A terminal summary: counts per category, then every finding on one line."""
    lines = [f"musaport check: {doc['old']} -> {doc['new']}"]
    for category, count in doc["summary"].items():
        mark = "FAIL" if count and category in doc["fail_on"] else "    "
        lines.append(f"  {mark} {category:<19} {count}")
    for f in doc["findings"]:
        where = f"{f['file']}:{f['line']}: " if f["file"] and f["line"] else (f"{f['file']}: " if f["file"] else "")
        lines.append(f"{f['category']}: {where}{f['message']}")
    lines.append("result: " + ("failed (see categories marked FAIL)" if doc["failed"] else "passed"))
    return "\n".join(lines) + "\n"


# A GitHub comment holds at most 65,536 characters and docs/ci/musaport-check.yml posts the
# Markdown whole; a little is left for what a workflow may add around it.
MARKDOWN_LIMIT = 60_000
_TOPS = (50, 20, 10, 5, 3, 1, 0)  # findings shown per category, most first, until the comment fits
_MESSAGE_CHARS = 300


def render_markdown(doc: dict[str, Any], limit: int = MARKDOWN_LIMIT) -> str:
    """A pull-request comment: summary table first, then the first findings of each category folded
    below, as many per category as fit in ``limit`` characters (the JSON report has them all)."""
    groups = {c: [_clipped(f) for f in doc["findings"] if f["category"] == c] for c in CATEGORIES}
    total = len(doc["findings"])
    text = ""
    for top in _TOPS:
        shown = sum(min(top, len(g)) for g in groups.values())
        text = render_template("check.md.j2", doc=doc, groups=groups, descriptions=CATEGORIES, top=top,
                               shown=shown, total=total)
        if len(text) <= limit:
            break
    return text


def _clipped(finding: dict[str, Any]) -> dict[str, Any]:
    message = finding["message"]
    if len(message) > _MESSAGE_CHARS:
        message = message[: _MESSAGE_CHARS - 1] + "…"
    return {**finding, "message": message}


def render_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def render_sarif(doc: dict[str, Any]) -> str:
    """SARIF 2.1.0: one rule per category, one result per finding with a location."""
    rules = [
        {"id": c, "name": c.replace("-", " "), "shortDescription": {"text": d}}
        for c, d in CATEGORIES.items()
    ]
    results = []
    for f in doc["findings"]:
        result: dict[str, Any] = {
            "ruleId": f["category"],
            "level": "error" if f["category"] in doc["fail_on"] else "warning",
            "message": {"text": f["message"]},
        }
        if f["file"]:
            region = {"startLine": f["line"]} if f["line"] else {}
            location = {"artifactLocation": {"uri": f["file"], "uriBaseId": "PYTORCH_SRC"}}
            if region:
                location["region"] = region
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    run = {
        "tool": {"driver": {"name": "musaport", "version": __version__, "rules": rules}},
        "originalUriBaseIds": {"PYTORCH_SRC": {"description": {"text": "the new PyTorch source tree"}}},
        "results": results,
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def render_junit(doc: dict[str, Any]) -> str:
    """JUnit XML: a test case per finding (failing when its category is selected),
    and a passing case for each category without findings."""
    suites = ET.Element("testsuites", name="musaport check")
    for category, description in CATEGORIES.items():
        found = [f for f in doc["findings"] if f["category"] == category]
        failing = category in doc["fail_on"]
        suite = ET.SubElement(suites, "testsuite", name=category, tests=str(max(1, len(found))),
                              failures=str(len(found) if failing else 0))
        if not found:
            ET.SubElement(suite, "testcase", classname=category, name=f"no {description}")
        for f in found:
            case = ET.SubElement(suite, "testcase", classname=category, name=f["subject"] or f["message"])
            if f["file"]:
                case.set("file", f["file"])
                if f["line"]:
                    case.set("line", str(f["line"]))
            if failing:
                ET.SubElement(case, "failure", message=f["message"], type=category)
            else:
                ET.SubElement(case, "system-out").text = f["message"]
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


FORMATS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "text": (CHECK_REPORTS["text"], render_text),
    "md": (CHECK_REPORTS["md"], render_markdown),
    "json": (CHECK_REPORTS["json"], render_json),
    "sarif": (CHECK_REPORTS["sarif"], render_sarif),
    "junit": (CHECK_REPORTS["junit"], render_junit),
}
