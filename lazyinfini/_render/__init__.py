"""Kernel records -> source text (the C and CUDA dialects) and the compilers that load it.

Between `_schedule` (which makes the records) and `_runtime` (which runs them): pure functions of
frozen records, plus `compile.load`, the one place that runs the system compiler, and
`nvrtc.compile_cuda`, NVRTC's.
"""
