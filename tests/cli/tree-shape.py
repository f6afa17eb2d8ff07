# A process tree of known shape for tests/cli/counters-slab.sh: the root maps
# K single anonymous pages apart from each other and P two-page regions whose
# second page it then makes read-only (a split: both halves keep one
# anon_vma), touches every page, and forks a chain of D descendants that
# wait.  When the chain is up the deepest one writes the root's pid to READY.
import ctypes, mmap, os, signal, sys, time

K, P, D, ready = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PAGE = 4096
MAP_FIXED_NOREPLACE = 0x100000
flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_FIXED_NOREPLACE
rw = mmap.PROT_READ | mmap.PROT_WRITE
base = 0x200000000000          # far from the interpreter's own mappings
for i in range(K + P):
    want = base + i * 16 * PAGE  # 15 free pages between regions: never neighbours
    pages = 1 if i < K else 2
    got = libc.mmap(want, pages * PAGE, rw, flags, -1, 0)
    if got != want:
        sys.exit("mmap at %#x failed: errno %d" % (want, ctypes.get_errno()))
    ctypes.memset(got, 1, pages * PAGE)
    if pages == 2 and libc.mprotect(got + PAGE, PAGE, mmap.PROT_READ) != 0:
        sys.exit("mprotect failed")
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
root = os.getpid()
last = True
for depth in range(D):
    parent = os.getpid()
    if os.fork() != 0:
        last = False               # this process waits; its child forks on
        break
    # a descendant ends with its parent: a failed test leaves no orphans
    # (an orphan's anon_vmas would hang off its dead parent's, unseen)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(0)
if last:                           # the deepest descendant: the chain is up
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % root)
    os.rename(ready + ".tmp", ready)
while True:
    signal.pause()
