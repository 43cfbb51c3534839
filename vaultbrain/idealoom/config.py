"""The integration's settings, read together so every caller sees one consistent view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

KEYS = ("idealoom.enabled", "idealoom.auto_export", "idealoom.folder")


@dataclass(frozen=True)
class LoomSettings:
    enabled: bool
    auto_export: bool
    folder: str

    @property
    def auto_export_on(self) -> bool:
        """Automatic export needs both opt-ins."""
        return self.enabled and self.auto_export

    @classmethod
    def read(cls, app: Brain, *, reload: bool = False) -> LoomSettings:
        """The settings now; ``reload`` re-reads the file (another process may have changed it)."""
        if reload:
            app.settings.reload()
        get = app.settings.get
        return cls(
            enabled=bool(get("idealoom.enabled")),
            auto_export=bool(get("idealoom.auto_export")),
            folder=str(get("idealoom.folder")).strip().strip("/") or "Idea Loom",
        )


def change_settings(
    app: Brain,
    *,
    enabled: str | None = None,
    auto_export: str | None = None,
    folder: str | None = None,
) -> None:
    """Set any of the three keys (values as typed; the settings module checks them)."""
    for key, value in zip(KEYS, (enabled, auto_export, folder), strict=True):
        if value is not None:
            app.settings.set(key, value)


def describe_settings(app: Brain) -> list[dict[str, object]]:
    """Each key with its value and where the value comes from (set or default)."""
    app.settings.reload()
    return [
        {"key": name, "value": value, "source": source}
        for name, value, source in app.settings.items()
        if name in KEYS
    ]
