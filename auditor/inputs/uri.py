"""Inputs named by a URI (``s3://``, ``gs://``, ``abfs://``, ``file://``, ``memory://``), read
through fsspec, the optional ``cloud`` extra.

A URI names an object, or a prefix that stands for the objects below it as a directory stands
for its files (the same suffixes, the same order). Objects are streamed, never downloaded
whole first. Credentials are fsspec's business and its store package's (s3fs, gcsfs, adlfs:
the environment, the instance's role, the usual configuration files): nothing here reads,
logs or reports them, and a password written into a URI is masked wherever the URI is shown.

Every input is named as the user gave it: an object found below a prefix is the prefix as
given, plus its path below the prefix.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Final

from auditor.errors import AuditorError

_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_PASSWORD: Final = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^/@:]*):[^/@]*@")
EXTRA: Final = "pip install 'tool-schema-auditor[cloud]'"
_BUFFER: Final = 1 << 20
"""Bytes read from an object at a time: a request to a store costs far more than a byte."""


class UriUnavailable(AuditorError):
    """A URI that cannot be read at all: fsspec, or the package of its store, is missing, or
    its scheme is unknown (exit 2)."""


def is_uri(path: str) -> bool:
    """Whether ``path`` names an object by URI (``scheme://…``) rather than a local file."""
    return _SCHEME.match(path) is not None


def masked(uri: str) -> str:
    """``uri`` with the password of a ``user:password@`` part replaced by ``***``."""
    return _PASSWORD.sub(r"\1:***@", uri)


def _filesystem(uri: str) -> tuple[Any, str]:
    """fsspec's file system for ``uri``, and the path within it."""
    try:
        import fsspec  # an optional extra: imported where a URI is read
    except ImportError:
        raise UriUnavailable(
            f"{masked(uri)}: reading a URI needs fsspec, the cloud extra: {EXTRA}"
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(uri)
    except ImportError as error:  # the store's package: "Install s3fs to access S3"
        raise UriUnavailable(f"{masked(uri)}: {_reason(error)}") from None
    except ValueError as error:  # "Protocol not known: …"
        raise UriUnavailable(f"{masked(uri)}: cannot be read: {_reason(error)}") from None
    return fs, str(path)


def uri_files(
    uri: str, suffixes: tuple[str, ...], none: str
) -> tuple[list[str], list[tuple[str, str]]]:
    """``uri`` itself, or the objects below a prefix whose name ends with one of ``suffixes``
    (in any case) in the order of their paths, as URIs spelled from the one given; with
    ``(uri, reason)`` when the prefix cannot be listed, or holds no such object (``none``)."""
    fs, root = _filesystem(uri)
    try:
        if not fs.isdir(root):
            return [uri], []  # an object, or nothing: opening it says which
        found = fs.find(root, withdirs=False)
    except Exception as error:  # a store's errors are its own classes, not OSError
        return [], [(masked(uri), f"cannot list: {_reason(error)}")]
    start = root.rstrip("/") + "/"
    below = [
        path[len(start) :] if path.startswith(start) else path
        for path in found
        if path.rsplit("/", 1)[-1].lower().endswith(suffixes)
    ]
    if not below:
        return [], [(masked(uri), none)]
    prefix = uri.rstrip("/") + "/"
    return [prefix + path for path in sorted(below, key=lambda path: path.split("/"))], []


@contextmanager
def open_uri(uri: str) -> Iterator[IO[bytes]]:
    """A buffered binary stream of the object ``uri`` (with ``peek``, as a local file's)."""
    fs, path = _filesystem(uri)
    try:
        raw = fs.open(path, "rb")
    except OSError:
        raise
    except Exception as error:  # a store's own errors (no credentials, say): as an I/O error
        raise OSError(_reason(error)) from error
    with raw, io.BufferedReader(raw, _BUFFER) as stream:
        yield stream


def read_uri(uri: str, max_bytes: int) -> bytes | None:
    """The bytes of the object ``uri``, or None when it holds more than ``max_bytes``."""
    with open_uri(uri) as stream:
        data = stream.read(max_bytes + 1)
    return None if len(data) > max_bytes else data


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return " ".join(str(error).split()) or type(error).__name__
