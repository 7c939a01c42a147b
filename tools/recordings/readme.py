"""Recordings/README.md: reads the written logs back, measures them and fills
in README_TEMPLATE, so every number in the README comes from the files."""

from .common import ACCEL_UPTIME, PHONE_UPTIME, QUIRK_UPTIME, WATCH_UPTIME, human, qacc
from .gestures import LONG_SPIKES, LONG_STEPS, Script
from .headers import WATCH_COLS
from .quirks import PED_END, PED_START, QUIRKS


def fmt_range(t0, t1):
    return "%.2f–%.2f" % (t0, t1)


def read_x(path, spike_idx=()):
    """[(t, accelerometerAccelerationX)] read back from a written file,
    without knock rows and rows whose X is empty or null."""
    out = []
    with open(path, encoding="utf-8", newline="") as f:
        head = f.readline().rstrip("\r\n").split(",")
        names = [c.split("(")[0] for c in head]
        its = names.index("accelerometerTimestamp_sinceReboot")
        ix = names.index("accelerometerAccelerationX")
        t0 = None
        for i, line in enumerate(f):
            fields = line.rstrip("\r\n").split(",")
            if t0 is None:
                t0 = float(fields[its])
            if i in spike_idx or fields[ix] in ("", "null"):
                continue
            out.append((float(fields[its]) - t0, float(fields[ix])))
    return out


def gesture_table(script, samples):
    if samples is None:
        lines = ["| t (s) | gesture |", "|---|---|"]
        lines += ["| %s | %s |" % (fmt_range(t0, t1), text) for t0, t1, text in script.describe()]
        return "\n".join(lines)
    lines = ["| t (s) | gesture | rows | X min (G) | X max (G) |", "|---|---|---|---|---|"]
    for t0, t1, text in script.describe():
        xs = [x for t, x in samples if t0 <= t < t1]
        if xs:
            lines.append("| %s | %s | %d | %+.3f | %+.3f |" % (
                fmt_range(t0, t1), text, len(xs), min(xs), max(xs)))
        else:
            lines.append("| %s | %s | 0 | | |" % (fmt_range(t0, t1), text))
    return "\n".join(lines)


def max_abs_acc(path, spike_idx):
    """Largest |accelerometer component| outside the knock rows."""
    m = 0.0
    with open(path, encoding="utf-8", newline="") as f:
        names = [c.split("(")[0] for c in f.readline().rstrip("\r\n").split(",")]
        ix = names.index("accelerometerAccelerationX")
        for i, line in enumerate(f):
            if i in spike_idx:
                continue
            fields = line.rstrip("\r\n").split(",")
            for v in fields[ix:ix + 3]:
                if v not in ("", "null"):
                    m = max(m, abs(float(v)))
    return m


def spike_table(log, spikes_by_row, uptime0):
    lines = ["| data row | accelerometerTimestamp_sinceReboot | t (s) | accelerometerAccelerationX (G) |",
             "|---|---|---|---|"]
    for i in sorted(spikes_by_row):
        t = log.times[i]
        lines.append("| %d | %.6f | %.3f | %.16g |" % (i + 1, uptime0 + t, t, qacc(spikes_by_row[i])))
    return "\n".join(lines)


