"""C source -> a loaded shared library: the system compiler at first use, a disk cache after.

The cache key is the source, the flags, the compiler's version and the CPU's features (objects
built with -march=native are invalid on another CPU sharing the directory). Libraries are written
atomically (a temporary file, then os.replace) into a directory only the user can write, and
loaded only from such a directory. Every failure (no compiler, a compile error, a corrupt cached
file) raises CompileError; the caller falls back to the numpy path.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
import threading

# NOTE: never -ffast-math (NaN-unsafe, and clang's sets flush-to-zero for the whole process);
# -ffp-contract=off keeps a*b+c two roundings, as numpy computes it.
FLAGS = ("-O3", "-march=native", "-shared", "-fPIC", "-ffp-contract=off", "-fno-math-errno")
_LOCK = threading.Lock()
_LOADED: dict[str, ctypes.CDLL | CompileError] = {}


class CompileError(RuntimeError):
    """The C path is unavailable for a kernel: no compiler, a failed compile or load."""


class NoCompiler(CompileError):
    """No C compiler runs here, or no cache directory of the user's own: no kernel compiles."""


@functools.cache
def compiler() -> tuple[str, str] | None:
    """(path, identity) of the C compiler: $CC, else cc, gcc or clang; None if none is found.
    The identity (the real binary's path, size and time) keys the cache in place of running
    `--version`, which would cost a fresh process ~2 ms before its first cached kernel."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        real = os.path.realpath(path)
        try:
            info = os.stat(real)
        except OSError:
            continue
        return path, f"{real}:{info.st_size}:{info.st_mtime_ns}"
    return None


@functools.cache
def cpu_features() -> str:
    """The CPU's feature flags (part of the cache key: objects are built for this CPU)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.machine() + platform.processor()


def cache_dir() -> str:
    """LAZYINFINI_CACHE_DIR, else lazyinfini/kernels under the user's cache directory."""
    root = os.environ.get("LAZYINFINI_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lazyinfini", "kernels"
    )
    os.makedirs(root, mode=0o700, exist_ok=True)
    info = os.stat(root)
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise NoCompiler(f"kernel cache {root} is not the user's own (owner or mode): not used")
    return root


def load(source: str) -> ctypes.CDLL:
    """The library compiled from `source` (built now, or found in the cache)."""
    found = compiler()
    if found is None:
        raise NoCompiler("no C compiler found ($CC, cc, gcc, clang)")
    path, version = found
    key = hashlib.sha256("\0".join((source, *FLAGS, version, cpu_features())).encode()).hexdigest()
    with _LOCK:
        library = _LOADED.get(key)
        if isinstance(library, CompileError):
            raise library  # NOTE: a source that failed once fails again: not compiled again
        if library is None:
            try:
                library = _LOADED[key] = _load_or_build(path, key, source)
            except CompileError as error:
                _LOADED[key] = error
                raise
    return library


def load_function(source: str, name: str, argtypes) -> ctypes._CFuncPtr:
    """The function `name` of the library compiled from `source`, typed for ctypes calls."""
    return typed(load(source), name, argtypes)


def typed(library: ctypes.CDLL, name: str, argtypes) -> ctypes._CFuncPtr:
    """The function `name` of a loaded `library`, typed for ctypes calls (returning nothing);
    CompileError where the library lacks it."""
    try:
        function = getattr(library, name)
    except AttributeError:
        raise CompileError(f"the compiled library has no {name}") from None
    function.argtypes, function.restype = argtypes, None
    return function


def _load_or_build(path: str, key: str, source: str) -> ctypes.CDLL:
    target = os.path.join(cache_dir(), f"{key[:32]}.so")
    if os.path.exists(target):
        try:
            return ctypes.CDLL(target)
        except OSError:  # NOTE: a corrupt or truncated file: built again below
            os.unlink(target)
    _build(path, source, target)
    try:
        return ctypes.CDLL(target)
    except OSError as error:
        raise CompileError(f"the compiled kernel does not load: {error}") from None


def _build(path: str, source: str, target: str) -> None:
    folder = os.path.dirname(target)
    with tempfile.TemporaryDirectory(dir=folder) as work:
        c_file, so_file = os.path.join(work, "kernel.c"), os.path.join(work, "kernel.so")
        with open(c_file, "w") as handle:
            handle.write(source)
        try:
            done = subprocess.run(
                [path, *FLAGS, c_file, "-o", so_file, "-lm"],
                capture_output=True,
                text=True,
                timeout=120,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise NoCompiler(f"{path} did not run: {error}") from None
        if done.returncode != 0:
            raise CompileError(f"{path} failed: {done.stderr.strip()[:2000]}")
        os.replace(so_file, target)  # NOTE: atomic: a reader sees the old file or the new one
