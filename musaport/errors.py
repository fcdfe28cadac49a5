"""The errors a user sees as one line, and the exit codes every command shares.

A ``LoadError`` is bad input (a data file, a path, an option): its message
names the file and, where there is one, the line.  The CLI prints it as one
``musaport: error:`` line and exits with ``EXIT_USAGE``.
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class LoadError(Exception):
    """An input that cannot be used; the message names file and line."""
