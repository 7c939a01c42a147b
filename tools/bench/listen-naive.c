/* The baseline for `tools/bench-listen compare`: a naive C listener for one SensorLog sender
 * over TCP, doing what `sensorwah listen --midi stdout` does with the bench's mapping.
 *
 *   listen-naive PORT ORIGIN_COLS TIME_COL:VALUE_COL:CC:MIN:MAX
 *
 * The network thread accepts one connection and reads it with blocking read(2), splits lines,
 * strtod()s every field up to the mapping's columns (the first line is the header), maps the
 * value as tools/bench/replay-naive.c does (bipolar CC, no smoothing, sent when it changes),
 * formats the JSON line and hands it to the output thread through a mutex and a condition
 * variable. The output thread write(2)s each line to stdout. Both threads ask for SCHED_FIFO
 * at the priorities SensorWah's network (9) and output (8) threads ask for. Prints the port
 * it listens on to stderr ("listening on PORT"); exits when the sender closes.
 * Build: cc -O2 -pthread -o listen-naive listen-naive.c -lm */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define QCAP 4096
static char queue[QCAP][128];
static int qlen[QCAP];
static int qhead, qtail, finished;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static void realtime(int priority) {
    struct sched_param p = { .sched_priority = priority };
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
}

static void *output_thread(void *arg) {
    (void)arg;
    realtime(8);
    char line[128];
    for (;;) {
        pthread_mutex_lock(&lock);
        while (qhead == qtail && !finished) pthread_cond_wait(&ready, &lock);
        if (qhead == qtail) { pthread_mutex_unlock(&lock); break; }
        int n = qlen[qhead % QCAP];
        memcpy(line, queue[qhead % QCAP], (size_t)n);
        qhead++;
        pthread_mutex_unlock(&lock);
        if (write(1, line, (size_t)n) < 0) break;
    }
    return NULL;
}

static void push(const char *text, int n) {
    pthread_mutex_lock(&lock);
    if (qtail - qhead < QCAP) {
        memcpy(queue[qtail % QCAP], text, (size_t)n);
        qlen[qtail % QCAP] = n;
        qtail++;
    }
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
}

static int origin_cols[8], n_origin, tcol, vcol, cc, last_sent = -1, header_seen;
static double lo, hi, origin = NAN, last_t = NAN;

static void handle_line(char *line) {
    if (!header_seen) { header_seen = 1; return; }
    int last_col = tcol > vcol ? tcol : vcol;
    double field[256];
    int col = 0;
    char *p = line;
    while (col <= last_col) {
        field[col++] = strtod(p, NULL);
        char *c = strchr(p, ',');
        if (!c) break;
        p = c + 1;
    }
    if (col <= last_col) return;
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
    double raw = field[tcol];
    if (!isnan(last_t) && raw <= last_t) return;
    last_t = raw;
    double x = field[vcol], v = x < lo ? lo : (x > hi ? hi : x);
    int value = v >= 0 ? 64 + (int)round((hi > 0 ? v / hi : 0) * 63) : 64 - (int)round((lo < 0 ? v / lo : 0) * 64);
    if (value == last_sent) return;
    last_sent = value;
    long ms = lround((raw - origin) * 1000);
    char text[128];
    int n = snprintf(text, sizeof text, "{\"t\":%s%ld.%03ld,\"type\":\"cc\",\"ch\":1,\"cc\":%d,\"value\":%d}\n",
                     ms < 0 ? "-" : "", labs(ms) / 1000, labs(ms) % 1000, cc, value);
    push(text, n);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: listen-naive PORT ORIGIN_COLS TIME:VALUE:CC:MIN:MAX\n"); return 2; }
    for (char *s = argv[2]; *s && n_origin < 8; ) {
        origin_cols[n_origin++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    if (sscanf(argv[3], "%d:%d:%d:%lf:%lf", &tcol, &vcol, &cc, &lo, &hi) != 5) { fprintf(stderr, "bad mapping\n"); return 2; }
    int server = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(server, (struct sockaddr *)&a, sizeof a) || listen(server, 1)) { perror("bind"); return 1; }
    socklen_t alen = sizeof a;
    getsockname(server, (struct sockaddr *)&a, &alen);
    fprintf(stderr, "listening on %d\n", ntohs(a.sin_port));
    pthread_t out;
    pthread_create(&out, NULL, output_thread, NULL);
    realtime(9);
    int fd = accept(server, NULL, NULL);
    if (fd < 0) { perror("accept"); return 1; }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    static char buf[1 << 16];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, buf + used, sizeof buf - 1 - used);
        if (n <= 0) break;
        used += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < used; i++) {
            if (buf[i] != '\n') continue;
            buf[i] = 0;
            handle_line(buf + start);
            start = i + 1;
        }
        memmove(buf, buf + start, used - start);
        used -= start;
        if (used == sizeof buf - 1) used = 0;   /* a line longer than the buffer: dropped */
    }
    pthread_mutex_lock(&lock);
    finished = 1;
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
    pthread_join(out, NULL);
    return 0;
}
