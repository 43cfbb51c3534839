"""``vaultbrain tend``: the nightly maintenance cycle (consolidate, drift, backlinks, takes,
enrich, embed, orphans, schema) and its morning report. See vaultbrain/tend/cycle.py."""

from __future__ import annotations
