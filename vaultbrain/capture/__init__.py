"""A thought's way from an inbox line to notes: journal, route, classify, plan, write, lines.

:mod:`~vaultbrain.capture.pipeline` runs the steps; each step is a module of its own.
"""

from __future__ import annotations

from vaultbrain.capture.model import Capture, CaptureStatus, PlannedOp

__all__ = ["Capture", "CaptureStatus", "PlannedOp"]