def render_readme(info):
    phone, pn, psize, ppath = info["phone"]
    watch, wn, wsize, wpath = info["watch"]
    acc, an, asize, apath = info["accel"]
    qlog, qn, qsize, qpath = info["quirks"]
    q = QUIRKS

    def dur(log):
        return log.times[-1] - log.times[0]

    gap_i = q["gap_after_row"]                  # 1-based row before the gap
    gap = qlog.times[gap_i] - qlog.times[gap_i - 1]
    b = q["backwards_acc_row"]
    back_prev = qlog.uptime0 + qlog.times[b - 2]
    back_ts = back_prev - 0.0043
    qn_total = len(qlog.times)
    n_extra = len(q["extra_field_rows"])
    n_missing = len(q["missing_field_rows"])

    return README_TEMPLATE.format(
        phone_rows=pn, phone_size=human(psize), phone_dur="%.2f" % dur(phone),
        watch_rows=wn, watch_size=human(wsize), watch_dur="%.2f" % dur(watch),
        watch_repeats=watch.repeats, watch_cols=len(WATCH_COLS),
        acc_rows=an, acc_size=human(asize), acc_dur="%.2f" % dur(acc),
        q_rows=qn, q_size=human(qsize), q_dur="%.2f" % dur(qlog),
        phone_uptime="%.6f" % PHONE_UPTIME, watch_uptime="%.6f" % WATCH_UPTIME,
        acc_uptime="%.6f" % ACCEL_UPTIME, q_uptime="%.6f" % QUIRK_UPTIME,
        main_gestures=gesture_table(phone.script, read_x(ppath, phone.spikes)),
        phone_max="%.2f" % max_abs_acc(ppath, phone.spikes),
        acc_max="%.2f" % max_abs_acc(apath, acc.spikes),
        watch_max="%.2f" % max_abs_acc(wpath, watch.spikes),
        long_gestures=gesture_table(Script(LONG_STEPS), None),
        long_spikes=", ".join("%.2f s (%s)" % (t, " then ".join("%g G" % v for v in vals))
                              for t, vals in LONG_SPIKES),
        long_dur="%.0f" % Script(LONG_STEPS).duration,
        demo_dur="%.2f" % phone.script.duration,
        phone_spikes=spike_table(phone, phone.spikes, PHONE_UPTIME),
        acc_spikes=spike_table(acc, acc.spikes, ACCEL_UPTIME),
        watch_gestures=gesture_table(watch.script, read_x(wpath, watch.spikes)),
        acc_gestures=gesture_table(acc.script, read_x(apath, acc.spikes)),
        watch_spikes=spike_table(watch, watch.spikes, WATCH_UPTIME),
        quirk_gestures=gesture_table(qlog.script, read_x(qpath)),
        q_warm=", ".join(map(str, q["warmup_rows"])),
        q_gap_row=gap_i, q_gap_next=gap_i + 1, q_gap="%.6f" % gap,
        q_gap_t0="%.6f" % (qlog.uptime0 + qlog.times[gap_i - 1]),
        q_gap_t1="%.6f" % (qlog.uptime0 + qlog.times[gap_i]),
        q_extra=", ".join(map(str, q["extra_field_rows"])), q_n_extra=n_extra,
        q_missing=", ".join(map(str, q["missing_field_rows"])), q_n_missing=n_missing,
        q_n_ok=qn_total - n_extra - n_missing,
        q_alt="%d–%d" % (q["empty_alt_rows"][0], q["empty_alt_rows"][-1]),
        q_n_alt=len(q["empty_alt_rows"]),
        q_empty_acc=q["empty_acc_row"], q_null_acc=q["null_acc_row"],
        q_back=b, q_back_prev=b - 1, q_back_ts="%.6f" % back_ts, q_back_prev_ts="%.6f" % back_prev,
        q_dup=q["dup_time_row"], q_dup_prev=q["dup_time_row"] - 1,
        q_ped0=PED_START, q_ped1=PED_END,
    )


