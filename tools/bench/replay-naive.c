/* The baseline for `tools/bench-replay`: a naive C replay of a SensorLog CSV that writes the
 * same bytes as `sensorwah replay --fast --midi stdout` with the bench's simple mappings.
 *
 *   replay-naive FILE ORIGIN_COLS MAPPING...
 *     ORIGIN_COLS  the timestamp columns (0-based, comma-separated) whose smallest value in the
 *                  first data row is stream time 0 (SensorLog: accelerometer, gyro, motion)
 *     MAPPING      TIME_COL:VALUE_COL:CC:MIN:MAX  a bipolar CC on channel 1, centre 0, no
 *                  smoothing, no outlier rejection (`AXIS cc=CC range=MIN..MAX smooth=0
 *                  reject=none speed=none`)
 *
 * Per line: fgets, then strtod on every field up to the last column a mapping uses. A mapping
 * steps when its timestamp advanced; its value is clamped, scaled to 0..127 around 64 and
 * printed (printf to a buffered stdout) when it changed. At the end every controller not at 64
 * gets 64 at the latest time stepped. Build: cc -O2 -o replay-naive replay-naive.c -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXMAP 8
#define MAXCOL 256

struct mapping { int tcol, vcol, cc; double lo, hi, last_t; int last_sent; };

static void emit(double t, int cc, int value) {
    long ms = lround(t * 1000);
    const char *sign = ms < 0 ? "-" : "";
    if (ms < 0) ms = -ms;
    printf("{\"t\":%s%ld.%03ld,\"type\":\"cc\",\"ch\":1,\"cc\":%d,\"value\":%d}\n", sign, ms / 1000, ms % 1000, cc, value);
}

static int scale(double x, double lo, double hi) {
    double v = x < lo ? lo : (x > hi ? hi : x);
    if (v >= 0) return 64 + (int)round((hi > 0 ? v / hi : 0) * 63);
    return 64 - (int)round((lo < 0 ? v / lo : 0) * 64);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: replay-naive FILE ORIGIN_COLS TIME:VALUE:CC:MIN:MAX...\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int origin_cols[8], n_origin = 0, last_col = 0;
    for (char *s = argv[2]; *s && n_origin < 8; ) {
        origin_cols[n_origin++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    struct mapping maps[MAXMAP];
    int n_maps = 0;
    for (int a = 3; a < argc && n_maps < MAXMAP; a++) {
        struct mapping *m = &maps[n_maps++];
        if (sscanf(argv[a], "%d:%d:%d:%lf:%lf", &m->tcol, &m->vcol, &m->cc, &m->lo, &m->hi) != 5) {
            fprintf(stderr, "bad mapping '%s'\n", argv[a]); return 2;
        }
        m->last_t = NAN; m->last_sent = -1;
        if (m->tcol > last_col) last_col = m->tcol;
        if (m->vcol > last_col) last_col = m->vcol;
    }
    static char line[1 << 16];
    double field[MAXCOL];
    double origin = NAN, latest = 0;
    if (!fgets(line, sizeof line, f)) return 1;   /* the header */
    while (fgets(line, sizeof line, f)) {
        int col = 0;
        char *p = line;
        while (col <= last_col) {
            field[col++] = strtod(p, NULL);
            char *c = strchr(p, ',');
            if (!c) break;
            p = c + 1;
        }
        if (col <= last_col) continue;
        if (isnan(origin)) {   /* first data row: the earliest group timestamp is time 0 */
            int c = 0;
            for (p = line; *p; c++) {
                for (int k = 0; k < n_origin; k++)
                    if (origin_cols[k] == c) { double t = strtod(p, NULL); if (isnan(origin) || t < origin) origin = t; }
                char *q = strchr(p, ',');
                if (!q) break;
                p = q + 1;
            }
        }
        for (int i = 0; i < n_maps; i++) {
            struct mapping *m = &maps[i];
            double raw = field[m->tcol];
            if (!isnan(m->last_t) && raw <= m->last_t) continue;   /* no new sample */
            m->last_t = raw;
            double t = raw - origin;
            if (t > latest) latest = t;
            int v = scale(field[m->vcol], m->lo, m->hi);
            if (v == m->last_sent) continue;
            m->last_sent = v;
            emit(t, m->cc, v);
        }
    }
    for (int i = 0; i < n_maps; i++)
        if (maps[i].last_sent != 64) emit(latest, maps[i].cc, 64);
    return 0;
}
