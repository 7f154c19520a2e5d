"""CUDA C -> PTX (or a cubin) through NVRTC, loaded with ctypes, cached on disk.

NVRTC is a plain library: it compiles on a machine without a GPU. It is the file
``LAZYINFINI_NVRTC`` names where that is set; else it is found in the CUDA 12 wheel
``nvidia-cuda-nvrtc-cu12`` (``pip install "lazyinfini[cuda]"``; the test extra installs it too),
in ``nvidia/cuda_nvrtc/lib`` under site-packages, then in the CUDA 13 wheel
``nvidia-cuda-nvrtc`` 13 (``lazyinfini[cuda13]``), in ``nvidia/cu13/lib``, else as the
system's ``libnvrtc``. (CUDA 12's first: its cubins load under a CUDA 12 or 13 driver.) The
wheel's ``libnvrtc-builtins`` is loaded first with RTLD_GLOBAL: libnvrtc opens it by name, and
the wheel's directory is on no library path. Without NVRTC, `compile_cuda` raises
`NvrtcUnavailable` (an ImportError naming what to install); a source that does not compile
raises `NvrtcError` with NVRTC's log.

Every compile passes `OPTIONS`: no contraction into FMA (``--fmad=false``: a*b+c rounds twice,
as numpy computes it), float32 subnormals kept (``--ftz=false``, NVRTC's default, spelled out:
CuPy's own compiles add ``-ftz=true``), IEEE-rounded division and square root. Results are
cached in memory and under ``kernels/cuda`` of the C compiler's cache directory
(``compile.cache_dir()``), keyed by the source, the architecture, the options and NVRTC's
version; files are written atomically.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading

from .compile import NoCompiler, cache_dir

OPTIONS = ("--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true")
_LOCK = threading.Lock()
_COMPILED: dict[str, bytes] = {}


class NvrtcUnavailable(ImportError):
    """NVRTC cannot be loaded here: install nvidia-cuda-nvrtc-cu12 (lazyinfini[cuda])."""


class NvrtcError(RuntimeError):
    """NVRTC rejected a source (the message holds its log) or failed."""


@functools.cache
def library() -> ctypes.CDLL:
    """libnvrtc, loaded once (its builtins library first); NvrtcUnavailable when absent."""
    chosen = os.environ.get("LAZYINFINI_NVRTC")
    if chosen:
        found = _load_from(os.path.dirname(chosen), os.path.basename(chosen))
        if found is None:
            raise NvrtcUnavailable(f"LAZYINFINI_NVRTC={chosen} does not load as libnvrtc")
        return found
    for folder in _wheel_folders():
        found = _load_from(folder)
        if found is not None:
            return found
    name = ctypes.util.find_library("nvrtc")
    if name is not None:
        try:
            return _typed(ctypes.CDLL(name))
        except OSError:
            pass
    raise NvrtcUnavailable(
        "NVRTC (libnvrtc) is not installed: pip install nvidia-cuda-nvrtc-cu12 "
        '(or "lazyinfini[cuda]"; "lazyinfini[cuda13]" for CUDA 13)'
    )


def available() -> bool:
    """Whether NVRTC loads here."""
    try:
        library()
    except NvrtcUnavailable:
        return False
    return True


@functools.cache
def version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(library().nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def compile_cuda(source: str, arch: str = "compute_80", options: tuple[str, ...] = ()) -> bytes:
    """`source` compiled for `arch`: PTX text for a virtual architecture ("compute_80"), a cubin
    for a real one ("sm_90", which runs the assembler too). `options` come after `OPTIONS`."""
    flags = (f"--gpu-architecture={arch}", *OPTIONS, *options)
    key = hashlib.sha256("\0".join((source, *flags, repr(version()))).encode()).hexdigest()
    with _LOCK:
        found = _COMPILED.get(key)
    if found is None:
        path = _cached_path(key, "cubin" if arch.startswith("sm_") else "ptx")
        found = _read(path)
        if found is None:
            found = _compile(source, flags, arch.startswith("sm_"))
            _write(path, found)
        with _LOCK:
            _COMPILED[key] = found
    return found


def _compile(source: str, flags: tuple[str, ...], cubin: bool) -> bytes:
    lib = library()
    program = ctypes.c_void_p()
    text = source.encode()
    _check(
        lib.nvrtcCreateProgram(ctypes.byref(program), text, b"lazyinfini.cu", 0, None, None),
        "nvrtcCreateProgram",
    )
    try:
        argv = (ctypes.c_char_p * len(flags))(*(flag.encode() for flag in flags))
        result = lib.nvrtcCompileProgram(program, len(flags), argv)
        if result != 0:
            raise NvrtcError(f"NVRTC ({' '.join(flags)}) failed:\n{_log(program)[:4000]}")
        what = "CUBIN" if cubin else "PTX"
        size = ctypes.c_size_t()
        _check(getattr(lib, f"nvrtcGet{what}Size")(program, ctypes.byref(size)), what)
        out = ctypes.create_string_buffer(size.value)
        _check(getattr(lib, f"nvrtcGet{what}")(program, out), what)
        # NOTE: PTX ends with a NUL NVRTC counts in its size; a cubin is binary, taken whole
        return out.raw[: size.value - 1] if not cubin else out.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))


def _log(program) -> str:
    lib = library()
    size = ctypes.c_size_t()
    if lib.nvrtcGetProgramLogSize(program, ctypes.byref(size)) != 0:
        return "(no log)"
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, log)
    return log.value.decode(errors="replace")


def _check(result: int, call: str) -> None:
    if result != 0:
        message = library().nvrtcGetErrorString(result)
        raise NvrtcError(f"{call}: {message.decode() if message else result}")


def _wheel_folders() -> list[str]:
    """nvidia/cuda_nvrtc/lib (CUDA 12's wheel), then nvidia/cu13/lib (CUDA 13's), bin on
    Windows, in every site-packages holding them."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or spec.submodule_search_locations is None:
        return []
    sub = "bin" if sys.platform == "win32" else "lib"
    roots = list(spec.submodule_search_locations)
    return [os.path.join(root, wheel, sub) for wheel in ("cuda_nvrtc", "cu13") for root in roots]


