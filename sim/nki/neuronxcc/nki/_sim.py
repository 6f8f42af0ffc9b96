"""The state of one kernel run: capacity accounting, loop frames, and the instruction trace.

One Simulation is current while a kernel runs (`current`). Instructions call `begin` once,
which checks capacity, counts the instruction for its engine and appends one trace record
(a dict; the JSON-lines format is in sim/nki/README.md). Capacity: SBUF bytes per partition
and PSUM banks of every live on-chip tensor; a tensor dies when its Python object does, or
at the end of the loop iteration that allocated it (NKI's block scope), whichever is first.
"""
import weakref

from . import _choices as choices
from ._errors import fail, kernel_location

ENGINES = ("tensor", "vector", "scalar", "gpsimd", "dma")

current = None

# Dry runs (`nki.dry_run`, env AXON_NKI_DRY=1, axon_nki_run.py --dry): the kernel's control
# flow, shapes, indexing and capacity rules run and the trace is recorded, but no value is
# computed or stored (reads return zeros, so results are undefined), undefined-value tracking
# (R5), activation input ranges (R15) and the reorder run (R22) are off.


def active():
    if current is None:
        fail("kernel", "an NKI API was called outside a kernel run (call the @nki.jit kernel, "
             "or nki.simulate_kernel)")
    return current


class Alloc:
    """Capacity held by one tensor, and whether its loop iteration has ended."""

    __slots__ = ("sim", "kind", "bytes_per_partition", "banks", "released", "expired", "scope")

    def __init__(self, sim, kind, bytes_per_partition, banks, scope):
        self.sim, self.kind = sim, kind
        self.bytes_per_partition, self.banks = bytes_per_partition, banks
        self.released = self.expired = False
        self.scope = scope

    def release(self):
        if not self.released:
            self.released = True
            self.sim.sbuf_live -= self.bytes_per_partition
            self.sim.psum_live -= self.banks


class LoopFrame:
    __slots__ = ("site", "kind", "size", "iteration", "allocs")

    def __init__(self, site, kind, size):
        self.site, self.kind, self.size = site, kind, size
        self.iteration = None
        self.allocs = []


class Simulation:
    def __init__(self, reverse_sites=None, dry=False):
        # reverse_sites: None (forward), "all", or a set of (file, line) affine_range sites.
        self.reverse_sites = reverse_sites
        self.dry = dry
        self.buffers = 0  # allocations so far: each tensor's trace "buf" id
        self.records = []
        self.counts = dict.fromkeys(ENGINES, 0)
        self.hbm_read_bytes = 0
        self.hbm_write_bytes = 0
        self.sbuf_live = self.sbuf_peak = 0
        self.psum_live = self.psum_peak = 0
        self.loops = []
        self.affine_sites = []
        self.accumulated_in_affine = False
        self.activation_registers = None
        self.activation_registers_undefined = None

    # -- instructions ---------------------------------------------------------------
    def begin(self, engine, opcode):
        self.check_capacity()
        record = {"seq": len(self.records), "engine": engine, "op": opcode,
                  "queue": engine, "loc": "%s:%d" % kernel_location(),
                  "loops": [[frame.site[1], frame.iteration] for frame in self.loops],
                  "in": [], "out": None}
        self.records.append(record)
        self.counts[engine] += 1
        return record

    def new_buffer(self):
        self.buffers += 1
        return self.buffers - 1

    # -- capacity -------------------------------------------------------------------
    def check_capacity(self):
        if self.sbuf_live > choices.SBUF_BYTES_PER_PARTITION:
            fail("R25", "live SBUF tiles need %d bytes per partition, more than the %d available"
                 % (self.sbuf_live, choices.SBUF_BYTES_PER_PARTITION))
        if self.psum_live > choices.PSUM_BANKS:
            fail("R24", "live PSUM tiles need %d banks of 2 KiB per partition, more than the %d "
                 "available" % (self.psum_live, choices.PSUM_BANKS))
        self.sbuf_peak = max(self.sbuf_peak, self.sbuf_live)
        self.psum_peak = max(self.psum_peak, self.psum_live)

    def allocate(self, tensor, kind, bytes_per_partition, banks, check):
        scope = self.loops[-1] if self.loops else None
        alloc = Alloc(self, kind, bytes_per_partition, banks,
                      (scope.site, scope.iteration) if scope else None)
        self.sbuf_live += bytes_per_partition
        self.psum_live += banks
        if scope is not None:
            scope.allocs.append(alloc)
        weakref.finalize(tensor, alloc.release)
        if check:
            self.check_capacity()
        return alloc

    # -- loops ----------------------------------------------------------------------
    def loop(self, kind, args, symbolic):
        site = kernel_location()
        values = range(*args)
        if kind == "affine":
            if site not in self.affine_sites:
                self.affine_sites.append(site)
            if self.reverse_sites == "all" or (self.reverse_sites and site in self.reverse_sites):
                values = values[::-1]
        return self._iterate(LoopFrame(site, kind, len(values)), values, symbolic)

    def _iterate(self, frame, values, symbolic):
        from ._index import IndexExpr
        self.loops.append(frame)
        try:
            for value in values:
                frame.iteration = value
                frame.allocs = []
                try:
                    yield IndexExpr(value, from_loop=True) if symbolic else value
                finally:
                    for alloc in frame.allocs:
                        alloc.expired = True
                        alloc.release()
        finally:
            if self.loops and self.loops[-1] is frame:
                self.loops.pop()

    def in_affine_loop(self):
        return any(frame.kind == "affine" for frame in self.loops)

    def stats(self):
        return {"instructions": dict(self.counts),
                "hbm_read_bytes": self.hbm_read_bytes,
                "hbm_write_bytes": self.hbm_write_bytes,
                "sbuf_peak_bytes_per_partition": self.sbuf_peak,
                "psum_peak_banks": self.psum_peak}
