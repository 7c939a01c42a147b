/* The baseline the brief names: a naive C loop that reads a SensorLog CSV and strtod()s two
 * columns per line (the accelerometer timestamp and X). Prints MB/s on stderr.
 * Build: cc -O2 -o naive-strtod naive-strtod.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: naive-strtod FILE COL_A COL_B\n"); return 2; }
    int ca = atoi(argv[2]), cb = atoi(argv[3]);
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    static char line[1 << 16];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double sum = 0; long bytes = 0, lines = 0;
    while (fgets(line, sizeof line, f)) {
        bytes += (long)strlen(line); lines++;
        int col = 0; char *p = line;
        while (*p) {
            if (col == ca || col == cb) sum += strtod(p, NULL);
            char *c = strchr(p, ',');
            if (!c) break;
            p = c + 1; col++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    fprintf(stderr, "naive C strtod: %ld lines, %.1f MB in %.3f s = %.0f MB/s (checksum %g)\n",
            lines, bytes / 1e6, s, bytes / 1e6 / s, sum);
    return 0;
}
