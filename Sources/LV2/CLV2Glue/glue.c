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

/* The effect plugins: ports 0 in, 1 out, then one control per parameter of the chain, in slot
 * order (bypass first for each effect; effects.ttl). A control that changed is handed to the
 * chain, which glides it as in real time; the first run after activate starts settled. */
#define FX_MAX_CONTROLS 64
enum { FX_FUZZ, FX_TREMOLO, FX_PHASER, FX_DELAY, FX_CHAIN, FX_KINDS };
static const uint32_t fx_controls[FX_KINDS] = {4, 5, 5, 6, 28};

typedef struct {
    void *fx;
    int kind;
    const float *in;
    float *out;
    const float *control[FX_MAX_CONTROLS];
    float last[FX_MAX_CONTROLS];
    int fresh;
} Effect;

static LV2_Handle fx_instantiate(int kind, double rate) {
    Effect *e = (Effect *)calloc(1, sizeof(Effect));
    if (!e) return NULL;
    e->kind = kind;
    e->fx = sw_fx_new(kind, rate);
    if (!e->fx) {
        free(e);
        return NULL;
    }
    e->fresh = 1;
    return (LV2_Handle)e;
}

#define FX_INSTANTIATE(name, kind)                                                                       \
    static LV2_Handle name(const LV2_Descriptor *d, double rate, const char *b, const LV2_Feature *const *f) { \
        (void)d;                                                                                         \
        (void)b;                                                                                         \
        (void)f;                                                                                         \
        return fx_instantiate(kind, rate);                                                               \
    }
FX_INSTANTIATE(fuzz_instantiate, FX_FUZZ)
FX_INSTANTIATE(tremolo_instantiate, FX_TREMOLO)
FX_INSTANTIATE(phaser_instantiate, FX_PHASER)
FX_INSTANTIATE(delay_instantiate, FX_DELAY)
FX_INSTANTIATE(chain_instantiate, FX_CHAIN)

static void fx_connect_port(LV2_Handle h, uint32_t port, void *data) {
    Effect *e = (Effect *)h;
    if (port == 0) e->in = (const float *)data;
    else if (port == 1) e->out = (float *)data;
    else if (port - 2 < fx_controls[e->kind]) e->control[port - 2] = (const float *)data;
}

static void fx_activate(LV2_Handle h) { ((Effect *)h)->fresh = 1; }

static void fx_run(LV2_Handle h, uint32_t n) {
    Effect *e = (Effect *)h;
    uint32_t i, count = fx_controls[e->kind];
    if (!e->in || !e->out) return;
    for (i = 0; i < count; i++) {
        float v;
        if (!e->control[i]) continue;
        v = *e->control[i];
        if (e->fresh || v != e->last[i]) {
            sw_fx_set(e->fx, (int32_t)i, v);
            e->last[i] = v;
        }
    }
    if (e->fresh) {
        sw_fx_reset(e->fx); /* start settled, like render */
        e->fresh = 0;
    }
    if (e->out != e->in) memcpy(e->out, e->in, sizeof(float) * n);
    sw_fx_process(e->fx, e->out, n);
}

static void fx_cleanup(LV2_Handle h) {
    Effect *e = (Effect *)h;
    sw_fx_free(e->fx);
    free(e);
}

#define FX_URI(name) "https://github.com/sensorwah/sensorwah#" name
static const LV2_Descriptor fx_descriptors[FX_KINDS] = {
    {FX_URI("fuzz"), fuzz_instantiate, fx_connect_port, fx_activate, fx_run, NULL, fx_cleanup, extension_data},
    {FX_URI("tremolo"), tremolo_instantiate, fx_connect_port, fx_activate, fx_run, NULL, fx_cleanup, extension_data},
    {FX_URI("phaser"), phaser_instantiate, fx_connect_port, fx_activate, fx_run, NULL, fx_cleanup, extension_data},
    {FX_URI("delay"), delay_instantiate, fx_connect_port, fx_activate, fx_run, NULL, fx_cleanup, extension_data},
    {FX_URI("chain"), chain_instantiate, fx_connect_port, fx_activate, fx_run, NULL, fx_cleanup, extension_data},
};

int sw_lv2_glue_version(void) { return 2; }

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index) {
    if (index == 0) return &descriptor;
    if (index - 1 < FX_KINDS) return &fx_descriptors[index - 1];
    return NULL;
}