README_TEMPLATE = """\
# Recordings

Synthetic demo logs in the SensorLog app's CSV format, made for SensorWah by
`tools/make-recordings.py`. No real device recorded them. A small physical
model of a forearm and its sensors (gravity, rotation rate, lever-arm
acceleration, tremor, arm sway, sensor noise and bias, attitude-estimate
error) follows a scripted wah performance. As a result the raw accelerometer,
gyroscope and magnetometer columns and the fused `motion*` columns agree with
each other the way real ones do.

Field recordings made by other people with real apps are **not** kept here.
They live outside the repository (in `../shared/field-recordings/` when that
folder exists) and must not be copied in.

The generator also writes this README, including every number in it. To
change it, edit `tools/make-recordings.py` and run the generator again.

## Files

| file | device / header | columns | rate | rows | duration | size | gestures | quirks |
|---|---|---|---|---|---|---|---|---|
| `wrist-wah-phone.csv` | iPhone, SensorLog 82-column header | 82 | 100 Hz | {phone_rows} | {phone_dur} s | {phone_size} | rest, slow sweeps, fast sweeps, 2.5 Hz wah-wah, 3 knocks | none (clean, LF); `IP_pdp_ip0` is `null` |
| `watch-sweeps.csv` | Apple Watch style header | {watch_cols} | rows 50 Hz, motion 30 Hz | {watch_rows} | {watch_dur} s | {watch_size} | slow and medium sweeps, 1 knock | motion group is sample-and-hold: {watch_repeats} of {watch_rows} rows repeat the previous motion sample; location columns are `null` |
| `accel-only-30hz.csv` | accelerometer only, 5 columns | 5 | 30 Hz | {acc_rows} | {acc_dur} s | {acc_size} | the same performance as `wrist-wah-phone.csv` | none |
| `phone-quirks.csv` | iPhone, 82-column header | 82 (some rows have 81 or 83) | 100 Hz | {q_rows} | {q_dur} s | {q_size} | slow sweep, hold, 2 Hz wah-wah | CRLF, wrong field counts, `null`/empty fields, 3 s gap, backwards timestamp, repeated loggingTime |

Rows are counted without the header, so "data row 1" is line 2 of the file.
Below, "t" means seconds since the first row's `accelerometerTimestamp_sinceReboot`,
so the first row of every file is at t = 0. The gesture tables give the
`accelerometerAccelerationX` range measured in each time range, with the knock
rows left out; the time ranges are half-open (t0 ≤ t < t1).

The demo performance is short ({demo_dur} s) so that the 82-column 100 Hz file stays
under 1.5 MB. An 82-column row takes about 1.2 kB, so a minute at 100 Hz would
be about 7 MB. A longer {long_dur}-second performance is available through
`--big` (see below).

## Axis convention (all files)

The performance tilt is a rotation about the device's **Y** axis, which is
Core Motion's *roll*. Gravity therefore moves between **Z** and **X**, and the
tilt shows mainly on `accelerometerAccelerationX`:

| position | tilt | accelerometerAccelerationX | accelerometerAccelerationZ |
|---|---|---|---|
| heel (fully back) | −60° | about −0.86 G | about −0.5 G |
| rest / centre | 0° | about 0 G (within ±0.04) | about −1 G |
| toe (fully forward) | +60° | about +0.87 G | about −0.5 G |

So the default mapping "accelerometer X → CC 11, channel 1" follows the wrist.
At rest X sits in the middle, and heel and toe reach about ±0.85 G.
`accelerometerAccelerationY` stays between about 0 and +0.14 G, because the
forearm is pitched a few degrees and the pitch changes slightly with the
tilt. The same rotation shows up in these columns:

- `gyroRotationY` and `motionRotationRateY` (rad/s, positive toward the toe);
- `motionRoll`, which equals the tilt in radians;
- `motionGravityX/Y/Z` = (cos p · sin r, −sin p, −cos p · cos r) for roll r and pitch p;
- `motionQuaternion` = q_z(yaw) · q_x(pitch) · q_y(roll), with either sign;
- `motionUserAcceleration` = raw acceleration − gravity.

Raw accelerometer values are multiples of 2^-16 G, as on an iPhone. The other
sensor values are float32 numbers printed with 16 significant digits, as the
app prints them. A few very small values therefore appear in exponent form,
for example `-3.0517578125e-05`.

How the devices are worn:

- **Phone:** strapped to the back of the forearm, screen up, with its long (Y)
  axis along the forearm. The performer rolls the forearm, and the phone's +X
  edge going down is "toe".
- **Watch:** its X axis lies along the forearm. The same mathematical gesture
  is therefore raising and lowering the hand from the elbow, and the hand
  going down is "toe".

**Lever-arm acceleration is real and it is in the data.** The phone sits
3 cm from the forearm's roll axis. A fast sweep adds up to about ±0.4 G of
tangential acceleration on X and about +0.5 G of centripetal acceleration on
Z, so X briefly reads up to about ±1.2 G. In a wah-wah the tangential term is
in phase with the tilt and enlarges the X swing by about 1 + (2πf)²·0.03 m / g:
×1.75 at 2.5 Hz, ×2.1 at 3 Hz, ×2.9 at 4 Hz. So a ±30° wah at 2.5 Hz swings X
by about ±0.95 G. The watch is 0.22 m from the elbow, and its medium-speed
sweeps add about 0.25 G on X and 0.3 G on Z. `motionGravityX` shows the pure
tilt without these terms.

## wrist-wah-phone.csv (the demo default)

An iPhone log: 82 columns, 100 Hz with about 1.5 % jitter in the period.
`*_sinceReboot` starts at {phone_uptime} and loggingTime at
2025-01-23T20:14:05.318+01:00. The magnetometer and `motion*` groups are fresh
in every row. `locationHeading*` updates at 5 Hz and `altimeter*` at 1 Hz.

{main_gestures}

The knocks affect one axis only: `accelerometerAccelerationX`, and
`motionUserAccelerationX` in the same rows. The gyroscope does not see them.

{phone_spikes}

Outside these rows, no accelerometer component exceeds {phone_max} G.

## watch-sweeps.csv

An Apple-Watch-style log with {watch_cols} columns. It differs from the phone format as
follows:

- there is no `loggingSample` column, no raw `gyroRotation*` and no raw
  `magnetometer*`; rotation rate comes only from `motionRotationRate*`;
- the battery state column is `batteryState(N)`;
- all location columns are `null`;
- `motionAttitudeReferenceFrame` is `XArbitraryZVertical`, the magnetic field
  is `0,0,0` and its calibration accuracy is `-1`.

Rows come at 50 Hz and the accelerometer is fresh in every row. The motion
group is sample-and-hold at 30 Hz: {watch_repeats} of {watch_rows} rows repeat the previous row's
motion fields exactly, `motionTimestamp_sinceReboot` included.
`*_sinceReboot` starts at {watch_uptime}.

{watch_gestures}

The knock is in the raw accelerometer only; the motion group does not see it.

{watch_spikes}

Outside this row, no accelerometer component exceeds {watch_max} G.

## accel-only-30hz.csv

The 5-column accelerometer-only variant
(`loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)`)
at 30 Hz. It uses the **same gesture script** as `wrist-wah-phone.csv`: the same
time ranges, with independent noise. A mapper should therefore draw the same
CC curve at 30 Hz and at 100 Hz. The two-sample knock becomes a single sample
here. `*_sinceReboot` starts at {acc_uptime}.

{acc_gestures}

{acc_spikes}

Outside these rows, no accelerometer component exceeds {acc_max} G.

## phone-quirks.csv

A short iPhone log (82-column header) that collects the real-world problems a
parser must survive. **Every line ends in CRLF**, the header included.
`*_sinceReboot` starts at {q_uptime}. Of the {q_rows} data rows, {q_n_ok} have 82
fields, {q_n_extra} have 83 and {q_n_missing} have 81. In the rows with 81 or 83 fields,
columns 0–67 (everything up to `pedometerEndDate`, including all motion
columns) are still in place; only the tail after them is shifted.

| data rows | quirk |
|---|---|
| all | the pedometer columns (indices {q_ped0}–{q_ped1}) are `null` |
| {q_warm} | `gyroTimestamp`…`gyroRotationZ` and every `motion*` column (`motionTimestamp` … `motionMagneticFieldCalibrationAccuracy`) are `null`, because motion has not started yet; the accelerometer is valid |
| {q_extra} | **83 fields**: an extra `null` field right after `pedometerEndDate` |
| {q_missing} | **81 fields**: the `batteryState` value is missing, so the row ends `…,batteryTimeStamp,batteryLevel,label` |
| {q_alt} | the four `altimeter*` fields are empty (`,,,,`), {q_n_alt} rows |
| {q_empty_acc} | `accelerometerAccelerationX/Y/Z` are empty; the timestamp is present |
| {q_null_acc} | `accelerometerAccelerationX/Y/Z` are `null`; the timestamp is present |
| {q_gap_row} → {q_gap_next} | **gap**: every timestamp jumps by about 3 s (accelerometer {q_gap_t0} → {q_gap_t1}, Δ = {q_gap} s); the wrist moved during the gap (+50° before, −25° after) |
| {q_back} | **backwards accelerometer timestamp**: {q_back_ts}, which is 4.3 ms earlier than data row {q_back_prev} ({q_back_prev_ts}). Its values are measured at that time. All other timestamps and loggingTime stay in order, and the next row continues normally |
| {q_dup} | `loggingTime` is the same as in data row {q_dup_prev} (the sensor timestamps differ) |

Gestures, in script time; there are no rows for 4.00 ≤ t < 7.00:

{quirk_gestures}

## How they were made

    python3 tools/make-recordings.py

This rewrites every file in this folder. The output is the same, byte for
byte, on every run: the seed is fixed and no third-party packages are used.
On another platform a different math library could change the last printed
digit of some values; nothing else depends on the machine.

Long logs for benchmarks (not committed):

    python3 tools/make-recordings.py --big /tmp/big.csv --minutes 10
    python3 tools/make-recordings.py --big /tmp/big-watch.csv --minutes 10 --watch

The first command writes the iPhone format: 82 columns at 100 Hz. It loops a
{long_dur}-second performance with knocks at {long_spikes} in every loop.
Ten minutes is about 60,000 rows and 70 MB, and takes a few seconds to write.
`--minutes 1` gives exactly one pass of the longer performance:

{long_gestures}

The `--watch` variant uses the watch header with rows at 100 Hz and the motion
group at 50 Hz. It loops the `watch-sweeps.csv` script (about 42 MB for 10
minutes). The generator prints the row count and size of each file it writes.
"""
