"""Where cuda.coop's compiles take NVRTC, nvJitLink, the CUDA headers and the CCCL headers from.

For each piece the first of these that has it wins:

1. a CUDA_COOP_* variable naming that piece: CUDA_COOP_NVRTC_LIBRARY, CUDA_COOP_NVJITLINK_LIBRARY,
   CUDA_COOP_CUDA_INCLUDE, CUDA_COOP_CCCL_ROOT (read by the engine; used as given or an error);
2. cuda-pathfinder, as cuda-python, numba-cuda and CuPy use it. For the libraries: one this
   process already loaded (numba-cuda-mlir's NVRTC), the NVIDIA wheels in site-packages
   (nvidia-cuda-nvrtc, nvidia-nvjitlink), conda ($CONDA_PREFIX), the dynamic loader's path
   (LD_LIBRARY_PATH, ldconfig), then CUDA_PATH or CUDA_HOME. For the headers: the wheels
   (nvidia-cuda-runtime, nvidia-cuda-cccl), conda, CUDA_PATH or CUDA_HOME, then the system's
   toolkit (found from where its runtime library is, or /usr/local/cuda). The CCCL headers of
   the `cuda-cccl` package count as a wheel, after nvidia-cuda-cccl;
3. the engine's own search (CUDA_HOME, CUDA_PATH, site-packages/nvidia, /usr/local/cuda) for a
   piece cuda-pathfinder did not find, whose error names the pip package of each missing piece.

A CUDA_HOME or CUDA_PATH that is set but lacks a piece is a warning naming the variable and the
piece, once per process, rather than a silent fallback to another place.

cuda-pathfinder finds a library by loading it, which costs a millisecond or more per library, and a
process whose compiles all come from the disk cache never needs either library. So what it found is
noted in the disk cache (a note signed as the cache's entries are), named by a fingerprint of what
its search reads, and a later process with the same fingerprint takes the noted paths without
loading anything, as long as each noted file is the same file. A library the process loaded already
(numba-cuda-mlir's, once it has a context) is cuda-pathfinder's first answer, taken from the loader
without a search.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import importlib.util
import json
import os
import sys
import warnings

CCCL_MARKER = os.path.join("cub", "block", "block_load.cuh")
CUDA_MARKER = "cuda_fp16.h"

# The engine's field for each piece, its label, the variable that names it and its pip package.
PIECES = {
    "nvrtc_library": ("NVRTC", "CUDA_COOP_NVRTC_LIBRARY", "nvidia-cuda-nvrtc"),
    "nvjitlink_library": ("nvJitLink", "CUDA_COOP_NVJITLINK_LIBRARY", "nvidia-nvjitlink"),
    "cuda_include": ("CUDA headers", "CUDA_COOP_CUDA_INCLUDE", "nvidia-cuda-runtime"),
    "cccl_include": ("CCCL headers", "CUDA_COOP_CCCL_ROOT", "nvidia-cuda-cccl"),
}

_warned: set[tuple[str, str, str]] = set()


@dataclasses.dataclass(frozen=True)
class Found:
    """One piece: its path and how cuda-pathfinder (or the cuda-cccl lookup) found it."""

    path: str
    found_via: str  # "site-packages", "cuda-cccl", "conda", "CUDA_PATH", "CUDA_HOME", "system-search", ...


def _pathfinder():
    try:
        from cuda import pathfinder
    except ImportError:  # declared as a dependency; a source tree on sys.path may still lack it
        return None
    return pathfinder


def _library(libname: str) -> Found | None:
    pathfinder = _pathfinder()
    if pathfinder is None:
        return None
    failures = (pathfinder.DynamicLibNotFoundError, pathfinder.DynamicLibNotAvailableError, RuntimeError, OSError)
    try:
        loaded = pathfinder.load_nvidia_dynamic_lib(libname)
    except failures:  # not found or not loadable: the engine's own search reports it, naming the package
        return None
    if not loaded.abs_path:
        return None
    return Found(os.path.abspath(loaded.abs_path), str(loaded.found_via))


def _headers(libname: str, marker: str) -> Found | None:
    pathfinder = _pathfinder()
    if pathfinder is None:
        return None
    locate = getattr(pathfinder, "locate_nvidia_header_directory", None)
    try:
        if locate is not None:
            located = locate(libname)
            found = Found(located.abs_path, str(located.found_via)) if located else None
        else:  # cuda-pathfinder before locate_*: the path only
            path = pathfinder.find_nvidia_header_directory(libname)
            found = Found(path, "cuda-pathfinder") if path else None
    except (RuntimeError, OSError):  # an unknown name in an old cuda-pathfinder, an unreadable directory
        return None
    if found is None or not os.path.isfile(os.path.join(found.path, marker)):
        return None
    return found


def cuda_cccl_headers() -> str | None:
    """The CCCL headers of the `cuda-cccl` package (cuda/cccl/headers/include), found on sys.path
    without importing cuda.cccl."""
    for entry in sys.path:
        include = os.path.join(entry or ".", "cuda", "cccl", "headers", "include")
        if os.path.isfile(os.path.join(include, CCCL_MARKER)):
            return os.path.abspath(include)
    return None


def _cccl() -> Found | None:
    found = _headers("cccl", CCCL_MARKER)
    if found is not None and found.found_via == "site-packages":
        return found
    cuda_cccl = cuda_cccl_headers()
    if cuda_cccl is not None:
        return Found(cuda_cccl, "cuda-cccl")
    return found


# What the search reads besides the files it finds: the variables naming pieces or places
# (cuda-pathfinder also reads CONDA_PREFIX and the loader's path).
SEARCH_ENVIRONMENT = (
    "CUDA_COOP_CCCL_ROOT",
    "CUDA_COOP_CUDA_INCLUDE",
    "CUDA_COOP_NVJITLINK_LIBRARY",
    "CUDA_COOP_NVRTC_LIBRARY",
    "CUDA_COOP_WHEEL_ROOTS",
    "CUDA_HOME",
    "CUDA_PATH",
    "CONDA_PREFIX",
    "LD_LIBRARY_PATH",
)
_LOADER_CACHE = "/etc/ld.so.cache"  # where the loader's search finds what ldconfig knows
_NOTE_FORMAT = 1


def wheel_roots() -> list[str]:
    """Every site-packages/nvidia directory on sys.path, where pip's nvidia-* wheels put NVRTC,
    nvJitLink and the CUDA and CCCL headers, so a machine without a CUDA toolkit can compile."""
    roots = []
    for entry in sys.path:
        root = os.path.join(entry, "nvidia")
        if entry and os.path.isdir(root) and root not in roots:
            roots.append(root)
    return roots


def stamp(path: str):
    """A file's size, modification time and inode: a replaced or rewritten file changes it."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_size, found.st_mtime_ns, found.st_ino]


