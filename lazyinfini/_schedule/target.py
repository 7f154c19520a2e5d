"""What a device asks of the scheduler: a frozen record, part of the schedule cache's key.

The scheduler reads nothing else about the machine: a device that wants other tiles, another
chunk size or no fusion at all says so here, and the schedule it gets is planned for that.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rearrange import DEFAULT_BLOCK_BYTES


@dataclass(frozen=True)
class Target:
    name: str
    fuse: bool = True  # False: one kernel per node (the reference device, the tests' oracle)
    # A load read across the output's rows with at least this many elements is copied first by
    # a tiled rearrange (None: never): measured 2-3x faster than strided reads in the fused
    # pass on a 4096x4096 float32 transpose; below 64K elements everything sits in cache.
    transposed_copy_min: int | None = 1 << 16
    # ...unless the output's inner dim has at least this many elements and the device's kernel
    # reads such a load itself, in tiles (None: it never does).
    tiled_read_min_inner: int | None = None
    block_bytes: int = DEFAULT_BLOCK_BYTES  # one rearrange tile (source and destination)
    # Rows of a tile whose rows alias in the L1 sets, and the shortest inner loop of a tile (a
    # shorter dim is moved outward): numpy's copies want 8 and 8 (measured on a ufunc copy).
    tile_set_ways: int = 8
    tile_min_inner: int = 8
    # Below this, a rearrange is one direct copy: planning views costs more than tiles save.
    direct_copy_bytes: int = 256 * 1024
    # numpy's destination-order copy stays cache-local while one destination row touches at most
    # this many source rows (1000^2..2000^2 float32 transposes direct; 3000^2+ tiled, measured).
    local_walk_rows: int = 2048
    chunk: int = 1 << 17  # elements per chunk of an elementwise pass (best of 8K..128K measured)
    # An elementwise kernel of at least this many elements is compiled to C (None: never); a
    # first compile costs ~50 ms, a disk-cached one ~15 us, the numpy path ~10 us a chunk.
    compile_min: int | None = 1 << 16
    # Whether an elementwise group feeding a float sum over the last axes joins the sum in one
    # REDUCE kernel (the device sums each row in numpy's pairwise order, so the bits stay).
    reduce_prologues: bool = False
    # Whether elementwise values a reduction or a view sees are computed in the memory order
    # numpy's would have (orders.py): a device whose reductions add in numpy's order, which
    # follows its input's memory (the cpu's; a GPU's and dask's sums have orders of their own).
    numpy_orders: bool = False
    # Whether transposing rearranges are planned in line tiles (``LineTile``): for a device whose
    # tiled rearranges run as C kernels moving those tiles through registers (2048^2 float32
    # 7.2 -> 1.0 ms); numpy's copies walk a block row by row and want its rows capped instead
    # (the same plan in numpy: 2.5 -> 4.2 ms).
    tile_lines: bool = False
    # Whether a rearrange's method (direct or tiled: how the host's copies walk the plan)
    # decides how the device copies; explain() prints it only then (the cuda device's kernel
    # copies by the plan alone, directly or through a shared tile, as its path line says).
    copy_methods: bool = True
    # Whether a functional update (x[key] = v) may write into its x where x is a buffer this
    # schedule made and reads for the last time (in_place.py): a device whose values are
    # buffers; a lazy one (dask) builds new blocks anyway.
    writes_in_place: bool = True
    # An elementwise kernel moving at least this many bytes (read + written) writes its outputs
    # with non-temporal stores where its compiled loop writes them contiguously (None: never):
    # its data does not fit in the last-level cache together, so streaming skips each output
    # line's read-for-ownership and leaves the cache to the inputs (the cpu's: the LLC's size).
    stream_min_bytes: int | None = None
