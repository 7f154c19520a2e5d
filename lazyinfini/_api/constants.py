"""The standard's constants. Spec: https://data-apis.org/array-api/latest/API_specification/constants.html"""

from __future__ import annotations

import math

e = math.e
inf = math.inf
nan = math.nan
newaxis = None
pi = math.pi
