"""The one op table: every operation a node can record, with its group and arity.

The API records these, the scheduler groups them by `group`, and each executor keeps one
implementation table keyed by `Op` (see `_runtime/ufuncs.py` and `_runtime/reference.py`).
"""

from __future__ import annotations

import enum


class Group(enum.Enum):
    SOURCE = "source"  # no inputs: a realized buffer, a fill, a range
    ELEMENTWISE = "elementwise"  # output[i] depends on inputs[i] only: fusable
    MOVEMENT = "movement"  # a view: permute, reshape, broadcast, slice (a copy only when asked)
    REDUCE = "reduce"
    OPAQUE = "opaque"  # one library call: sort, matmul, linalg, fft


S, E, M, R, OP = Group.SOURCE, Group.ELEMENTWISE, Group.MOVEMENT, Group.REDUCE, Group.OPAQUE
VARIADIC = -1


class Op(enum.Enum):
    """name, group, arity (VARIADIC when the node's `arg` says how many inputs it has)."""

    def __init__(self, label: str, group: Group, arity: int):
        self.label = label
        self.group = group
        self.arity = arity

    def __repr__(self) -> str:
        return self.label.upper()

    # NOTE: members are singletons, so identity hashing is exact; Enum's own __hash__ is Python
    # code, and ops are hashed on every node of every signature (_cache.py).
    __hash__ = object.__hash__

    # sources
    BUFFER = ("buffer", S, 0)
    FULL = ("full", S, 0)
    ARANGE = ("arange", S, 0)
    EYE = ("eye", S, 0)  # arg: (k,)
    LINSPACE = ("linspace", S, 0)  # arg: (start, stop, endpoint)
    # elementwise, the seed ops first
    SUBTRACT = ("subtract", E, 2)
    CLIP = ("clip", E, VARIADIC)  # x, then min and/or max as arg=(has_min, has_max) says
    ASTYPE = ("astype", E, 1)
    ABS = ("abs", E, 1)
    ACOS = ("acos", E, 1)
    ACOSH = ("acosh", E, 1)
    ADD = ("add", E, 2)
    ASIN = ("asin", E, 1)
    ASINH = ("asinh", E, 1)
    ATAN = ("atan", E, 1)
    ATAN2 = ("atan2", E, 2)
    ATANH = ("atanh", E, 1)
    BITWISE_AND = ("bitwise_and", E, 2)
    BITWISE_LEFT_SHIFT = ("bitwise_left_shift", E, 2)
    BITWISE_INVERT = ("bitwise_invert", E, 1)
    BITWISE_OR = ("bitwise_or", E, 2)
    BITWISE_RIGHT_SHIFT = ("bitwise_right_shift", E, 2)
    BITWISE_XOR = ("bitwise_xor", E, 2)
    CEIL = ("ceil", E, 1)
    CONJ = ("conj", E, 1)
    # a complex value from its real and imaginary parts (a write through numpy's z.real view:
    # _api/views.py), every bit of each part kept (no arithmetic: NaN, infinite, signed zeros)
    COMPLEX = ("complex", E, 2)
    COPYSIGN = ("copysign", E, 2)
    COS = ("cos", E, 1)
    COSH = ("cosh", E, 1)
    DIVIDE = ("divide", E, 2)
    EQUAL = ("equal", E, 2)
    EXP = ("exp", E, 1)
    EXPM1 = ("expm1", E, 1)
    FLOOR = ("floor", E, 1)
    FLOOR_DIVIDE = ("floor_divide", E, 2)
    GREATER = ("greater", E, 2)
    GREATER_EQUAL = ("greater_equal", E, 2)
    HYPOT = ("hypot", E, 2)
    ISFINITE = ("isfinite", E, 1)
    ISINF = ("isinf", E, 1)
    ISNAN = ("isnan", E, 1)
    LESS = ("less", E, 2)
    LESS_EQUAL = ("less_equal", E, 2)
    LOG = ("log", E, 1)
    LOG1P = ("log1p", E, 1)
    LOG2 = ("log2", E, 1)
    LOG10 = ("log10", E, 1)
    LOGADDEXP = ("logaddexp", E, 2)
    LOGICAL_AND = ("logical_and", E, 2)
    LOGICAL_NOT = ("logical_not", E, 1)
    LOGICAL_OR = ("logical_or", E, 2)
    LOGICAL_XOR = ("logical_xor", E, 2)
    MAXIMUM = ("maximum", E, 2)
    MINIMUM = ("minimum", E, 2)
    MULTIPLY = ("multiply", E, 2)
    NEGATIVE = ("negative", E, 1)
    NEXTAFTER = ("nextafter", E, 2)
    NOT_EQUAL = ("not_equal", E, 2)
    POW = ("pow", E, 2)
    RECIPROCAL = ("reciprocal", E, 1)
    REMAINDER = ("remainder", E, 2)
    ROUND = ("round", E, 1)
    SIGN = ("sign", E, 1)
    SIGNBIT = ("signbit", E, 1)
    SIN = ("sin", E, 1)
    SINH = ("sinh", E, 1)
    SQUARE = ("square", E, 1)
    SQRT = ("sqrt", E, 1)
    TAN = ("tan", E, 1)
    TANH = ("tanh", E, 1)
    TRUNC = ("trunc", E, 1)
    WHERE = ("where", E, 3)
    # movement
    PERMUTE = ("permute_dims", M, 1)  # arg: the axes
    RESHAPE = ("reshape", M, 1)  # arg: none (the node's shape is the target)
    BROADCAST = ("broadcast_to", M, 1)  # arg: none (the node's shape is the target)
    SLICE = (
        "slice",
        M,
        1,
    )  # arg: ((start, step), ...) per input axis; the node's shape says lengths
    # a fresh C-contiguous buffer: the rearrange kernel's, and x.copy()'s of a pending value
    # (numpy's C order; the orders pass drops it where the value is C-ordered already)
    COPY = ("copy", M, 1)
    # a complex array's real or imaginary part: numpy's view of its memory (same byte strides,
    # the imaginary part one part's size on), whose strides a later function reads
    REAL = ("real", M, 1)
    IMAG = ("imag", M, 1)
    # reductions: arg is a tuple of (keyword, value) pairs for the library call
    SUM = ("sum", R, 1)
    PROD = ("prod", R, 1)
    MAX = ("max", R, 1)
    MIN = ("min", R, 1)
    MEAN = ("mean", R, 1)
    STD = ("std", R, 1)
    VAR = ("var", R, 1)
    ALL = ("all", R, 1)
    ANY = ("any", R, 1)
    ARGMAX = ("argmax", R, 1)
    ARGMIN = ("argmin", R, 1)
    COUNT_NONZERO = ("count_nonzero", R, 1)
    # numpy's nanmax and nanmin: its fmax (fmin) reduction, the extreme of what is not NaN (of
    # +0 and -0, the one its SIMD lanes meet first), NaN where every value is
    NANMAX = ("nanmax", R, 1)
    NANMIN = ("nanmin", R, 1)
    # opaque: one call into array_api_compat.numpy named by the label; arg as for reductions.
    # An arg entry ("_index", i) picks item i of a function returning a tuple.
    CUMULATIVE_SUM = ("cumulative_sum", OP, 1)
    CUMULATIVE_PROD = ("cumulative_prod", OP, 1)
    MATMUL = ("matmul", OP, 2)
    TENSORDOT = ("tensordot", OP, 2)
    VECDOT = ("vecdot", OP, 2)
    SORT = ("sort", OP, 1)
    ARGSORT = ("argsort", OP, 1)
    # numpy's partition along arg "axis" at the positions arg "kth": the elements between them
    # in numpy's introselect's order (-0.0 and 0.0 placed as numpy places them)
    PARTITION = ("partition", OP, 1)
    SEARCHSORTED = ("searchsorted", OP, VARIADIC)
    BINCOUNT = ("bincount", OP, 1)  # numpy's bincount of non-negative integers (arg: minlength)
    # its input, once a test of its values holds at run time, else numpy's ValueError (arg: the
    # test, "finite", "increasing" or "false", and the message): the checks numpy makes of data
    CHECK = ("check", OP, 1)
    # a short signal's np.correlate as numpy sums it (x, kernel; arg: left and right padding)
    CORRELATE = ("correlate", OP, 2)
    TAKE = ("take", OP, 2)
    TAKE_ALONG_AXIS = ("take_along_axis", OP, 2)
    CONCAT = ("concat", OP, VARIADIC)
    STACK = ("stack", OP, VARIADIC)
    ROLL = ("roll", OP, 1)
    REPEAT = ("repeat", OP, VARIADIC)
    TILE = ("tile", OP, 1)
    TRIL = ("tril", OP, 1)
    TRIU = ("triu", OP, 1)
    ISIN = ("isin", OP, 2)
    SETITEM = ("setitem", OP, VARIADIC)  # x, value, then index arrays: a functional update
    GATHER = ("gather", OP, VARIADIC)  # x indexed by integer arrays: arg describes the key
    # LINALG and FFT: arg (("_function", name), ...) names the function in compat.linalg/.fft
    LINALG = ("linalg", OP, VARIADIC)
    FFT = ("fft", OP, VARIADIC)

    @property
    def is_elementwise(self) -> bool:
        return self.group is Group.ELEMENTWISE

    @property
    def is_movement(self) -> bool:
        return self.group is Group.MOVEMENT

    @property
    def is_view(self) -> bool:
        """A movement numpy makes a view of: every one but COPY (fresh C-contiguous memory)."""
        return self.group is Group.MOVEMENT and self is not Op.COPY


