"""The quirks log (phone-quirks.csv): a short iPhone log, then damaged on
purpose (wrong field counts, null/empty fields, a gap, a backwards timestamp,
a repeated loggingTime). QUIRKS lists the damaged rows; make_quirks fills in
gap_after_row, and the README renderer reads it afterwards."""

from .gestures import QUIRK_STEPS, Script
from .headers import PHONE_COLS
from .phone import PhoneLog

QUIRKS = {
    "warmup_rows": (1, 2, 3),          # gyro* and motion* groups are `null`
    "gap_after_row": None,             # set by make_quirks: last row before the 3 s gap
    "extra_field_rows": (120, 121, 450),
    "missing_field_rows": (180, 520, 640),
    "empty_alt_rows": tuple(range(200, 211)),
    "empty_acc_row": 300,
    "null_acc_row": 301,
    "backwards_acc_row": 500,
    "dup_time_row": 601,
}

PED_START = PHONE_COLS.index("pedometerStartDate(txt)")
PED_END = PHONE_COLS.index("pedometerEndDate(txt)")
ALT_START = PHONE_COLS.index("altimeterTimestamp_sinceReboot(s)")
BAT_STATE = PHONE_COLS.index("batteryState(R)")
GYRO_START = PHONE_COLS.index("gyroTimestamp_sinceReboot(s)")
GYRO_END = PHONE_COLS.index("gyroRotationZ(rad/s)")
MOTION_START = PHONE_COLS.index("motionTimestamp_sinceReboot(s)")
MOTION_END = PHONE_COLS.index("motionMagneticFieldCalibrationAccuracy(Z)")
ACC_TS = PHONE_COLS.index("accelerometerTimestamp_sinceReboot(s)")


def make_quirks(seed, start_epoch, uptime0):
    q = QUIRKS
    script = Script(QUIRK_STEPS)
    log = PhoneLog(seed, script, 100.0, script.duration, start_epoch, uptime0,
                   battery=0.41, spikes=[])
    # drop the rows logged while the app was paused (t in [4.0, 7.0))
    gap_t0, gap_t1 = 4.0, 7.0
    keep = [t for t in log.times if t < gap_t0 or t >= gap_t1]
    log.times = keep
    q["gap_after_row"] = len([t for t in keep if t < gap_t0])
    # one accelerometer sample arrives with an older timestamp
    b = q["backwards_acc_row"] - 1                    # 0-based
    acc_override = {b: log.times[b - 1] - 0.0043}
    rows = []
    prev_time = None
    for i, (t, line) in enumerate(log.rows(acc_override)):
        n = i + 1                                       # 1-based data row
        f = line.split(",")
        assert len(f) == 82
        f[PED_START:PED_END + 1] = ["null"] * (PED_END - PED_START + 1)
        if n in q["warmup_rows"]:
            f[GYRO_START:GYRO_END + 1] = ["null"] * 4
            f[MOTION_START:MOTION_END + 1] = ["null"] * (MOTION_END - MOTION_START + 1)
        if n in q["empty_alt_rows"]:
            f[ALT_START:ALT_START + 4] = [""] * 4
        if n == q["empty_acc_row"]:
            f[ACC_TS + 1:ACC_TS + 4] = ["", "", ""]
        if n == q["null_acc_row"]:
            f[ACC_TS + 1:ACC_TS + 4] = ["null", "null", "null"]
        if n == q["dup_time_row"]:
            f[0] = prev_time
        prev_time = f[0]
        if n in q["missing_field_rows"]:
            del f[BAT_STATE]                            # batteryState value missing
        if n in q["extra_field_rows"]:
            f.insert(PED_END + 1, "null")               # one null too many after pedometer
        rows.append(",".join(f))
    return log, rows
