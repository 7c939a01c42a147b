/* phaser_ref.c - plain C reference of PhaserEffect (Phaser.swift). See CEffectReference.h. */
#include "effect_common.h"

void phaser_ref_init(phaser_ref_state *st, double fs, double rate, double depth, int stages, double feedback) {
    double a = fx_smoothing(0.02, fs);
    memset(st, 0, sizeof *st);
    fx_smoother_init(&st->rate, rate, a);
    fx_smoother_init(&st->depth, depth, a);
    fx_smoother_init(&st->feedback, feedback, a);
    fx_fade_init(&st->fade, 0, fs);
    st->inverse_rate = 1 / fs;
    st->centre_angle = M_PI * 630.0 / fs;
    st->stage_count = stages;
    st->previous_count = stages;
    st->count_fade = 1;
    st->count_step = 1 / (0.005 * fs);
}

void phaser_ref_set(phaser_ref_state *st, int parameter, double value) {
    int n;
    switch (parameter) {
    case 0: st->fade.target = value >= 0.5 ? 0.0 : 1.0; break;
    case 1: st->rate.target = value; break;
    case 2: st->depth.target = value; break;
    case 3:
        n = (int)value & ~1;
        if (n < 2) n = 2;
        if (n > 12) n = 12;
        if (n != st->stage_count) {
            st->previous_count = st->count_fade < 0.5 ? st->previous_count : st->stage_count;
            st->stage_count = n;
            st->count_fade = 0;
        }
        break;
    case 4: st->feedback.target = value; break;
    }
}

void phaser_ref_process(phaser_ref_state *st, float *buffer, int count) {
    const int n = st->stage_count, old = st->previous_count;
    const int longest = st->count_fade < 1 ? (n > old ? n : old) : n;
    const double max_angle = 0.45 * M_PI;
    double *s = st->states;
    int i, k;
    for (i = 0; i < count; i++) {
        float x = buffer[i];
        double input = isfinite(x) ? (double)x : 0.0;
        double w = st->centre_angle * fx_exp2(2.5 * fx_next(&st->depth) * fx_cos_turns(st->phase - 0.25));
        double g, gain, v, at_new = 0, at_old = 0, wet;
        if (w > max_angle) w = max_angle;
        st->phase += fx_next(&st->rate) * st->inverse_rate;
        if (st->phase >= 1) st->phase -= 1;
        g = fx_tan(w);
        gain = g / (1 + g);
        v = input + fx_next(&st->feedback) * st->last;
        for (k = 0; k < longest;) {
            double state = s[k];
            double lp = state + gain * (v - state);
            s[k] = fx_flush(2 * lp - state);
            v = 2 * lp - v;
            k += 1;
            if (k == n) at_new = v;
            if (k == old) at_old = v;
        }
        wet = at_new;
        if (st->count_fade < 1) {
            st->count_fade = st->count_fade + st->count_step;
            if (st->count_fade > 1) st->count_fade = 1;
            wet = at_old + st->count_fade * (at_new - at_old);
        }
        st->last = wet;
        buffer[i] = fx_fade_apply(&st->fade, x, 0.5 * (input + wet));
    }
    if (st->count_fade >= 1) st->previous_count = n;
}
