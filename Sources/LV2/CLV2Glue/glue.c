/* glue.c - sensorwah.lv2: the LV2 descriptor, its ports and the Atom MIDI input. Everything the
 * host calls in run() is here and in WahProcessor.process: no allocation, lock or system call. */
#include "sensorwah_lv2.h"

#include <stdlib.h>
#include <string.h>

#include <lv2/atom/atom.h>
#include <lv2/atom/util.h>
#include <lv2/core/lv2.h>
#include <lv2/midi/midi.h>
#include <lv2/urid/urid.h>

#define SENSORWAH_URI "https://github.com/sensorwah/sensorwah#wah"

enum {
    P_IN, P_OUT, P_MIDI, P_PEDAL, P_CC, P_VOICE, P_MODE, P_MIX, P_BYPASS,
    P_HEEL_HZ, P_TOE_HZ, P_HEEL_Q, P_TOE_Q, P_ATTACK, P_RELEASE, P_SENSITIVITY, P_COUNT
};

typedef struct {
    void *wah;
    const float *in;
    float *out;
    const LV2_Atom_Sequence *midi;
    const float *control[P_COUNT];
    LV2_URID midi_event; /* 0: no urid:map, MIDI ignored */
    float last_pedal;
    int fresh;
} Plugin;

static float value(const Plugin *p, int port, float fallback) {
    return p->control[port] ? *p->control[port] : fallback;
}

static LV2_Handle instantiate(const LV2_Descriptor *d, double rate, const char *bundle, const LV2_Feature *const *features) {
    Plugin *p = (Plugin *)calloc(1, sizeof(Plugin));
    (void)d;
    (void)bundle;
    if (!p) return NULL;
    for (int i = 0; features && features[i]; i++) {
        if (!strcmp(features[i]->URI, LV2_URID__map)) {
            LV2_URID_Map *map = (LV2_URID_Map *)features[i]->data;
            p->midi_event = map->map(map->handle, LV2_MIDI__MidiEvent);
        }
    }
    p->wah = sw_lv2_new(rate);
    p->last_pedal = -1;
    p->fresh = 1;
    return (LV2_Handle)p;
}

static void connect_port(LV2_Handle h, uint32_t port, void *data) {
    Plugin *p = (Plugin *)h;
    switch (port) {
    case P_IN: p->in = (const float *)data; break;
    case P_OUT: p->out = (float *)data; break;
    case P_MIDI: p->midi = (const LV2_Atom_Sequence *)data; break;
    default:
        if (port < P_COUNT) p->control[port] = (const float *)data;
    }
}

static void activate(LV2_Handle h) { ((Plugin *)h)->fresh = 1; }

static int clampi(float v, int lo, int hi) {
    int i = (int)(v + 0.5f);
    return i < lo ? lo : (i > hi ? hi : i);
}

static void run(LV2_Handle h, uint32_t n) {
    Plugin *p = (Plugin *)h;
    uint32_t pos = 0;
    float pedal;
    if (!p->in || !p->out) return;
    sw_lv2_configure(p->wah, clampi(value(p, P_VOICE, 0), 0, 1), clampi(value(p, P_MODE, 0), 0, 2),
                     value(p, P_HEEL_HZ, 450), value(p, P_TOE_HZ, 2200), value(p, P_HEEL_Q, 8), value(p, P_TOE_Q, 2),
                     value(p, P_MIX, 1), value(p, P_BYPASS, 0) > 0.5f, value(p, P_ATTACK, 5),
                     value(p, P_RELEASE, 150), value(p, P_SENSITIVITY, 2));
    /* the pedal port in MIDI units, 0...127, exactly as `sensorwah render --pedal N` */
    pedal = value(p, P_PEDAL, 0);
    if (pedal != p->last_pedal) {
        sw_lv2_set_pedal(p->wah, (float)((double)(pedal < 0 ? 0 : (pedal > 127 ? 127 : pedal)) / 127.0));
        p->last_pedal = pedal;
    }
    if (p->fresh) {
        sw_lv2_reset(p->wah); /* start settled, like render */
        p->fresh = 0;
    }
    if (p->midi && p->midi_event) {
        int cc = clampi(value(p, P_CC, 11), 0, 127);
        LV2_ATOM_SEQUENCE_FOREACH(p->midi, ev) {
            const uint8_t *msg = (const uint8_t *)(ev + 1);
            uint32_t frame;
            if (ev->body.type != p->midi_event || ev->body.size < 3) continue;
            if ((msg[0] & 0xF0) != 0xB0 || msg[1] != cc) continue;
            frame = ev->time.frames < 0 ? 0 : (uint32_t)ev->time.frames;
            if (frame > n) frame = n;
            if (frame > pos) {
                sw_lv2_process(p->wah, p->in + pos, p->out + pos, frame - pos);
                pos = frame;
            }
            sw_lv2_set_pedal(p->wah, (float)((double)(msg[2] & 0x7F) / 127.0));
        }
    }
    if (n > pos) sw_lv2_process(p->wah, p->in + pos, p->out + pos, n - pos);
}

static void cleanup(LV2_Handle h) {
    Plugin *p = (Plugin *)h;
    sw_lv2_free(p->wah);
    free(p);
}

static const void *extension_data(const char *uri) {
    (void)uri;
    return NULL;
}

static const LV2_Descriptor descriptor = {
    SENSORWAH_URI, instantiate, connect_port, activate, run, NULL, cleanup, extension_data,
};

int sw_lv2_glue_version(void) { return 1; }

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index) {
    return index == 0 ? &descriptor : NULL;
}
