"""Shared by tools/spice/run and tools/spice/fit: the netlist, the pot law, ngspice calls."""

import cmath, math, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REF = os.path.join(ROOT, "Tests", "SensorWahCoreTests", "Reference")
PEDALS = [0.0, 0.25, 0.5, 0.75, 1.0]
# transient cases: (pedal, frequency Hz, peak volts)
TRANSIENT = [(0.0, 220.0, 1.0), (0.5, 440.0, 1.0), (1.0, 440.0, 1.0)]
HARMONICS = 5


def rvm(pedal):
    r = 1.0 - 0.8 * pedal
    return 100e3 * (81.0 ** r - 1.0) / 80.0


def ngspice(control, tmp):
    path = os.path.join(tmp, "deck.cir")
    with open(os.path.join(HERE, "crybaby.cir")) as f:
        deck = f.read().replace(".end\n", "")
    with open(path, "w") as f:
        f.write(deck + "\n.control\n" + control + "\n.endc\n.end\n")
    r = subprocess.run(["ngspice", "-b", path], capture_output=True, text=True, cwd=tmp)
    if r.returncode != 0:
        sys.exit("ngspice failed:\n" + r.stdout + r.stderr)
    return r.stdout


def read_table(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                rows.append([float(v) for v in parts])
    return rows




def ac(pedal, tmp, points_per_decade=48, start=20, stop=20000):
    """Complex response v(out)/v(in) at `pedal`: (frequencies, values)."""
    data = os.path.join(tmp, "ac.txt")
    ngspice(f"alterparam rvm = {rvm(pedal):.6g}\nreset\nac dec {points_per_decade} {start} {stop}\n"
            f"wrdata {data} vr(out) vi(out)\nquit", tmp)
    rows = read_table(data)
    return [r[0] for r in rows], [complex(r[1], r[3]) for r in rows]
