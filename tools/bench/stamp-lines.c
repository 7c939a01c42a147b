/* For `tools/bench-listen compare`: reads a listener's stdout (a pipe) with blocking read(2)
 * and notes, for every complete line, the CLOCK_MONOTONIC time the read that completed it
 * returned. At end of input it writes "NANOSECONDS LINE" per line to the file named by argv[1].
 * Build: cc -O2 -o stamp-lines stamp-lines.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: stamp-lines OUT < pipe\n"); return 2; }
    size_t cap = 1 << 26, used = 0, lines = 0, maxlines = 1 << 20;
    char *text = malloc(cap);
    unsigned long long *at = malloc(maxlines * sizeof *at);
    size_t *end = malloc(maxlines * sizeof *end);
    if (!text || !at || !end) return 1;
    for (;;) {
        ssize_t n = read(0, text + used, cap - used);
        if (n <= 0) break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long long now = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
        for (size_t i = used; i < used + (size_t)n && lines < maxlines; i++)
            if (text[i] == '\n') { at[lines] = now; end[lines++] = i; }
        used += (size_t)n;
        if (used == cap) break;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) { perror(argv[1]); return 1; }
    size_t start = 0;
    for (size_t k = 0; k < lines; k++) {
        fprintf(f, "%llu %.*s\n", at[k], (int)(end[k] - start), text + start);
        start = end[k] + 1;
    }
    fclose(f);
    return 0;
}
