"""The differential fuzz (tests/fuzz/) on the cuda device over the emulated backend, fused and
unfused: tests/test_fuzz.py runs the devices registered when it starts, which the cuda device
(registered per test here) is not. Fewer programs than the cpu's: each new schedule is one g++
run of its rendered kernels."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cuda.emulator import EmulatedBackend, registered
from tests.fuzz import check_program, draw_program
from tests.test_fuzz import EXAMPLES


@settings(max_examples=max(EXAMPLES // 20, 10), deadline=None)
@given(st.data())
def test_random_programs_agree_on_the_emulated_cuda_device(data):
    program = draw_program(data)
    with registered(EmulatedBackend(), "cuda-fuzz") as device:
        check_program(
            program, runs=[("reference", True), (device.name, True), (device.name, False)]
        )
