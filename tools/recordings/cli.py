"""The command line of tools/make-recordings.py: the demo set or one --big log."""

import argparse
import os

from .big import generate_big
from .common import human
from .demo import generate_all

# Recordings/ in the repository: this file is tools/recordings/cli.py.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESCRIPTION = "Generate synthetic SensorLog-style demo recordings for SensorWah."


def main(argv=None):
    """Parse argv (default: sys.argv[1:]), write the files, return the exit status."""
    ap = argparse.ArgumentParser(description=DESCRIPTION)
    ap.add_argument("--outdir", help="where to write the demo files (default: Recordings/ next to tools/)")
    ap.add_argument("--big", metavar="OUT.csv", help="write one long benchmark log instead")
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the --big log (default 10)")
    ap.add_argument("--watch", action="store_true", help="--big log with the watch header")
    args = ap.parse_args(argv)
    if args.big:
        if args.minutes <= 0:
            ap.error("--minutes must be positive")
        generate_big(args.big, args.minutes, args.watch)
        return 0
    if args.watch:
        ap.error("--watch only applies to --big")
    outdir = args.outdir or os.path.join(REPO_ROOT, "Recordings")
    info = generate_all(outdir)
    for key, name in (("phone", "wrist-wah-phone.csv"), ("watch", "watch-sweeps.csv"),
                      ("accel", "accel-only-30hz.csv"), ("quirks", "phone-quirks.csv")):
        log, n, size, _ = info[key]
        print("%-22s %6d rows  %7.2f s  %s" % (name, n, log.times[-1] - log.times[0], human(size)))
    print("README.md written to %s" % outdir)
    return 0
