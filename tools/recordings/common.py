"""Shared constants, number formatting and clock helpers."""

import math
import struct
from datetime import datetime, timedelta, timezone

SEED = 4711
G0 = 9.80665                  # m/s^2 per G
DEG = math.pi / 180.0
TZ_HOURS = 1                  # loggingTime offset: +01:00
TWO_PI = 2.0 * math.pi

# ---------------------------------------------------------------------------
# Number and time formatting
# ---------------------------------------------------------------------------

_F1 = struct.Struct("<f")
_F3 = struct.Struct("<3f")


def f32(x):
    """Round a double to the nearest float32 value."""
    return _F1.unpack(_F1.pack(x))[0]


def fmt3_f32(a, b, c):
    """Three float32 values printed like the app (%.16g of the double)."""
    return "%.16g,%.16g,%.16g" % _F3.unpack(_F3.pack(a, b, c))


ACC_LSB = 1.0 / 65536.0       # iPhone accelerometer values are multiples of 2^-16 G


def qacc(x):
    return round(x * 65536.0) * ACC_LSB


class WallClock:
    """ISO-8601 local time with milliseconds and a fixed UTC offset."""

    def __init__(self, hours=TZ_HOURS):
        self.off_ms = hours * 3600000
        sign = "+" if hours >= 0 else "-"
        self.suffix = "%s%02d:00" % (sign, abs(hours))
        self.dates = {}

    def iso(self, epoch):
        ms = int(math.floor(epoch * 1000.0)) + self.off_ms
        day, msd = divmod(ms, 86400000)
        date = self.dates.get(day)
        if date is None:
            date = (datetime(1970, 1, 1) + timedelta(days=day)).strftime("%Y-%m-%d")
            self.dates[day] = date
        h, rem = divmod(msd, 3600000)
        m, rem = divmod(rem, 60000)
        s, mss = divmod(rem, 1000)
        return "%sT%02d:%02d:%02d.%03d%s" % (date, h, m, s, mss, self.suffix)


CLOCK = WallClock()


def epoch_of(y, mo, d, h, mi, s, ms):
    tz = timezone(timedelta(hours=TZ_HOURS))
    return datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=tz).timestamp()


def human(n):
    """A file size for people: "37 kB" or "1.47 MB"."""
    return "%.0f kB" % (n / 1000.0) if n < 1e6 else "%.2f MB" % (n / 1e6)


# ---------------------------------------------------------------------------
# Where each demo log starts: wall clock (loggingTime) and device uptime
# (*_sinceReboot)
# ---------------------------------------------------------------------------

PHONE_START = epoch_of(2025, 1, 23, 20, 14, 5, 317)
WATCH_START = epoch_of(2025, 1, 23, 20, 31, 48, 902)
ACCEL_START = epoch_of(2025, 1, 23, 20, 22, 37, 640)
QUIRK_START = epoch_of(2025, 1, 23, 19, 58, 12, 45)
PHONE_UPTIME = 81234.123456
WATCH_UPTIME = 53871.402318
ACCEL_UPTIME = 81746.450912
QUIRK_UPTIME = 80280.861207
