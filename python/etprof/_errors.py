"""etprof.Error and its subclasses: one per etp_status (etprof/error.h)."""
import ctypes

from . import _lib


class Error(Exception):
    """A failure reported by libetprof.

    code: the status' short name ("io", "format", ...); status: its number;
    message: what is wrong; file: the file at fault (or None); offset: the
    byte offset in it (or None)."""

    def __init__(self, code, message, file=None, offset=None, status=None):
        self.code, self.message, self.file, self.offset, self.status = (
            code, message, file, offset, status)
        where = f"{file}: " if file else ""
        at = f" (offset {offset})" if offset is not None else ""
        super().__init__(f"{where}{message}{at}")

    @property
    def exit_status(self):
        """The exit status `etprof` gives for this failure (etprof/exit_status.h:
        2 for a usage error, 1 for any other)."""
        # An Error made without a status counts as ETP_E_INTERNAL (8): exit 1.
        return _lib.lib.etp_exit_status_of(self.status if self.status is not None else 8)


class ReadError(Error):
    """The file could not be opened or read (ETP_E_IO)."""


class FormatError(Error):
    """The bytes are not a valid file of the expected kind (ETP_E_FORMAT)."""


class TruncatedError(FormatError):
    """The file ends before the data it declares (ETP_E_TRUNCATED)."""


class LimitError(Error):
    """A size, count or depth cap was exceeded (ETP_E_LIMIT)."""


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed (ETP_E_NOMEM)."""


class MismatchError(Error):
    """The inputs are valid one by one but disagree (ETP_E_MISMATCH)."""


class UsageError(Error, ValueError):
    """The call asked for something impossible (ETP_E_USAGE)."""


class InternalError(Error):
    """A bug in etprof (ETP_E_INTERNAL)."""


_BY_STATUS = {1: ReadError, 2: FormatError, 3: TruncatedError, 4: LimitError,
              5: OutOfMemoryError, 6: MismatchError, 7: UsageError, 8: InternalError}


def from_c(status, err):
    """The exception for a failed call: its status and filled etp_error."""
    name = _lib.s(_lib.lib.etp_status_name(status)) or str(status)
    message = err.message.decode("utf-8", "replace") or name
    file = err.file.decode("utf-8", "replace") or None
    offset = None if err.offset < 0 else int(err.offset)
    return _BY_STATUS.get(status, Error)(name, message, file, offset, status)


def usage(message):
    return UsageError("usage", message, status=7)


def new_error():
    return _lib.Error_()


def check(status, err):
    if status:
        raise from_c(status, err)


__all__ = ["Error", "ReadError", "FormatError", "TruncatedError", "LimitError",
           "OutOfMemoryError", "MismatchError", "UsageError", "InternalError"]