def search_inputs() -> list:
    """What the search of every piece reads, short of the files it finds: the variables, the
    cuda-cccl package's headers, each wheel root with the stamps of its packages' lib and include
    directories (installing or removing a wheel's library or headers changes one), the loader's
    cache and cuda-pathfinder itself."""
    parts = [[os.environ.get(name, "") for name in SEARCH_ENVIRONMENT], cuda_cccl_headers(), stamp(_LOADER_CACHE)]
    for root in wheel_roots():
        parts.append([root, stamp(root)])
        for package in sorted(_listing(root)):
            parts.append(
                [package, stamp(os.path.join(root, package, "lib")), stamp(os.path.join(root, package, "include"))]
            )
    spec = importlib.util.find_spec("cuda.pathfinder") if "cuda.pathfinder" not in sys.modules else None
    origin = getattr(sys.modules.get("cuda.pathfinder"), "__file__", None) or getattr(spec, "origin", None)
    parts.append(stamp(origin) if origin else None)
    return parts


def fingerprint(files) -> str:
    """The search's inputs and the stamps of `files`: equal fingerprints mean the search finds the
    same toolkit (an edit inside a header tree that leaves `files` alone is the provider cache's
    to see, through its header digest)."""
    parts = [search_inputs(), [[path, stamp(path)] for path in files]]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


# The file standing for each piece in a note: a library itself, a header tree by its marker.
def _marker_of(field: str, path: str) -> str:
    if field == "cuda_include":
        return os.path.join(path, CUDA_MARKER)
    if field == "cccl_include":
        return os.path.join(path, CCCL_MARKER)
    return path


def note_name(inputs: list) -> str:
    """The disk cache's note for these search inputs (search_inputs())."""
    digest = hashlib.sha256(json.dumps([_NOTE_FORMAT, inputs]).encode()).hexdigest()
    return "toolkit-located-" + digest[:32]


def note_text(found: dict[str, Found]) -> str:
    """`found` as a note: each piece's path, how it was found and its file's stamp."""
    pieces = {
        field: {"path": piece.path, "found_via": piece.found_via, "stamp": stamp(_marker_of(field, piece.path))}
        for field, piece in found.items()
    }
    return json.dumps({"format": _NOTE_FORMAT, "pieces": pieces}, sort_keys=True)


# The names the loader knows each library by, newest first, as cuda-pathfinder asks for them.
_SONAMES = {
    "nvrtc_library": ("libnvrtc.so.13", "libnvrtc.so.12"),
    "nvjitlink_library": ("libnvJitLink.so.13", "libnvJitLink.so.12"),
}
_RTLD_DI_LINKMAP = 2


class _LinkMap(ctypes.Structure):
    _fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p)]


def _dlinfo(*arguments) -> int:
    return ctypes.CDLL(None).dlinfo(*arguments)


