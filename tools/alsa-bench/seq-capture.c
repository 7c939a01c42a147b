/*
 * seq-capture: a sequencer client that subscribes to a port itself, as a DAW does,
 * and prints the Control Change and pitch-bend events it receives (SensorWah tests).
 *
 * It waits until a client named CLIENT (default "SensorWah") with a port named PORT
 * (default "out") exists, subscribes its own input port to it with
 * snd_seq_connect_from(), says so on stderr ("seq-capture: subscribed to C:P"), and
 * prints one line per event on stdout, line-buffered, with the channel shown as 1-16:
 *
 *     cc CH CONTROLLER VALUE
 *     pitchbend CH VALUE          (0-16383, 8192 = centre: MIDI's form, not ALSA's signed one)
 *
 * Other events are ignored. It stops on SIGINT/SIGTERM (after printing what has already
 * arrived) or after IDLE seconds without an event (-i; 0 = never). An input overrun
 * (events lost because it read too slowly) is reported on stderr and makes the exit
 * status 1.
 *
 * usage: seq-capture [-c CLIENT] [-p PORT] [-w WAIT_S] [-i IDLE_S] [-n NAME]
 *   -c  source client name (exact)             default SensorWah
 *   -p  source port name (exact)               default out
 *   -w  give up (exit 2) if it has not appeared within WAIT_S seconds   default 30
 *   -i  exit after IDLE_S seconds without events once subscribed (0 = never)  default 0
 *   -n  our client name                         default seq-capture
 *
 * Build: make -C tools/alsa-bench (output in .cache/alsa-bench/).
 */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void)sig; stop = 1; }

static void quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...)
{
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The address of CLIENT:PORT by exact names, or -1 in *client. */
static void find_port(snd_seq_t *seq, const char *cname, const char *pname, int *client, int *port)
{
    snd_seq_client_info_t *ci;
    snd_seq_port_info_t *pi;
    snd_seq_client_info_alloca(&ci);
    snd_seq_port_info_alloca(&pi);
    *client = -1;
    snd_seq_client_info_set_client(ci, -1);
    while (snd_seq_query_next_client(seq, ci) >= 0) {
        if (strcmp(snd_seq_client_info_get_name(ci), cname) != 0) continue;
        int c = snd_seq_client_info_get_client(ci);
        snd_seq_port_info_set_client(pi, c);
        snd_seq_port_info_set_port(pi, -1);
        while (snd_seq_query_next_port(seq, pi) >= 0) {
            if (strcmp(snd_seq_port_info_get_name(pi), pname) == 0) {
                *client = c;
                *port = snd_seq_port_info_get_port(pi);
                return;
            }
        }
    }
}

/* Prints one event; returns 1 if it was a CC or pitch bend. */
static int print_event(const snd_seq_event_t *ev)
{
    switch (ev->type) {
    case SND_SEQ_EVENT_CONTROLLER:
        printf("cc %u %u %d\n", ev->data.control.channel + 1u, ev->data.control.param, ev->data.control.value);
        return 1;
    case SND_SEQ_EVENT_PITCHBEND:
        printf("pitchbend %u %d\n", ev->data.control.channel + 1u, ev->data.control.value + 8192);
        return 1;
    default:
        return 0;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: seq-capture [-c CLIENT] [-p PORT] [-w WAIT_S] [-i IDLE_S] [-n NAME]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *cname = "SensorWah", *pname = "out", *myname = "seq-capture";
    double wait_s = 30, idle_s = 0;
    int opt;
    while ((opt = getopt(argc, argv, "c:p:w:i:n:h")) != -1) {
        switch (opt) {
        case 'c': cname = optarg; break;
        case 'p': pname = optarg; break;
        case 'w': wait_s = atof(optarg); break;
        case 'i': idle_s = atof(optarg); break;
        case 'n': myname = optarg; break;
        default: usage();
        }
    }
    if (optind != argc) usage();

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;   /* no SA_RESTART: poll returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    snd_lib_error_set_handler(quiet_handler);

    snd_seq_t *seq;
    int err = snd_seq_open(&seq, "default", SND_SEQ_OPEN_DUPLEX, 0);
    if (err < 0) {
        fprintf(stderr, "seq-capture: cannot open the ALSA sequencer: %s\n", snd_strerror(err));
        return 2;
    }
    snd_seq_set_client_name(seq, myname);
    int in_port = snd_seq_create_simple_port(seq, "in", SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE,
                                             SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
    if (in_port < 0) {
        fprintf(stderr, "seq-capture: cannot create a port: %s\n", snd_strerror(in_port));
        return 2;
    }

    /* wait for the source to appear */
    int src_client = -1, src_port = -1;
    double give_up = now_s() + wait_s;
    for (;;) {
        find_port(seq, cname, pname, &src_client, &src_port);
        if (src_client >= 0) break;
        if (stop || now_s() > give_up) {
            fprintf(stderr, "seq-capture: no port %s:%s appeared within %g s\n", cname, pname, wait_s);
            return 2;
        }
        usleep(5000);
    }
    if ((err = snd_seq_connect_from(seq, in_port, src_client, src_port)) < 0) {
        fprintf(stderr, "seq-capture: cannot subscribe to %s:%s (%d:%d): %s\n", cname, pname, src_client, src_port,
                snd_strerror(err));
        return 2;
    }
    fprintf(stderr, "seq-capture: subscribed to %s:%s (%d:%d)\n", cname, pname, src_client, src_port);

    int npfd = snd_seq_poll_descriptors_count(seq, POLLIN);
    struct pollfd *pfd = calloc((size_t)npfd, sizeof *pfd);
    snd_seq_poll_descriptors(seq, pfd, (unsigned)npfd, POLLIN);
    snd_seq_nonblock(seq, 1);

    long count = 0;
    int overrun = 0;
    double last = now_s();
    for (;;) {
        /* read everything that is there (also after a stop request: drain) */
        for (;;) {
            snd_seq_event_t *ev = NULL;
            err = snd_seq_event_input(seq, &ev);
            if (err == -ENOSPC) {
                fprintf(stderr, "seq-capture: input overrun after %ld events: events were lost\n", count);
                overrun = 1;
                continue;
            }
            if (err < 0 || ev == NULL) break;
            if (print_event(ev)) { count++; last = now_s(); }
        }
        if (stop) break;
        if (idle_s > 0 && now_s() - last >= idle_s) break;
        int r = poll(pfd, (nfds_t)npfd, 100);
        if (r < 0 && errno != EINTR) {
            perror("seq-capture: poll");
            break;
        }
    }
    fprintf(stderr, "seq-capture: %ld events\n", count);
    snd_seq_close(seq);
    return overrun ? 1 : 0;
}
