"""Options from the environment (read at import) and from li.options: what is accepted, and the
clear errors for what is not."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import lazyinfini as li
from lazyinfini._options import parse_debug, parse_flag, parse_size

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _import_with(**env) -> subprocess.CompletedProcess:
    """`import lazyinfini` in a fresh interpreter with `env` set; prints the options it read."""
    code = "import lazyinfini as li; print(li._options.current())"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("LAZYINFINI_")}
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_import_reads_words_and_sizes():
    done = _import_with(
        LAZYINFINI_DEBUG="yes",
        LAZYINFINI_POOL_BYTES="1GB",
        LAZYINFINI_FUSE="off",
        LAZYINFINI_STRICT="True",
    )
    assert done.returncode == 0, done.stderr
    assert "fuse=False, strict=True, debug=1, pool_bytes=1000000000)" in done.stdout


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("LAZYINFINI_POOL_BYTES", "lots", "LAZYINFINI_POOL_BYTES: cannot read 'lots' as a size"),
        ("LAZYINFINI_DEBUG", "maybe", "LAZYINFINI_DEBUG: cannot read 'maybe' as a debug level"),
    ],
)
def test_import_with_an_unreadable_variable_says_which_and_how(variable, value, message):
    done = _import_with(**{variable: value})
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ValueError: {message}"), last
    assert "examples" in last or "use" in last


@pytest.mark.parametrize(
    "text, size",
    [
        ("1073741824", 2**30),
        ("1GiB", 2**30),
        ("512MiB", 512 * 2**20),
        ("64KiB", 64 * 2**10),
        ("1GB", 10**9),
        ("64KB", 64_000),
        ("1.5gb", 1_500_000_000),
        (" 2 mib ", 2 * 2**20),
        ("0", 0),
        ("10B", 10),
    ],
)
def test_sizes_decimal_and_binary_units(text, size):
    assert parse_size("V", text) == size


@pytest.mark.parametrize("text", ["lots", "-1", "1 GBs", "1e9", "GiB", "1,000", "0x10", "1 2"])
def test_sizes_that_are_not_sizes(text):
    with pytest.raises(ValueError, match=r"^V: cannot read .* as a size \(examples: 1GiB"):
        parse_size("V", text)


@pytest.mark.parametrize("text, flag", [("1", True), ("YES", True), ("on", True), ("off", False)])
def test_flags(text, flag):
    assert parse_flag("V", text) is flag


@pytest.mark.parametrize("text, level", [("0", 0), ("3", 3), ("yes", 1), ("No", 0), ("true", 1)])
def test_debug_levels_and_words(text, level):
    assert parse_debug("V", text) == level


@pytest.mark.parametrize("text", ["maybe", "-1", "1.5", "high"])
def test_debug_rejects_the_rest(text):
    with pytest.raises(ValueError, match="^V: cannot read"):
        parse_debug("V", text)


def test_options_check_value_types():
    with pytest.raises(TypeError, match="^options: fuse must be True or False"):
        with li.options(fuse=1):
            pass
    with pytest.raises(ValueError, match="^options: debug must be a level"):
        with li.options(debug="1"):
            pass
    with li.options(debug=True, strict=False) as current:
        assert current.debug == 1


def test_set_options_lasts_until_changed_again():
    before = li._options.current()
    try:
        li.set_options(fuse=False, debug=0)
        assert li._options.current().fuse is False
        y = li.asarray([1.0, 2.0]) * 2 + 1
        assert len(li.inspect.schedule(y).kernels) == 2  # one kernel per node: fusion is off
    finally:
        li.set_options(fuse=before.fuse, debug=before.debug)
    assert li._options.current() == before


def test_device_option_and_its_executor_alias():
    with li.options(executor="reference") as chosen:
        assert chosen.device == "reference"
    with li.options(device="reference"):
        plan = li.inspect.schedule(li.asarray([1.0]) * 2 + 1)
        assert {len(k.nodes) for k in plan.kernels} == {1} and len(plan.kernels) >= 3
    with pytest.raises(TypeError, match="^options: give device= or its alias executor="):
        with li.options(device="cpu", executor="cpu"):
            pass
    with pytest.raises(ValueError, match="^options: unknown device 'gpu'"):
        with li.options(device="gpu"):
            pass


def test_the_environment_names_the_device():
    done = _import_with(LAZYINFINI_EXECUTOR="reference")
    assert done.returncode == 0, done.stderr
    assert "device='reference'" in done.stdout
