/* LD_PRELOAD shim for `tools/bench-listen compare`: records when the sender (`sensorwah
 * stream`) calls write/writev/send/sendmsg on a socket, on CLOCK_MONOTONIC, just before the
 * real call. At exit it writes one line per call, "NANOSECONDS BYTES", to $SENDSTAMP_OUT.
 * Build: cc -O2 -shared -fPIC -o sendstamp.so sendstamp.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAXCALLS (1 << 20)
static unsigned long long stamp_ns[MAXCALLS];
static long stamp_len[MAXCALLS];
static int calls;

static int is_socket(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

static void note(int fd, long len) {
    if (calls >= MAXCALLS || !is_socket(fd)) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    stamp_ns[calls] = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
    stamp_len[calls++] = len;
}

ssize_t write(int fd, const void *buf, size_t n) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = dlsym(RTLD_NEXT, "write");
    note(fd, (long)n);
    return real(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    static ssize_t (*real)(int, const struct iovec *, int);
    if (!real) real = dlsym(RTLD_NEXT, "writev");
    long n = 0;
    for (int i = 0; i < count; i++) n += (long)iov[i].iov_len;
    note(fd, n);
    return real(fd, iov, count);
}

ssize_t send(int fd, const void *buf, size_t n, int flags) {
    static ssize_t (*real)(int, const void *, size_t, int);
    if (!real) real = dlsym(RTLD_NEXT, "send");
    note(fd, (long)n);
    return real(fd, buf, n, flags);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags) {
    static ssize_t (*real)(int, const struct msghdr *, int);
    if (!real) real = dlsym(RTLD_NEXT, "sendmsg");
    long n = 0;
    for (size_t i = 0; i < msg->msg_iovlen; i++) n += (long)msg->msg_iov[i].iov_len;
    note(fd, n);
    return real(fd, msg, flags);
}

__attribute__((destructor)) static void dump(void) {
    const char *path = getenv("SENDSTAMP_OUT");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (int i = 0; i < calls; i++) fprintf(f, "%llu %ld\n", stamp_ns[i], stamp_len[i]);
    fclose(f);
}
