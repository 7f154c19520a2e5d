"""The differential fuzz (tests/fuzz/) on the dask device, fused and unfused: tests/test_fuzz.py
runs the devices registered when it starts, which the dask device (loaded at first use) is not.
On dask's synchronous scheduler in chunks of 2 along every axis (many blocks, uneven last
ones). The first run found two gather bugs: several values on dask's default scheduler raised,
and 0-d values came back in n-d values' places."""

import pytest

pytest.importorskip("dask")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.fuzz import check_program, draw_program  # noqa: E402
from tests.test_fuzz import EXAMPLES  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous")


@settings(max_examples=max(EXAMPLES // 5, 20), deadline=None)
@given(st.data())
def test_random_programs_agree_on_the_dask_device(data):
    check_program(draw_program(data), runs=[("reference", True), ("dask", True), ("dask", False)])
