"""Every code example in README.md and docs/*.md runs here, so the docs cannot go stale.

The rules for a fenced block in those files:

- Only ```python blocks run. Every block names its language; ```bash and ```text blocks are
  not run.
- The python blocks of one file run in order in one namespace (a later block uses the names of
  an earlier one), in an empty temporary directory, so files they write land there.
- A python block whose first line starts with ``>>>`` is a doctest: its shown results and
  exceptions are checked.
- A ```text block right after a python block (blank lines between are allowed) is what that
  block prints, compared as doctest does with ELLIPSIS: ``...`` stands for any text (ids,
  timings, source lines).
- The line just before a block may say ``<!-- skip: why -->`` (never run) or
  ``<!-- needs: program -->`` (run only where that program is on PATH). Keep these rare.

examples/quickstart.py runs too, in a subprocess.
"""

from __future__ import annotations

import contextlib
import dataclasses
import doctest
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lazyinfini import _numpy_functions

ROOT = Path(__file__).resolve().parent.parent
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"python", "bash", "text"}
MAX_SKIPS = 2

_FENCE = re.compile(r"^```(\S*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*(skip|needs):\s*(.+?)\s*-->$")


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced block: its language, code, first code line (1-based) and what precedes it."""

    language: str
    code: str
    line: int
    directive: tuple[str, str] | None  # ("skip", why) or ("needs", program)
    follows_python: bool  # only blank lines since the end of a python block


def blocks_of(path: Path) -> list[Block]:
    return parse_blocks(path.read_text(), path.name)


def parse_blocks(text: str, name: str) -> list[Block]:
    lines = text.splitlines()
    found: list[Block] = []
    previous, after_python, i = "", False, 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            if lines[i].strip():
                previous, after_python = lines[i].strip(), False
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        assert end is not None, f"{name}:{i + 1}: a code block is never closed"
        directive = _DIRECTIVE.match(previous)
        code = "\n".join(lines[i + 1 : end]) + "\n"
        language = match.group(1)
        found.append(Block(language, code, i + 2, directive and directive.groups(), after_python))
        previous, after_python, i = "", language == "python", end + 1
    return found


def _skip_reason(block: Block) -> str | None:
    if block.directive is None:
        return None
    kind, value = block.directive
    if kind == "skip":
        return value
    return None if shutil.which(value) else f"needs {value}, which is not installed"


def _run(block: Block, path: Path, namespace: dict) -> str:
    """Run a python block in `namespace`; returns what it printed."""
    name = path.relative_to(ROOT).as_posix()
    if block.code.lstrip().startswith(">>>"):
        return _run_doctest(block, name, namespace)
    # NOTE: padded so that tracebacks (and the source lines the library records) give the
    # markdown file's own line numbers.
    code = compile("\n" * (block.line - 1) + block.code, str(path), "exec")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(code, namespace)
    return printed.getvalue()


def _run_doctest(block: Block, name: str, namespace: dict) -> str:
    test = doctest.DocTestParser().get_doctest(block.code, namespace, name, name, block.line - 1)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = io.StringIO()
    runner.run(test, out=report.write, clear_globs=False)
    assert runner.failures == 0, f"{name}:{block.line}: doctest failed\n{report.getvalue()}"
    return ""


def _check_output(expected: Block, printed: str, name: str) -> None:
    checker = doctest.OutputChecker()
    if not checker.check_output(expected.code, printed, doctest.ELLIPSIS):
        example = doctest.Example("", expected.code)
        diff = checker.output_difference(example, printed, doctest.ELLIPSIS)
        raise AssertionError(f"{name}:{expected.line}: the output shown is not what runs\n{diff}")


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_markdown_blocks_run(path: Path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # NOTE: a page runs as in a fresh process: a fallback warns once per function, and a test
    # before it in this worker (np.median of the numpy-programs fuzz) may have warned already
    monkeypatch.setattr(_numpy_functions, "_WARNED", set())
    namespace: dict = {"__name__": "__docs__"}
    skipped = []
    printed = None  # the output of the last python block run, for a text block after it
    for block in blocks_of(path):
        if block.language == "text" and block.follows_python and printed is not None:
            _check_output(block, printed, path.name)
        printed = None
        if block.language != "python":
            continue
        reason = _skip_reason(block)
        if reason is not None:
            skipped.append(f"line {block.line}: {reason}")
            continue
        printed = _run(block, path, namespace)
    if skipped:
        pytest.skip(f"every other block ran; skipped {'; '.join(skipped)}")


def test_every_block_names_a_known_language():
    for path in MARKDOWN:
        for block in blocks_of(path):
            assert block.language in LANGUAGES, (
                f"{path.name}:{block.line}: a ```{block.language} block; name one of "
                f"{sorted(LANGUAGES)} (only python runs: tests/test_docs.py)"
            )


def test_skip_markers_are_rare_and_say_why():
    marked = [
        (path.name, block.line, block.directive)
        for path in MARKDOWN
        for block in blocks_of(path)
        if block.directive is not None
    ]
    assert len(marked) <= MAX_SKIPS, marked
    for name, line, (_, why) in marked:
        assert why, f"{name}:{line}: a skip marker must say why"
    # NOTE: a marker must sit right before a python block, or it silently does nothing.
    for path in MARKDOWN:
        text = path.read_text()
        markers = len(re.findall(r"^<!--\s*(?:skip|needs):", text, flags=re.M))
        used = sum(1 for b in blocks_of(path) if b.directive and b.language == "python")
        assert markers == used, f"{path.name}: a skip/needs marker not right before a python block"


def test_parser_reads_blocks_outputs_and_markers():
    """The parser itself: a python block, its output, a marker; a bash block is not python."""
    sample = (
        "intro\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "<!-- needs: dot -->\n```python\nx = 1\n```\n```bash\nls\n```\n"
    )
    found = parse_blocks(sample, "sample.md")
    assert [b.language for b in found] == ["python", "text", "python", "bash"]
    assert found[0].line == 4 and found[0].code == "print(1)\n"
    assert found[1].follows_python and not found[2].follows_python
    assert found[2].directive == ("needs", "dot") and found[3].directive is None
    assert found[3].follows_python  # follows a python block; only python output is checked


def test_quickstart_runs():
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "matches numpy" in result.stdout
