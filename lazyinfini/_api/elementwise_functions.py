"""The element-wise functions of the standard beyond the seed ops, one declaration each.

Spec: https://data-apis.org/array-api/latest/API_specification/elementwise_functions.html
Each records one elementwise node (they fuse like subtract and clip). Transcendental functions
accept integers and compute them in the default float dtype, as numpy does.
"""

from __future__ import annotations

from .. import _dtypes
from .._graph import Op
from .elementwise import _binary, _unary

# arithmetic. Extension (numpy): bool operands compute in int8, numpy's first loop bool casts
# to (see elementwise.py)
_AS_INT8 = _dtypes.int8
floor_divide = _binary("floor_divide", Op.FLOOR_DIVIDE, "real numeric or boolean", on_bool=_AS_INT8)
remainder = _binary("remainder", Op.REMAINDER, "real numeric or boolean", on_bool=_AS_INT8)
pow = _binary("pow", Op.POW, "numeric or boolean", on_bool=_AS_INT8)
square = _unary("square", Op.SQUARE, "numeric or boolean", on_bool=_AS_INT8)
reciprocal = _unary("reciprocal", Op.RECIPROCAL, "numeric", result="floating")
sign = _unary("sign", Op.SIGN, "numeric")
# rounding
ceil = _unary("ceil", Op.CEIL, "real numeric")
floor = _unary("floor", Op.FLOOR, "real numeric")
trunc = _unary("trunc", Op.TRUNC, "real numeric")
round = _unary("round", Op.ROUND, "numeric")
# complex parts
conj = _unary("conj", Op.CONJ, "numeric")
real = _unary("real", Op.REAL, "numeric", result="real")
imag = _unary("imag", Op.IMAG, "numeric", result="real")
# floating-point tests
isfinite = _unary("isfinite", Op.ISFINITE, "numeric", result="bool")
isinf = _unary("isinf", Op.ISINF, "numeric", result="bool")
isnan = _unary("isnan", Op.ISNAN, "numeric", result="bool")
signbit = _unary("signbit", Op.SIGNBIT, "real numeric", result="bool")
# two real floats
atan2 = _binary("atan2", Op.ATAN2, "real numeric", result="floating")
copysign = _binary("copysign", Op.COPYSIGN, "real numeric", result="floating")
hypot = _binary("hypot", Op.HYPOT, "real numeric", result="floating")
logaddexp = _binary("logaddexp", Op.LOGADDEXP, "real numeric", result="floating")
nextafter = _binary("nextafter", Op.NEXTAFTER, "real numeric", result="floating")
# exponentials and logarithms
exp = _unary("exp", Op.EXP, "numeric", result="floating")
expm1 = _unary("expm1", Op.EXPM1, "numeric", result="floating")
log = _unary("log", Op.LOG, "numeric", result="floating")
log1p = _unary("log1p", Op.LOG1P, "numeric", result="floating")
log2 = _unary("log2", Op.LOG2, "numeric", result="floating")
log10 = _unary("log10", Op.LOG10, "numeric", result="floating")
sqrt = _unary("sqrt", Op.SQRT, "numeric", result="floating")
# trigonometric and hyperbolic
sin = _unary("sin", Op.SIN, "numeric", result="floating")
cos = _unary("cos", Op.COS, "numeric", result="floating")
tan = _unary("tan", Op.TAN, "numeric", result="floating")
asin = _unary("asin", Op.ASIN, "numeric", result="floating")
acos = _unary("acos", Op.ACOS, "numeric", result="floating")
atan = _unary("atan", Op.ATAN, "numeric", result="floating")
sinh = _unary("sinh", Op.SINH, "numeric", result="floating")
cosh = _unary("cosh", Op.COSH, "numeric", result="floating")
tanh = _unary("tanh", Op.TANH, "numeric", result="floating")
asinh = _unary("asinh", Op.ASINH, "numeric", result="floating")
acosh = _unary("acosh", Op.ACOSH, "numeric", result="floating")
atanh = _unary("atanh", Op.ATANH, "numeric", result="floating")
# bitwise
bitwise_and = _binary("bitwise_and", Op.BITWISE_AND, "integer or boolean")
bitwise_or = _binary("bitwise_or", Op.BITWISE_OR, "integer or boolean")
bitwise_xor = _binary("bitwise_xor", Op.BITWISE_XOR, "integer or boolean")
bitwise_invert = _unary("bitwise_invert", Op.BITWISE_INVERT, "integer or boolean")
bitwise_left_shift = _binary("bitwise_left_shift", Op.BITWISE_LEFT_SHIFT, "integer")
bitwise_right_shift = _binary("bitwise_right_shift", Op.BITWISE_RIGHT_SHIFT, "integer")
# logical
logical_and = _binary("logical_and", Op.LOGICAL_AND, "bool", result="bool")
logical_or = _binary("logical_or", Op.LOGICAL_OR, "bool", result="bool")
logical_xor = _binary("logical_xor", Op.LOGICAL_XOR, "bool", result="bool")
logical_not = _unary("logical_not", Op.LOGICAL_NOT, "bool", result="bool")
