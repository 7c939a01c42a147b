/* tremolo_ref.c - plain C reference of TremoloEffect (Tremolo.swift). See CEffectReference.h. */
#include "effect_common.h"

static double rate_target(const tremolo_ref_state *st) {
    double beats = fx_sync_beats(st->sync);
    if (beats > 0) return st->bpm / 60 / beats;
    return st->free_rate;
}

void tremolo_ref_init(tremolo_ref_state *st, double fs, double rate, double depth, int shape) {
    double a = fx_smoothing(0.02, fs);
    memset(st, 0, sizeof *st);
    st->inverse_rate = 1 / fs;
    st->free_rate = rate;
    st->shape = shape;
    st->bpm = 120;
    st->shaped = 1;
    fx_smoother_init(&st->hz, rate, a);
    fx_smoother_init(&st->depth, depth, a);
    fx_fade_init(&st->fade, 0, fs);
    st->edge = fx_smoothing(0.001, fs);
    st->settle_length = (int)(0.025 * fs);
}

void tremolo_ref_set(tremolo_ref_state *st, int parameter, double value) {
    switch (parameter) {
    case 0: st->fade.target = value >= 0.5 ? 0.0 : 1.0; break;
    case 1: st->free_rate = value; st->hz.target = rate_target(st); break;
    case 2: st->depth.target = value; break;
    case 3:
        if ((int)value != st->shape) { st->shape = (int)value; st->settling = st->settle_length; }
        break;
    case 4: st->sync = (int)value; st->hz.target = rate_target(st); break;
    }
}

static inline double waveform(double phase, int shape) {
    double t;
    switch (shape) {
    case 1:
        t = 2 * phase - 1;
        return t < 0 ? -t : t;
    case 2:
        return phase < 0.5 ? 1 : 0;
    default:
        return 0.5 + 0.5 * fx_cos_turns(phase);
    }
}

/* one copy of the loop per shape (a constant inside each), as TremoloEffect.render */
static inline void render(tremolo_ref_state *st, float *buffer, int n, const int shape) {
    double phase = st->phase, shaped = st->shaped;
    int settling = st->settling, i;
    fx_smoother hz = st->hz, depth = st->depth;
    fx_fade fade = st->fade;
    const double inverse_rate = st->inverse_rate, edge = st->edge;
    for (i = 0; i < n; i++) {
        double rate = fx_next(&hz);
        double u = waveform(phase, shape), d, gain;
        float x;
        if (shape == 2 || settling > 0) {
            shaped += edge * (u - shaped);
            if (settling > 0) settling -= 1;
        } else {
            shaped = u;
        }
        d = fx_next(&depth);
        gain = 1.0 - d * (1.0 - shaped);
        x = buffer[i];
        buffer[i] = fx_fade_apply(&fade, x, (double)x * gain);
        phase += rate * inverse_rate;
        if (phase >= 1) phase -= 1;
    }
    st->phase = phase;
    st->shaped = shaped;
    st->settling = settling;
    st->hz = hz;
    st->depth = depth;
    st->fade = fade;
}

void tremolo_ref_process(tremolo_ref_state *st, float *buffer, int n) {
    switch (st->shape) {
    case 1: render(st, buffer, n, 1); break;
    case 2: render(st, buffer, n, 2); break;
    default: render(st, buffer, n, 0); break;
    }
}
