/*
 * seq-bench: C baseline for ALSA sequencer latency (SensorWah).
 *
 * Two sequencer clients in one process:
 *   - "seqbench"    (main thread): one output port, caps READ | SUBS_READ;
 *   - "seqbench-rx" (receiver thread): one input port, caps WRITE | SUBS_WRITE,
 *     subscribed to seqbench:0 with snd_seq_connect_from().
 * Both are opened on "default" with SND_SEQ_OPEN_DUPLEX, blocking.
 *
 * The main thread sends Control Change events (channel 0, controller 1,
 * value i % 128) with snd_seq_event_output_direct(): direct delivery, no queue,
 * to subscribers. The receiver reads them with a blocking snd_seq_event_input().
 * Per event, with clock_gettime(CLOCK_MONOTONIC):
 *   send = time for snd_seq_event_output_direct() to return;
 *   recv = from just before snd_seq_event_output_direct() until the receiver's
 *          snd_seq_event_input() has returned that event.
 * Events are matched by arrival order (the sequencer keeps order); each one's
 * controller and value are checked.
 *
 * Pacing (default "lockstep"): the sender waits until the receiver has got
 * event i before it sends event i+1, so every event is measured on its own and
 * the receiver can never be overrun. With -p US (US > 0), events are instead
 * sent every US microseconds on an absolute clock, without waiting.
 *
 * Note: with one vCPU (tools/alsa-vm's default) the receiver is woken inside
 * output_direct and usually runs before that call returns to the sender, so
 * recv can be smaller than send. Compare implementations in the same guest.
 *
 * The first W events (-w, default 100) warm up and are not measured.
 * Percentiles are nearest-rank. Output: one JSON line on stdout, e.g.
 *   {"impl":"c","n":10000,"mode":"lockstep",...,"send_p50_us":3.1,...}
 * Exit status: 0 ok, 1 events lost or a sequencer call failed, 2 bad usage.
 *
 * Send-only mode, to check event flow with other tools: `seq-bench -t DEST -n 5`
 * connects seqbench:out to DEST (e.g. 14:0 = Midi Through, or aseqdump's port),
 * sends the N Control Change events (value 0, 1, 2, ...) the same way, waits
 * for them to be delivered, prints {"impl":"c","sent":N,"dest":"C:P"} and exits.
 *
 * Build: make -C tools/alsa-bench (output in .cache/alsa-bench/), or
 *   cc -O2 -Wall -o /tmp/seq-bench tools/alsa-bench/seq-bench.c -lasound -lpthread
 * Run in the guest: tools/alsa-vm -- .cache/alsa-bench/seq-bench -n 10000
 */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CC_CHANNEL 0
#define CC_PARAM 1

static long n_measured = 10000;
static long n_warmup = 100;
static long pace_us = 0; /* 0 = lockstep */
static const char *send_to;  /* -t DEST: send-only mode */

static long n_total;
static struct timespec *t_send_start; /* per event, written by the sender */
static double *send_us;               /* output_direct duration */
static double *recv_us;               /* send start -> received */
static snd_seq_t *rx_seq;
static sem_t received;                /* posted once per event by the receiver */
static volatile long rx_count;        /* events received so far */
static volatile int rx_error;         /* receiver saw a wrong event or an error */

