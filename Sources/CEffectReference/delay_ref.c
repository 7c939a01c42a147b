/* delay_ref.c - plain C reference of DelayEffect (Delay.swift). See CEffectReference.h. */
#include <stdlib.h>
#include "effect_common.h"

static double target_samples(const delay_ref_state *st) {
    double beats = fx_sync_beats(st->sync);
    double seconds = beats > 0 ? beats * 60 / st->bpm : st->free_time;
    double d = seconds * st->sample_rate;
    if (d < 2) d = 2;
    if (d > 2.0 * st->sample_rate) d = 2.0 * st->sample_rate;
    return d;
}

void delay_ref_init(delay_ref_state *st, double fs, double time, double feedback, double mix, double tone) {
    double a = fx_smoothing(0.02, fs);
    int size = 4;
    memset(st, 0, sizeof *st);
    st->sample_rate = fs;
    while ((double)size < 2.0 * fs + 8) size <<= 1;
    st->line = calloc((size_t)size, sizeof(float));
    st->mask = size - 1;
    fx_smoother_init(&st->feedback, feedback, a);
    fx_smoother_init(&st->mix, mix, a);
    fx_smoother_init(&st->tone, tone, a);
    fx_fade_init(&st->fade, 0, fs);
    st->glide = fx_smoothing(0.06, fs);
    st->tone_floor = -expm1(-2 * M_PI * 500 / fs);
    st->free_time = time;
    st->bpm = 120;
    st->delay_target = target_samples(st);
    st->delay = st->delay_target;
}

void delay_ref_free(delay_ref_state *st) {
    free(st->line);
    st->line = NULL;
}

void delay_ref_set(delay_ref_state *st, int parameter, double value) {
    switch (parameter) {
    case 0: st->fade.target = value >= 0.5 ? 0.0 : 1.0; break;
    case 1: st->free_time = value; st->delay_target = target_samples(st); break;
    case 2: st->feedback.target = value; break;
    case 3: st->mix.target = value; break;
    case 4: st->tone.target = value; break;
    case 5: st->sync = (int)value; st->delay_target = target_samples(st); break;
    }
}

void delay_ref_process(delay_ref_state *st, float *buffer, int n) {
    const double target = st->delay_target, max_step = 0.5;
    float *line = st->line;
    const int mask = st->mask;
    int i;
    for (i = 0; i < n; i++) {
        float x = buffer[i];
        double input = isfinite(x) ? (double)x : 0.0;
        int whole, r;
        double t, p0, p1, p2, p3, c1, c2, c3, echo, a, w, m;
        if (st->delay != target) {
            double step = st->glide * (target - st->delay);
            if (step > max_step) step = max_step;
            if (step < -max_step) step = -max_step;
            st->delay = fabs(target - st->delay) < 1e-9 ? target : st->delay + step;
        }
        whole = (int)st->delay;
        t = st->delay - (double)whole;
        r = st->write - whole;
        p0 = (double)line[(r + 1) & mask];
        p1 = (double)line[r & mask];
        p2 = (double)line[(r - 1) & mask];
        p3 = (double)line[(r - 2) & mask];
        c1 = 0.5 * (p2 - p0);
        c2 = p0 - 2.5 * p1 + 2 * p2 - 0.5 * p3;
        c3 = 0.5 * (p3 - p0) + 1.5 * (p1 - p2);
        echo = ((c3 * t + c2) * t + c1) * t + p1;
        a = 1.0 - (1.0 - st->tone_floor) * (1.0 - fx_next(&st->tone));
        st->damped = fx_flush(st->damped + a * (echo - st->damped));
        w = input + fx_next(&st->feedback) * st->damped;
        if (fabs(w) < 1e-30) w = 0;
        line[st->write & mask] = (float)w;
        st->write = (st->write + 1) & mask;
        m = fx_next(&st->mix);
        buffer[i] = fx_fade_apply(&st->fade, x, (1 - m) * input + m * echo);
    }
}
