#!/usr/bin/env python3
"""cputime.py OUT COMMAND...: run COMMAND (output to /dev/null) and write
"wall user system peak_kb" to OUT, in seconds to the microsecond (getrusage
of the children: every thread and child process of COMMAND) and kB.
/usr/bin/time rounds to 10 ms, too coarse for `cat` of a few hundred MB."""
import os
import resource
import subprocess
import sys
import time

start = time.monotonic()
with open(os.devnull, "wb") as null:
    status = subprocess.call(sys.argv[2:], stdout=null)
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as out:
    out.write("%.6f %.6f %.6f %d\n" % (wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss))
sys.exit(status if status >= 0 else 128 - status)
