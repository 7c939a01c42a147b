"""Row timing: jittered sample times, and which rows the knocks replace."""

from bisect import bisect_left


def row_times(rng, rate, duration):
    """Jittered sample times in [0, duration): period 1/rate, about 1.5 % jitter."""
    period = 1.0 / rate
    out = []
    t = 0.0
    lo, hi = 0.95 * period, 1.05 * period
    while t < duration - 1e-9:
        out.append(t)
        d = period + rng.gauss(0.0, 0.015 * period)
        t += min(hi, max(lo, d))
    return out


def spike_rows(times, spikes):
    """Map (time, values) to {row index: x value}: the first row at/after time."""
    out = {}
    for ts, values in spikes:
        i = bisect_left(times, ts)
        for k, v in enumerate(values):
            out[i + k] = v
    return out


def repeat_spikes(spikes, period, total):
    """Spike list repeated for a looped script."""
    out = []
    k = 0
    while k * period < total:
        out.extend((ts + k * period, v) for ts, v in spikes if ts + k * period < total)
        k += 1
    return out
