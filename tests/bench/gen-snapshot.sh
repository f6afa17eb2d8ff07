#!/bin/sh
# gen-snapshot.sh OUT_DIR NPROC [--seed N] [--no-pagemap]
# A large synthetic snapshot cloned from this machine's real /proc text:
# OUT_DIR/snapshot.tar and OUT_DIR/root/proc/ (see gen-snapshot.py).
exec python3 "$(dirname "$0")/gen-snapshot.py" "$@"
