"""A thought's way from an inbox line to notes: journal, route, classify, plan, write, lines.

:mod:`~vaultbrain.capture.pipeline` runs the steps; each step is a module of its own. The
person's decisions on a capture are here too: :mod:`~vaultbrain.capture.resolution`
(confirm, resolve, dismiss) and :mod:`~vaultbrain.capture.review` (``Brain/Needs Review.md``).
Capture builds on :mod:`vaultbrain.filing`, which never imports it.
"""

from __future__ import annotations

from vaultbrain.capture.model import Capture, CaptureStatus, PlannedOp

__all__ = ["Capture", "CaptureStatus", "PlannedOp"]
