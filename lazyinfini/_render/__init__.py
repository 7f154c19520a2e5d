"""Kernel records -> source text (a C dialect; CUDA C next) and the compiler that loads it.

Between `_schedule` (which makes the records) and `_runtime` (which runs them): pure functions of
frozen records, plus `compile.load`, the one place that runs the system compiler.
"""
