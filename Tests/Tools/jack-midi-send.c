/*
 * jack-midi-send: test machinery (never installed). A JACK MIDI client that plays a short
 * script of raw MIDI messages into a port, as a foot controller behind a2jmidid or a DAW's
 * MIDI output would. Debian's JACK tools send only notes (jack_midiseq) or their own test
 * messages (jack_midi_latency_test); the scene tests need Program Change, clock and
 * controllers.
 *
 *   cc -O2 -o jack-midi-send Tests/Tools/jack-midi-send.c $(pkg-config --cflags --libs jack)
 *   jack-midi-send CLIENT-NAME DESTINATION-PORT STEP...
 *
 * A STEP is one message as hex bytes ("c0 01": Program Change 1 on channel 1; "f8": clock)
 * or "+MS": wait MS milliseconds. The client registers CLIENT-NAME:out, connects it to
 * DESTINATION-PORT, plays the steps (each message in the next period, in order) and exits
 * once the last one has left. Prints "jack-midi-send: sent N messages" on stdout.
 * Server: $JACK_DEFAULT_SERVER, never started.
 */
#include <jack/jack.h>
#include <jack/midiport.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 1024
struct msg { size_t len; unsigned char bytes[16]; };
static struct msg ring[SLOTS];
static atomic_uint head, tail;   /* head: next to read (process thread), tail: next to write */
static atomic_uint sent;
static jack_port_t *port;

static int process(jack_nframes_t n, void *arg) {
    (void)arg;
    void *buf = jack_port_get_buffer(port, n);
    jack_midi_clear_buffer(buf);
    unsigned h = atomic_load_explicit(&head, memory_order_relaxed);
    unsigned t = atomic_load_explicit(&tail, memory_order_acquire);
    while (h != t) {
        struct msg *m = &ring[h % SLOTS];
        if (jack_midi_event_write(buf, 0, m->bytes, m->len) != 0) break;   /* full: next period */
        h++;
        atomic_fetch_add_explicit(&sent, 1, memory_order_relaxed);
    }
    atomic_store_explicit(&head, h, memory_order_release);
    return 0;
}

static void sleep_ms(double ms) {
    struct timespec ts = { (time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6) };
    while (nanosleep(&ts, &ts) != 0) {}
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: jack-midi-send CLIENT-NAME DESTINATION-PORT STEP... (STEP: hex bytes, or +MS)\n");
        return 2;
    }
    /* check the script before touching JACK */
    for (int i = 3; i < argc; i++) {
        if (argv[i][0] == '+') { if (atof(argv[i] + 1) < 0) { fprintf(stderr, "jack-midi-send: bad wait '%s'\n", argv[i]); return 2; } continue; }
        size_t len = 0;
        char *p = argv[i];
        while (*p) {
            char *end;
            unsigned long b = strtoul(p, &end, 16);
            if (end == p || b > 0xff || len >= 16) { fprintf(stderr, "jack-midi-send: bad message '%s' (hex bytes, e.g. \"c0 01\")\n", argv[i]); return 2; }
            len++;
            p = end;
            while (*p == ' ') p++;
        }
        if (len == 0) { fprintf(stderr, "jack-midi-send: empty message\n"); return 2; }
    }
    jack_status_t status;
    jack_client_t *client = jack_client_open(argv[1], JackNoStartServer, &status);
    if (!client) { fprintf(stderr, "jack-midi-send: no JACK server (status 0x%x)\n", (unsigned)status); return 1; }
    port = jack_port_register(client, "out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
    if (!port || jack_set_process_callback(client, process, NULL) != 0 || jack_activate(client) != 0) {
        fprintf(stderr, "jack-midi-send: cannot set up the client\n");
        return 1;
    }
    if (jack_connect(client, jack_port_name(port), argv[2]) != 0) {
        fprintf(stderr, "jack-midi-send: cannot connect %s to %s\n", jack_port_name(port), argv[2]);
        jack_client_close(client);
        return 1;
    }
    unsigned queued = 0;
    for (int i = 3; i < argc; i++) {
        if (argv[i][0] == '+') { sleep_ms(atof(argv[i] + 1)); continue; }
        while (atomic_load(&tail) - atomic_load(&head) >= SLOTS) sleep_ms(1);
        struct msg *m = &ring[atomic_load(&tail) % SLOTS];
        m->len = 0;
        char *p = argv[i];
        while (*p) {
            char *end;
            m->bytes[m->len++] = (unsigned char)strtoul(p, &end, 16);
            p = end;
            while (*p == ' ') p++;
        }
        atomic_fetch_add_explicit(&tail, 1, memory_order_release);
        queued++;
    }
    while (atomic_load(&sent) < queued) sleep_ms(1);
    /* two periods or so, so the last messages leave JACK's buffers */
    sleep_ms(2500.0 * jack_get_buffer_size(client) / jack_get_sample_rate(client) + 20);
    jack_client_close(client);
    printf("jack-midi-send: sent %u messages\n", atomic_load(&sent));
    return 0;
}
