/*
 * CALSA: libasound (ALSA sequencer) for Swift.
 *
 * asoundlib.h imports as is; what Swift cannot import is wrapped here:
 *   - the snd_seq_ev_set_* / snd_seq_ev_clear helpers are function-like macros;
 *   - snd_lib_error_handler_t is C-variadic, so a handler cannot be written in Swift:
 *     the silent one lives here and sensorwah_alsa_silence() installs it;
 *   - libasound has no call for another client's input-FIFO fill level
 *     (snd_seq_get_client_pool only asks about the caller), so the
 *     SNDRV_SEQ_IOCTL_GET_CLIENT_POOL ioctl is issued directly. Its struct is
 *     declared here under our own name: the kernel's <sound/asequencer.h>
 *     cannot be included next to asoundlib.h (the struct tags clash).
 */
#ifndef SENSORWAH_CALSA_SHIM_H
#define SENSORWAH_CALSA_SHIM_H

#include <alsa/asoundlib.h>
#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>

/* ---------------------------------------------------------- error output --- */

/* libasound prints its own errors ("ALSA lib seq_hw.c:...: open /dev/snd/seq failed")
   on stderr unless a handler is set; callers report errors themselves. */
static void sensorwah_alsa_quiet_handler(const char *file, int line, const char *function,
                                         int err, const char *fmt, ...)
{
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Process-wide: installs the silent handler. Safe to call more than once. */
static inline void sensorwah_alsa_silence(void)
{
    snd_lib_error_set_handler(sensorwah_alsa_quiet_handler);
}

/* ------------------------------------------------------- event set-up --- */

static inline void sensorwah_seq_ev_clear(snd_seq_event_t *ev) { snd_seq_ev_clear(ev); }
static inline void sensorwah_seq_ev_set_source(snd_seq_event_t *ev, int port) { snd_seq_ev_set_source(ev, port); }
static inline void sensorwah_seq_ev_set_subs(snd_seq_event_t *ev) { snd_seq_ev_set_subs(ev); }
static inline void sensorwah_seq_ev_set_direct(snd_seq_event_t *ev) { snd_seq_ev_set_direct(ev); }
static inline void sensorwah_seq_ev_set_dest(snd_seq_event_t *ev, int client, int port)
{
    snd_seq_ev_set_dest(ev, client, port);
}

/* Control Change: channel 0-15, controller 0-127, value 0-127. */
static inline void sensorwah_seq_ev_set_controller(snd_seq_event_t *ev, int channel, unsigned int controller, int value)
{
    snd_seq_ev_set_controller(ev, channel, controller, value);
}

/* Pitch bend: ALSA's value is signed, -8192..8191 (0 = centre). */
static inline void sensorwah_seq_ev_set_pitchbend(snd_seq_event_t *ev, int channel, int value)
{
    snd_seq_ev_set_pitchbend(ev, channel, value);
}

/* Note On / Note Off: channel 0-15, note 0-127, velocity 0-127. */
static inline void sensorwah_seq_ev_set_noteon(snd_seq_event_t *ev, int channel, int note, int velocity)
{
    snd_seq_ev_set_noteon(ev, channel, note, velocity);
}
static inline void sensorwah_seq_ev_set_noteoff(snd_seq_event_t *ev, int channel, int note, int velocity)
{
    snd_seq_ev_set_noteoff(ev, channel, note, velocity);
}

/* Everything an output event needs but its payload: from `port`, to all
   subscribers, delivered now (no queue). */
static inline void sensorwah_seq_ev_init_output(snd_seq_event_t *ev, int port)
{
    snd_seq_ev_clear(ev);
    snd_seq_ev_set_source(ev, port);
    snd_seq_ev_set_subs(ev);
    snd_seq_ev_set_direct(ev);
}

/* ------------------------------------------------------ event read-out --- */

static inline int sensorwah_seq_ev_type(const snd_seq_event_t *ev) { return ev->type; }
static inline int sensorwah_seq_ev_channel(const snd_seq_event_t *ev) { return ev->data.control.channel; }
static inline int sensorwah_seq_ev_param(const snd_seq_event_t *ev) { return (int)ev->data.control.param; }
static inline int sensorwah_seq_ev_value(const snd_seq_event_t *ev) { return ev->data.control.value; }
static inline int sensorwah_seq_ev_dest_port(const snd_seq_event_t *ev) { return ev->dest.port; }
/* Announcements (CLIENT_START/EXIT, PORT_START/EXIT/CHANGE): the address concerned. */
static inline int sensorwah_seq_ev_addr_client(const snd_seq_event_t *ev) { return ev->data.addr.client; }
static inline int sensorwah_seq_ev_addr_port(const snd_seq_event_t *ev) { return ev->data.addr.port; }
/* PORT_SUBSCRIBED / PORT_UNSUBSCRIBED: sender and destination. */
static inline int sensorwah_seq_ev_connect_sender_client(const snd_seq_event_t *ev) { return ev->data.connect.sender.client; }
static inline int sensorwah_seq_ev_connect_sender_port(const snd_seq_event_t *ev) { return ev->data.connect.sender.port; }
static inline int sensorwah_seq_ev_connect_dest_client(const snd_seq_event_t *ev) { return ev->data.connect.dest.client; }
static inline int sensorwah_seq_ev_connect_dest_port(const snd_seq_event_t *ev) { return ev->data.connect.dest.port; }

/* ------------------------------------------------------------- plumbing --- */

/* The sequencer's file descriptor (for poll), or -1. */
static inline int sensorwah_seq_fd(snd_seq_t *seq)
{
    struct pollfd pfd;
    if (snd_seq_poll_descriptors(seq, &pfd, 1, POLLIN) < 1) return -1;
    return pfd.fd;
}

/* Non-blocking: 1 if input is waiting (in libasound's buffer or in the kernel), 0 if not,
   negative errno on error. */
static inline int sensorwah_seq_input_ready(snd_seq_t *seq, int fd)
{
    if (snd_seq_event_input_pending(seq, 0) > 0) return 1;
    struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
    int r = poll(&pfd, 1, 0);
    if (r < 0) return -errno;
    return (r > 0 && (pfd.revents & POLLIN)) ? 1 : 0;
}

/* The kernel's struct snd_seq_client_pool (sound/asequencer.h), under our own name. */
struct sensorwah_seq_client_pool {
    int client;
    int output_pool;
    int input_pool;
    int output_room;
    int output_free;
    int input_free;
    char reserved[64];
};

/* Asks the kernel (on the sequencer fd) how full `client`'s input FIFO is: on success
   returns 0 with the FIFO's size in *pool_size and its free cells in *free_cells; a client
   without a FIFO (a kernel client: it delivers synchronously) has *pool_size == 0.
   Returns -errno on failure (-ENOENT: no such client). */
static inline int sensorwah_seq_client_input_free(int fd, int client, int *free_cells, int *pool_size)
{
    struct sensorwah_seq_client_pool info = { 0 };
    info.client = client;
    if (ioctl(fd, _IOWR('S', 0x4b, struct sensorwah_seq_client_pool), &info) < 0) return -errno;
    *pool_size = info.input_pool > 0 ? info.input_pool : 0;
    *free_cells = info.input_pool > 0 ? info.input_free : 0;
    return 0;
}

#endif
