"""The daemon: the quiet front end that watches the vault and files what is due."""

from __future__ import annotations
