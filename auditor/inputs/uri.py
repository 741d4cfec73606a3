"""Inputs named by a URI (``s3://``, ``gs://``, ``abfs://``, ``file://``, ``memory://``), read
through fsspec, the optional ``cloud`` extra.

A URI names an object, or a prefix that stands for the objects below it as a directory stands
for its files (the same suffixes, the same order). Objects are streamed, never downloaded
whole first. Credentials are fsspec's business and its store package's (s3fs, gcsfs, adlfs:
the environment, the instance's role, the usual configuration files): nothing here reads,
logs or reports them, and a password written into a URI is masked wherever the URI is shown.

Every input is named as the user gave it: an object found below a prefix is the prefix as
given, plus its path below the prefix.

Which URIs are read at all (``check_uri``): the object stores docs/inputs.md lists and local
files, never a chained URL (``zip://a::s3://b``) or a caching one (``simplecache::``), never
fsspec's other file systems (``reference://``, ``dir://``, ``tar://``, ``github://`` …);
``http(s)://`` and ``ftp://`` only where the command line allows the network (the command
checks that where it takes the paths: the parts a worker reads are spelled from them). A
store's failure is said by its errno, HTTP status or exception class, never by its text,
which may quote what the store answered.
"""

from __future__ import annotations

import errno
import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Final

from auditor.errors import AuditorError

_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_PASSWORD: Final = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^/@:]*):[^/@]*@")
_QUERY: Final = re.compile(r"\?.*", re.DOTALL)
STORES: Final = ("s3", "s3a", "gs", "gcs", "abfs", "abfss", "az", "file", "memory")
"""The schemes read: the object stores docs/inputs.md lists, local files and fsspec's memory."""
WEB: Final = ("http", "https", "ftp")
"""The schemes read only where the command line allows the network (``--allow-web-uris``)."""
WEB_FLAG: Final = "--allow-web-uris"
EXTRA: Final = "pip install 'tool-schema-auditor[cloud]'"
_BUFFER: Final = 1 << 20
"""Bytes read from an object at a time: a request to a store costs far more than a byte."""


class UriUnavailable(AuditorError):
    """A URI that cannot be read at all: fsspec, or the package of its store, is missing, or
    its scheme is not one auditor reads (exit 2)."""


def is_uri(path: str) -> bool:
    """Whether ``path`` names an object by URI (``scheme://…``) rather than a local file."""
    return _SCHEME.match(path) is not None


def scheme(uri: str) -> str:
    """The scheme of ``uri``, in lower case (``S3://b`` -> ``s3``)."""
    return uri.partition("://")[0].lower()


def masked(uri: str) -> str:
    """``uri`` with the password of a ``user:password@`` part replaced by ``***``, and the
    query of a web URI (a presigned URL's signature, a token) by ``?***``."""
    shown = _PASSWORD.sub(r"\1:***@", uri)
    return _QUERY.sub("?***", shown) if scheme(shown) in WEB else shown


def check_uri(uri: str, web: bool = False, web_hint: str = f"give {WEB_FLAG} to read it") -> None:
    """Refuse ``uri`` (``UriUnavailable``, naming it masked) unless auditor reads its scheme:
    one of ``STORES``, or of ``WEB`` when ``web`` (the command line allowed the network),
    never chained (``::``). ``web_hint`` says how to allow a web URI, where it can be. A
    local path (no ``scheme://``) passes."""
    if not is_uri(uri):
        return
    name = scheme(uri)
    if "::" in uri:
        raise UriUnavailable(
            f"{masked(uri)}: a chained URL (::) is not read; name the object's own URI"
        )
    if name in WEB and not web:
        raise UriUnavailable(f"{masked(uri)}: {name}:// reaches the network; {web_hint}")
    if name not in STORES and name not in WEB:
        raise UriUnavailable(
            f"{masked(uri)}: {name}:// is not read (auditor reads {', '.join(STORES)}; "
            f"{', '.join(WEB)} with {WEB_FLAG})"
        )


def _filesystem(uri: str) -> tuple[Any, str]:
    """fsspec's file system for ``uri``, and the path within it. Nothing but the schemes
    auditor reads gets this far (the command checked the network's, ``check_uri``)."""
    check_uri(uri, web=True)
    try:
        import fsspec  # an optional extra: imported where a URI is read
    except ImportError:
        raise UriUnavailable(
            f"{masked(uri)}: reading a URI needs fsspec, the cloud extra: {EXTRA}"
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(uri)
    except ImportError as error:  # the store's package: "Install s3fs to access S3"
        raise UriUnavailable(f"{masked(uri)}: {' '.join(str(error).split())}") from None
    except Exception as error:  # an FTP server met while connecting, a malformed URI
        raise UriUnavailable(f"{masked(uri)}: cannot be read: {_reason(error)}") from None
    return fs, str(path)


def local_path(uri: str) -> str | None:
    """The path on this machine that a ``file://`` URI names, as fsspec reads it; None for
    any other URI."""
    if scheme(uri) != "file":
        return None
    return _filesystem(uri)[1]


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
    except Exception as error:  # a store's own errors (no credentials, say): as an I/O error
        raise _plain(error) from None
    with raw, io.BufferedReader(_Plain(raw), _BUFFER) as stream:
        yield stream


def read_uri(uri: str, max_bytes: int) -> bytes | None:
    """The bytes of the object ``uri``, or None when it holds more than ``max_bytes``."""
    with open_uri(uri) as stream:
        data = stream.read(max_bytes + 1)
    return None if len(data) > max_bytes else data


class _Plain(io.RawIOBase):
    """An object's stream whose failures say nothing the store sent (``_plain``)."""

    def __init__(self, raw: Any) -> None:
        super().__init__()
        self._raw = raw

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._call(self._raw.seekable))

    def readinto(self, buffer: Any) -> int:
        data = self._call(self._raw.read, len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return int(self._call(self._raw.seek, offset, whence))

    def tell(self) -> int:
        return int(self._call(self._raw.tell))

    def _call(self, method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except Exception as error:
            raise _plain(error) from None


def _plain(error: BaseException) -> OSError:
    """``error`` as an OSError of the same errno (``FileNotFoundError`` stays one), saying
    only ``_reason``: a store's message may quote its response (a body, a credential)."""
    number = error.errno if isinstance(error, OSError) else None
    if isinstance(error, FileNotFoundError):
        number = errno.ENOENT
    return OSError(number if isinstance(number, int) else None, _reason(error))


def _reason(error: BaseException) -> str:
    """Why a store failed, in words of this machine: the errno's text (``Permission
    denied``), else the exception's class and the HTTP status it carries, never its text."""
    if isinstance(error, OSError) and isinstance(error.errno, int) and error.errno > 0:
        return os.strerror(error.errno)
    status = getattr(error, "status", None)
    said = f" (status {status})" if isinstance(status, int) and not isinstance(status, bool) else ""
    return f"{type(error).__name__}{said}"
