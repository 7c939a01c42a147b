"""The demo-recording generator behind tools/make-recordings.py, split by job.

    common    shared constants, float32/number formatting, the wall clock,
              and when each demo log starts
    headers   the CSV header lines (iPhone, Apple Watch, accelerometer only)
    gestures  the gesture script (wrist tilt over time) and the performances
    physics   the wrist and its sensors: attitude, lever-arm acceleration,
              tremor, noise and bias
    timing    jittered row times and where the knocks (spikes) land
    phone, watch, accel, quirks
              one module per kind of log: how its rows are built
    csvout    writes a header and rows to a file
    readme    measures the written logs and renders Recordings/README.md
    demo      writes every file in Recordings/
    big       writes one long looped log for benchmarks (--big)
    cli       the command line of tools/make-recordings.py

Every module is deterministic; the random generators are seeded per log, and
the order in which they are drawn from is part of the output.
"""