def _loaded(soname: str) -> str | None:
    """The path of the library of this name the process has loaded, asking the loader without
    loading anything; None when none is, or the loader cannot say (no RTLD_NOLOAD or dlinfo:
    cuda-pathfinder's search answers instead)."""
    link_map = ctypes.POINTER(_LinkMap)()
    try:
        handle = ctypes.CDLL(soname, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        if _dlinfo(ctypes.c_void_p(handle._handle), _RTLD_DI_LINKMAP, ctypes.byref(link_map)) != 0 or not link_map:
            return None
    except (OSError, AttributeError):
        return None
    path = link_map.contents.l_name
    return os.path.abspath(os.fsdecode(path)) if path else None


def loaded_library(field: str) -> Found | None:
    """cuda-pathfinder's first answer, without its search: the library this process loaded already
    (numba-cuda-mlir's, once a context exists)."""
    for soname in _SONAMES[field]:
        path = _loaded(soname)
        if path:
            return Found(path, "was-already-loaded-from-elsewhere")
    return None


def _named(field: str) -> bool:
    """Whether a CUDA_COOP_* variable names this piece: the engine takes it as given."""
    return bool(os.environ.get(PIECES[field][1], "").strip())


def _loaded_libraries() -> dict[str, Found | None]:
    """loaded_library of each library no variable names."""
    return {field: loaded_library(field) for field in _SONAMES if not _named(field)}


def from_note(text: str | None, loaded: dict[str, Found | None] | None = None) -> dict[str, Found] | None:
    """The pieces of a note (note_text) when each file is still the one noted and no CUDA_COOP_*
    variable names a noted piece, with a library this process loaded already (`loaded`, as
    _loaded_libraries gives it) in place of the noted one (cuda-pathfinder's first answer); else
    None: search again."""
    try:
        note = json.loads(text) if text else None
        if not isinstance(note, dict) or note.get("format") != _NOTE_FORMAT:
            return None
        loaded = _loaded_libraries() if loaded is None else loaded
        found = {}
        for field, piece in note["pieces"].items():
            if field not in PIECES or _named(field):
                return None
            if loaded.get(field) is not None:
                found[field] = loaded[field]
                continue
            if piece["stamp"] is None or stamp(_marker_of(field, piece["path"])) != piece["stamp"]:
                return None
            found[field] = Found(piece["path"], piece["found_via"])
    except (ValueError, KeyError, TypeError):
        return None
    return found


def locate(loaded: dict[str, Found | None] | None = None) -> dict[str, Found]:
    """What cuda-pathfinder finds for each piece that no CUDA_COOP_* variable names; a library
    this process loaded already (`loaded`, as _loaded_libraries gives it) without its search."""
    loaded = _loaded_libraries() if loaded is None else loaded
    searches = {
        "nvrtc_library": lambda: loaded.get("nvrtc_library") or _library("nvrtc"),
        "nvjitlink_library": lambda: loaded.get("nvjitlink_library") or _library("nvJitLink"),
        "cuda_include": lambda: _headers("cudart", CUDA_MARKER),
        "cccl_include": _cccl,
    }
    found = {}
    for field, search in searches.items():
        if _named(field):
            continue
        piece = search()
        if piece is not None:
            found[field] = piece
    return found


def locate_or_recall(load_note) -> tuple[dict[str, Found], tuple[str, str] | None]:
    """locate()'s answer, and the note to keep for the next process (None when none is due).
    When every library is loaded already, locate() answers at once; else the note the disk cache
    holds for these search inputs (`load_note(name)`) answers when still valid."""
    loaded = _loaded_libraries()  # asked once: the loader's answers serve all three steps
    if all(piece is not None for piece in loaded.values()):
        return locate(loaded), None
    name = note_name(search_inputs())
    noted = from_note(load_note(name), loaded)
    if noted is not None:
        return noted, None
    found = locate(loaded)
    return found, (name, note_text(found))


def _root_holds(root: str, field: str) -> bool:
    if field in ("nvrtc_library", "nvjitlink_library"):
        prefix = "libnvrtc.so" if field == "nvrtc_library" else "libnvJitLink.so"
        return any(entry.startswith(prefix) for sub in ("lib64", "lib") for entry in _listing(os.path.join(root, sub)))
    if field == "cuda_include":
        return os.path.isfile(os.path.join(root, "include", CUDA_MARKER))
    return any(os.path.isfile(os.path.join(root, *sub, CCCL_MARKER)) for sub in (("include", "cccl"), ("include",)))


def _listing(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def warn_about_toolkit_roots(found: dict[str, str]) -> list[str]:
    """Warns once per variable and piece when CUDA_HOME or CUDA_PATH names a directory that lacks a
    piece; `found` maps each field to the path used instead ("" when none). Returns the messages."""
    messages = []
    for name in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(name, "").strip()
        if not root or not os.path.isdir(root):  # no directory at all: the engine says so
            continue
        for field, (label, _, package) in PIECES.items():
            if _root_holds(root, field) or (name, root, field) in _warned:
                continue
            _warned.add((name, root, field))
            used = found.get(field, "")
            instead = f"using {used} instead" if used else f"not found elsewhere either: pip install {package}"
            message = f"{name}='{root}' does not hold the {label} cuda.coop needs; {instead}"
            warnings.warn(message, RuntimeWarning, stacklevel=3)
            messages.append(message)
    return messages
