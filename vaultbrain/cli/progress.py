"""A progress line on a terminal: counts, share, rate and time left, redrawn in place.

Commands that work through many notes (``reindex``, ``adopt --apply``, a first ``search``
building its index) hand one to the core function as its ``progress(done, total)``; nothing
is drawn when the output is not a terminal.
"""

from __future__ import annotations

import sys
import time

import click


class Progress:
    """``progress(done, total)`` drawn as ``[####....] 1,200/12,000 notes 10%  850 notes/s
    13 s left``, ten times a second at most, on stderr (stdout stays the command's answer)."""

    def __init__(self, label: str = "notes", err: bool = True) -> None:
        self.label = label
        self.err = err
        self.started = time.monotonic()
        self.done = self.total = 0
        self._shown = 0.0

    @classmethod
    def on_terminal(cls, label: str = "notes", quiet: bool = False) -> Progress | None:
        """A progress line when stderr is a terminal (and the command is not ``--json``)."""
        return None if quiet or not sys.stderr.isatty() else cls(label)

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if done < total and now - self._shown < 0.1:
            return
        self._shown = now
        elapsed = max(now - self.started, 1e-6)
        rate = done / elapsed
        width = 30
        filled = int(width * done / total) if total else width
        left = (total - done) / rate if rate > 0 and done < total else 0.0
        line = (
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} {self.label} "
            f"{100 * done // max(total, 1)}%  {rate:,.0f} {self.label}/s"
            + (f"  {_duration(left)} left" if done < total and done else "")
        )
        click.echo(line.ljust(90), nl=False, err=self.err)

    def close(self) -> None:
        if self._shown:
            click.echo(err=self.err)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"
    return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"
