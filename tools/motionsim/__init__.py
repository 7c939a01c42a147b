"""SensorWah's motion simulator and filter comparison (tools/motion-sim, tools/fusion-compare)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ensure_venv():
    """Re-run this script with the project's venv python (tools/python-env makes it) unless already in it."""
    venv = os.path.join(ROOT, ".venv-tools")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    py = subprocess.run([os.path.join(ROOT, "tools", "python-env"), "--python"],
                        stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()
    if not py or not os.path.exists(py[-1]):
        sys.exit("cannot make the tools venv: run tools/python-env")
    os.execv(py[-1], [py[-1]] + sys.argv)
