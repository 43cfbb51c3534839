"""schema: inspect, choose, author and lint schema packs.

The group is ``vaultbrain/cli/schema/common.py``; its verbs register themselves from
``inspection.py``, ``choose.py``, ``proposals.py`` and ``authoring.py`` beside it, imported here.
"""

from __future__ import annotations

from vaultbrain.cli.schema import (  # noqa: F401 (verbs)
    authoring,
    choose,
    inspection,
    proposals,
    verbs,
)
from vaultbrain.cli.schema.common import schema

__all__ = ["schema"]
