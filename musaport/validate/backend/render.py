"""How ``validate --backend`` results look on a terminal: one row per operator and dtype."""

from __future__ import annotations

from musaport.validate.backend.backend import OpResult, Status

_STYLE = {Status.PASS: "green", Status.FAIL: "red", Status.BUILD_ERROR: "red", Status.SKIPPED: "yellow"}


def rows(results: list[OpResult]) -> list[tuple[str, str, str, str, str]]:
    """(operator, dtype, max error, status, detail): a row per dtype run, one per operator that did not run."""
    table = []
    for r in results:
        if not r.dtypes:
            table.append((r.op, "", "", r.status, r.reason))
        for d in r.dtypes:
            table.append((r.op, d.dtype, f"{d.max_error:.3g}", d.status, d.detail))
    return table


def backend_table(results: list[OpResult], console) -> None:
    """Print the rows as a rich table (status coloured)."""
    from rich.table import Table  # deferred: only this command draws it

    table = Table("operator", "dtype", "max error", "status", "detail")
    for op, dtype, err, status, detail in rows(results):
        style = _STYLE.get(status, "")
        table.add_row(op, dtype, err, f"[{style}]{status}[/{style}]" if style else status, detail[:120])
    console.print(table)