static double diff_us(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e6 + (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

static void fail(const char *what, int err)
{
    fprintf(stderr, "seq-bench: %s: %s\n", what, err < 0 ? snd_strerror(err) : strerror(err));
    exit(1);
}

/* Quiet libasound's own error printing; we report failures ourselves. */
static void quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...)
{
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static void *receiver(void *arg)
{
    (void)arg;
    for (long i = 0; i < n_total; i++) {
        snd_seq_event_t *ev = NULL;
        int r;
        do {
            r = snd_seq_event_input(rx_seq, &ev);
        } while (r == -EINTR);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (r == -ENOSPC) {
            fprintf(stderr, "seq-bench: receiver overrun (events lost) at event %ld\n", i);
            rx_error = 1;
            sem_post(&received);
            return NULL;
        }
        if (r < 0 || ev == NULL) {
            fprintf(stderr, "seq-bench: snd_seq_event_input: %s\n", snd_strerror(r));
            rx_error = 1;
            sem_post(&received);
            return NULL;
        }
        if (ev->type != SND_SEQ_EVENT_CONTROLLER || ev->data.control.param != CC_PARAM ||
            ev->data.control.value != (int)(i % 128) || ev->data.control.channel != CC_CHANNEL) {
            fprintf(stderr, "seq-bench: event %ld: unexpected type %d param %u value %d\n",
                    i, ev->type, ev->data.control.param, ev->data.control.value);
            rx_error = 1;
            sem_post(&received);
            return NULL;
        }
        recv_us[i] = diff_us(&t_send_start[i], &now);
        rx_count = i + 1;
        sem_post(&received);
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the sorted array v[0..n). */
static double percentile(const double *v, long n, double q)
{
    long rank = (long)(q * (double)n + 0.999999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return v[rank - 1];
}

static void usage(void)
{
    fprintf(stderr,
            "usage: seq-bench [-n EVENTS] [-w WARMUP] [-p PACE_US]\n"
            "       seq-bench -t CLIENT:PORT [-n EVENTS]   (send only)\n"
            "  -n  measured events (default 10000)\n"
            "  -w  warm-up events, not measured (default 100)\n"
            "  -p  0 = lockstep: wait for each event to arrive before sending the next\n"
            "      (default); >0 = send one event every PACE_US microseconds\n");
    exit(2);
}

static void ts_add_us(struct timespec *t, long us)
{
    t->tv_nsec += us * 1000;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "n:w:p:t:h")) != -1) {
        if (opt == 't') { send_to = optarg; continue; }
        char *end;
        long v = strtol(optarg ? optarg : "", &end, 10);
        if (opt == 'h' || *end != '\0' || v < 0) usage();
        switch (opt) {
        case 'n': n_measured = v; break;
        case 'w': n_warmup = v; break;
        case 'p': pace_us = v; break;
        default: usage();
        }
    }
    if (optind != argc || n_measured < 1) usage();
    n_total = n_warmup + n_measured;

    snd_lib_error_set_handler(quiet_handler);

    t_send_start = calloc((size_t)n_total, sizeof *t_send_start);
    send_us = calloc((size_t)n_total, sizeof *send_us);
    recv_us = calloc((size_t)n_total, sizeof *recv_us);
    if (!t_send_start || !send_us || !recv_us) fail("calloc", ENOMEM);

    snd_seq_t *seq;
    int err = snd_seq_open(&seq, "default", SND_SEQ_OPEN_DUPLEX, 0);
    if (err < 0) {
        fprintf(stderr, "seq-bench: cannot open the ALSA sequencer (%s); "
                        "is /dev/snd/seq there? (run it in tools/alsa-vm)\n", snd_strerror(err));
        return 1;
    }
    if ((err = snd_seq_set_client_name(seq, "seqbench")) < 0) fail("snd_seq_set_client_name", err);
    int out_port = snd_seq_create_simple_port(seq, "out",
                                              SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ,
                                              SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
    if (out_port < 0) fail("snd_seq_create_simple_port (out)", out_port);
    int client = snd_seq_client_id(seq);

    if (send_to) {
        snd_seq_addr_t dest;
        if ((err = snd_seq_parse_address(seq, &dest, send_to)) < 0) fail("snd_seq_parse_address", err);
        if ((err = snd_seq_connect_to(seq, out_port, dest.client, dest.port)) < 0) fail("snd_seq_connect_to", err);
        snd_seq_event_t ev;
        snd_seq_ev_clear(&ev);
        snd_seq_ev_set_source(&ev, out_port);
        snd_seq_ev_set_subs(&ev);
        snd_seq_ev_set_direct(&ev);
        for (long i = 0; i < n_measured; i++) {
            snd_seq_ev_set_controller(&ev, CC_CHANNEL, CC_PARAM, (int)(i % 128));
            if ((err = snd_seq_event_output_direct(seq, &ev)) < 0) fail("snd_seq_event_output_direct", err);
        }
        snd_seq_sync_output_queue(seq);
        printf("{\"impl\":\"c\",\"sent\":%ld,\"dest\":\"%d:%d\"}\n", n_measured, dest.client, dest.port);
        snd_seq_close(seq);
        return 0;
    }

    if ((err = snd_seq_open(&rx_seq, "default", SND_SEQ_OPEN_DUPLEX, 0)) < 0) fail("snd_seq_open (rx)", err);
    if ((err = snd_seq_set_client_name(rx_seq, "seqbench-rx")) < 0) fail("snd_seq_set_client_name (rx)", err);
    int in_port = snd_seq_create_simple_port(rx_seq, "in",
                                             SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE,
                                             SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
    if (in_port < 0) fail("snd_seq_create_simple_port (in)", in_port);
    if ((err = snd_seq_connect_from(rx_seq, in_port, client, out_port)) < 0) fail("snd_seq_connect_from", err);

    if (sem_init(&received, 0, 0) != 0) fail("sem_init", errno);
    pthread_t rx_thread;
    if ((err = pthread_create(&rx_thread, NULL, receiver, NULL)) != 0) fail("pthread_create", err);

    snd_seq_event_t ev;
    snd_seq_ev_clear(&ev);
    snd_seq_ev_set_source(&ev, out_port);
    snd_seq_ev_set_subs(&ev);
    snd_seq_ev_set_direct(&ev);

    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long lost = 0;
    for (long i = 0; i < n_total && !rx_error; i++) {
        if (pace_us > 0) {
            ts_add_us(&next, pace_us);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {}
        }
        snd_seq_ev_set_controller(&ev, CC_CHANNEL, CC_PARAM, (int)(i % 128));
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t_send_start[i]);
        int r = snd_seq_event_output_direct(seq, &ev);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r < 0) fail("snd_seq_event_output_direct", r);
        send_us[i] = diff_us(&t_send_start[i], &t1);
        if (pace_us == 0) {
            /* Lockstep: wait (at most 2 s) for this event to arrive. */
            struct timespec deadline;
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_sec += 2;
            while (sem_timedwait(&received, &deadline) != 0) {
                if (errno == EINTR) continue;
                fprintf(stderr, "seq-bench: event %ld not received within 2 s\n", i);
                lost = n_total - rx_count;
                goto report;
            }
        }
    }
    if (pace_us > 0) {
        /* Wait for the receiver to drain (at most 5 s after the last event). */
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 5;
        while (rx_count < n_total && !rx_error) {
            if (sem_timedwait(&received, &deadline) != 0 && errno == ETIMEDOUT) break;
        }
        lost = n_total - rx_count;
    }
    if (rx_error) lost = n_total - rx_count;
    if (lost == 0) pthread_join(rx_thread, NULL);

report:
    if (lost > 0 || rx_error) {
        fprintf(stderr, "seq-bench: %ld of %ld events not received\n", lost, n_total);
        printf("{\"impl\":\"c\",\"n\":%ld,\"error\":\"lost %ld events\"}\n", n_measured, lost);
        return 1;
    }

    double *s = send_us + n_warmup, *rv = recv_us + n_warmup;
    qsort(s, (size_t)n_measured, sizeof *s, cmp_double);
    qsort(rv, (size_t)n_measured, sizeof *rv, cmp_double);
    printf("{\"impl\":\"c\",\"n\":%ld,\"warmup\":%ld,\"mode\":\"%s\",\"pace_us\":%ld,"
           "\"send_p50_us\":%.2f,\"send_p99_us\":%.2f,\"send_max_us\":%.2f,"
           "\"recv_p50_us\":%.2f,\"recv_p99_us\":%.2f,\"recv_max_us\":%.2f}\n",
           n_measured, n_warmup, pace_us > 0 ? "paced" : "lockstep", pace_us,
           percentile(s, n_measured, 0.50), percentile(s, n_measured, 0.99), s[n_measured - 1],
           percentile(rv, n_measured, 0.50), percentile(rv, n_measured, 0.99), rv[n_measured - 1]);
    fflush(stdout);

    snd_seq_close(rx_seq);
    snd_seq_close(seq);
    return 0;
}
