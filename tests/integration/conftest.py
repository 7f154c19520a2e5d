"""Integration tests: libraries that take any Array API namespace, run on lazyinfini arrays.

SciPy (and scikit-learn's array_api_dispatch) read SCIPY_ARRAY_API when SciPy is first imported.
tests/conftest.py sets it before any test module loads; this is for a run that starts here.
test_scipy.py and test_sklearn.py skip, saying why, if SciPy was imported without it anyway
(SCIPY_ARRAY_API=0 from the caller, or a plugin importing SciPy first).
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")
