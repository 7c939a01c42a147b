/* How long a thread blocked in read(2) takes to run after a write on a local socket, at 100 Hz:
 * the wake-up that dominates a line's way through a listener on an idle machine.
 *
 *   wake-ping MODE [COUNT]     MODE: sleep | spin | window   (COUNT writes, default 3000)
 *
 *   sleep   nothing else runs: the reader's CPU is idle (on a KVM guest with guest halt
 *           polling off, halted) when the write comes
 *   spin    a second thread (SCHED_FIFO 8) spins all the time, so a CPU is always running
 *   window  it spins only from 0.3 ms before each write until the reader has the line, as
 *           `listen`'s output thread does before a due line
 * The reader runs SCHED_FIFO 9 and the writer 1 where allowed (as tools/bench-listen's).
 * Prints p50/p90/p99/max of write -> read returned, in µs.
 * Build: cc -O2 -pthread -o wake-ping wake-ping.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int sv[2], count = 3000;
static long *lat;
static atomic_long next_write, reads;
static atomic_int done;

static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
static void realtime(int p) { struct sched_param s = { .sched_priority = p }; pthread_setschedparam(pthread_self(), SCHED_FIFO, &s); }
static void sleep_until(long ns) { struct timespec d = { ns / 1000000000L, ns % 1000000000L }; while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL)) {} }

static void *reader(void *arg) {
    (void)arg; realtime(9);
    long sent;
    for (long n = 0; read(sv[1], &sent, sizeof sent) == sizeof sent; n++) { lat[n] = now_ns() - sent; atomic_store(&reads, n + 1); }
    return NULL;
}
static void *spin_always(void *arg) {
    (void)arg; realtime(8);
    while (!atomic_load(&done)) {}
    return NULL;
}
static void *spin_window(void *arg) {
    (void)arg; realtime(8);
    long seen = 0;
    while (!atomic_load(&done)) {
        long due = atomic_load(&next_write);
        if (due == 0) { usleep(1000); continue; }
        sleep_until(due - 300000);
        while (atomic_load(&reads) == seen && now_ns() < due + 1000000 && !atomic_load(&done)) {}
        seen = atomic_load(&reads);
        while (atomic_load(&next_write) == due && !atomic_load(&done)) usleep(100);
    }
    return NULL;
}
static int cmp(const void *a, const void *b) { long x = *(const long *)a, y = *(const long *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "sleep") && strcmp(argv[1], "spin") && strcmp(argv[1], "window"))) {
        fprintf(stderr, "usage: wake-ping sleep|spin|window [COUNT]\n"); return 2;
    }
    if (argc > 2) count = atoi(argv[2]);
    lat = calloc((size_t)count, sizeof *lat);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pthread_t r, s = 0;
    pthread_create(&r, NULL, reader, NULL);
    if (!strcmp(argv[1], "spin")) pthread_create(&s, NULL, spin_always, NULL);
    if (!strcmp(argv[1], "window")) pthread_create(&s, NULL, spin_window, NULL);
    realtime(1);
    long start = now_ns() + 20000000;
    for (int i = 0; i < count; i++) {
        long due = start + i * 10000000L;
        atomic_store(&next_write, due);
        sleep_until(due);
        long t = now_ns();
        if (write(sv[0], &t, sizeof t) != sizeof t) return 1;
    }
    usleep(20000);
    atomic_store(&done, 1);
    close(sv[0]);
    pthread_join(r, NULL);
    if (s) pthread_join(s, NULL);
    long n = atomic_load(&reads);
    qsort(lat, (size_t)n, sizeof *lat, cmp);
    printf("%-6s p50 %4ld us, p90 %4ld us, p99 %4ld us, max %5ld us over %ld wake-ups\n", argv[1],
           lat[n / 2] / 1000, lat[n * 9 / 10] / 1000, lat[n * 99 / 100] / 1000, lat[n - 1] / 1000, n);
    return 0;
}