# The exponents for which numpy's float32 and float64 power loops, reading the exponent as one
# value (stride 0), skip pow: -1 is 1 / x, 0 is 1, 0.5 is sqrt(x), 1 is x, 2 is x * x (numpy's
# POWER_FAST_PATH). Their bits are not pow's (by an ulp; sqrt(-inf) is NaN where pow(-inf, 0.5)
# is +inf): the API records them as those ops (elementwise.pow), so a POW node is pow's loop on
# every device (ufuncs._power).
POWER_SHORTCUTS = (-1.0, 0.0, 0.5, 1.0, 2.0)

# The ops whose library results _runtime/special_values.py corrects to the standard's special
# cases, and the dtype kinds it corrects: floor division by an infinity (inf // 2 is inf, numpy's
# nan), complex functions at infinite, NaN and zero parts (expm1(-0j) is 0j, numpy's -0j).
CORRECTED = {Op.FLOOR_DIVIDE: "f"}
CORRECTED.update(
    dict.fromkeys(
        (Op.EXP, Op.EXPM1, Op.LOG, Op.LOG1P, Op.LOG2, Op.LOG10, Op.SQRT, Op.RECIPROCAL, Op.SIGN),
        "c",
    )
)
CORRECTED.update(dict.fromkeys((Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS, Op.ATAN), "c"))
CORRECTED.update(dict.fromkeys((Op.SINH, Op.COSH, Op.TANH, Op.ASINH, Op.ACOSH, Op.ATANH), "c"))
# The arg of such a node that numpy's ufunc recorded (np.floor_divide(x, y) of floats, np.expm1(z)
# of complex z): the host computes it as numpy's own loop does, uncorrected.
NUMPY_VALUES = "numpy"

# The math functions whose half float loops are numpy's own code (ml_dtypes' for bfloat16), not
# its float32 loop rounded: float16 exp, log, sin and cos differ from the rounded float32 ones in
# 9 of float16's 63,488 finite values on an AVX-512 machine, bfloat16's exp in 1 (numpy's
# float16 exp(0.0246) is 1.025, the rounded float32 one 1.024). Half floats compute them in their
# own dtype (_runtime/ufuncs.own_dtype): numpy's loop's values on any machine.
HALF_MATH = frozenset(
    {
        Op.EXP, Op.EXPM1, Op.LOG, Op.LOG1P, Op.LOG2, Op.LOG10, Op.SIN, Op.COS, Op.TAN,
        Op.ASIN, Op.ACOS, Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.ASINH, Op.ACOSH, Op.ATANH,
        Op.ATAN2, Op.HYPOT, Op.LOGADDEXP, Op.POW,
    }
)  # fmt: skip