def _load_from(folder: str, main: str | None = None) -> ctypes.CDLL | None:
    """libnvrtc of one wheel folder (`main`, or the file its pattern finds), after its builtins
    library (None: not there). The .alt libraries are the wheel's variants for another C++
    runtime: not ours."""
    patterns = ("nvrtc64_*.dll", "nvrtc-builtins64_*.dll")
    if sys.platform != "win32":
        patterns = ("libnvrtc.so.*", "libnvrtc-builtins.so.*")
    main, builtins = main or patterns[0], patterns[1]
    mains, extras = _matching(folder, main), _matching(folder, builtins)
    if not mains:
        return None
    try:
        for extra in extras:
            ctypes.CDLL(extra, mode=ctypes.RTLD_GLOBAL)
        return _typed(ctypes.CDLL(mains[-1]))
    except OSError:
        return None


def _matching(folder: str, pattern: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(folder, pattern)) if ".alt." not in p)


def _typed(lib: ctypes.CDLL) -> ctypes.CDLL:
    """The NVRTC calls we make, with their C types (every call returns an nvrtcResult int)."""
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
    lib.nvrtcCreateProgram.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_void_p,
    ]
    lib.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    for name in ("ProgramLog", "PTX", "CUBIN"):
        getattr(lib, f"nvrtcGet{name}Size").argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        getattr(lib, f"nvrtcGet{name}").argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    return lib


def _cached_path(key: str, suffix: str) -> str | None:
    """Where a compile is kept on disk (None: no cache directory of the user's own)."""
    try:
        folder = os.path.join(cache_dir(), "cuda")
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except (NoCompiler, OSError):
        return None
    return os.path.join(folder, f"{key[:32]}.{suffix}")


def _read(path: str | None) -> bytes | None:
    if path is None or not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read() or None
    except OSError:
        return None


def _write(path: str | None, data: bytes) -> None:
    """Atomically (a temporary file, then os.replace); a failure only skips the cache."""
    if path is None:
        return
    try:
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(path), delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, path)
    except OSError:
        pass
