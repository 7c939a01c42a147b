#!/usr/bin/env python3
"""Generate synthetic SensorLog-style demo recordings for SensorWah.

The logs imitate what the SensorLog app writes (CSV, `name(unit)` header,
`null` tokens, ISO-8601 loggingTime, `*_sinceReboot(s)` timestamps) for a
device worn on the wrist while the performer plays a "wah" with the forearm.
The motion is simulated from a gesture script with a small physical model
(gravity, rotation rate, centripetal/tangential acceleration, tremor, sensor
noise and bias), so every column group agrees with every other one.

Usage:
  tools/make-recordings.py                  regenerate every file in Recordings/
  tools/make-recordings.py --outdir DIR     the same, written into DIR
  tools/make-recordings.py --big OUT.csv --minutes N [--watch]
                                            a long 100 Hz log for benchmarks
                                            (not meant to be committed)

Standard library only. Output is deterministic: the same command writes the
same bytes on the same platform.

This file is only the entry point; the generator is the package next to it,
tools/recordings/ (see its __init__.py for what each module does).
"""

import os
import sys

sys.dont_write_bytecode = True      # leave no __pycache__ in tools/recordings/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from recordings.cli import main  # noqa: E402  (needs the path above)

if __name__ == "__main__":
    sys.exit(main())
