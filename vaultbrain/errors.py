"""The error hierarchy. The CLI turns these into one-line messages and exit codes."""

from __future__ import annotations


class VaultbrainError(Exception):
    """Base of every error vaultbrain raises on purpose."""

    exit_code = 1


class UserError(VaultbrainError):
    """Something the person can fix; the message says what to do next."""


class UnsafePathError(UserError):
    """A path that would lead outside the vault or the state dir."""


class StorageError(UserError):
    """The disk refused a write (full, read-only, no permission); nothing was half-written."""

    @classmethod
    def from_os(cls, exc: OSError, what: str) -> StorageError:
        import errno

        reason = {
            errno.ENOSPC: "no space left on the disk",
            errno.EROFS: "the file system is read-only",
            errno.EACCES: "permission denied",
            errno.EPERM: "permission denied",
            errno.EDQUOT: "the disk quota is exhausted",
        }.get(exc.errno or 0, exc.strerror or str(exc))
        return cls(f"cannot write {what}: {reason}; nothing was changed, try again once fixed")


class ConflictError(VaultbrainError):
    """A compare-and-swap write found the file changed since it was read."""


class LLMError(VaultbrainError):
    """The LLM server failed or answered something we cannot use.

    ``kind`` names the failure so callers act on it without reading the message (the kinds
    are listed in ``vaultbrain/classify/llm.py``); ``retryable`` says whether the same request
    may succeed later unchanged; ``cause`` is one short line a note or a log may show, free of
    the server's raw text (that stays in the message, for the audit trail).
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "error",
        retryable: bool = False,
        cause: str | None = None,
        partial: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.cause = cause or message.split("; ", 1)[0][:160]
        self.partial = partial  # what the model had said when it was cut off (kind "length")


def write_failure(exc: Exception) -> str:
    """What a failed write says, in one line: a :class:`StorageError`'s reason (without its
    "nothing was changed", which a caller whose thought is already in the inbox must not
    say), or an ``OSError``'s, with the file it names."""
    if isinstance(exc, StorageError):
        return str(exc).split("; nothing was changed")[0]
    filename = getattr(exc, "filename", None)
    return f"{getattr(exc, 'strerror', None) or exc}" + (f" ({filename})" if filename else "")
