"""Filing: turning classified thoughts into record notes and keeping notes and store in step."""

from __future__ import annotations
