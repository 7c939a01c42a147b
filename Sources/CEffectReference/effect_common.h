/* effect_common.h - what the C effect references share, as EffectMath.swift does in Swift:
 * the polynomial exp2 (as the wah's), the smoother, the bypass fade, cos in turns, tan, tanh. */
#ifndef EFFECT_COMMON_H
#define EFFECT_COMMON_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "CEffectReference.h"

static inline double fx_exp2(double y) {
    const double magic = 6755399441055744.0;
    double r = y + magic;
    double n = r - magic;
    double t = (y - n) * 0.6931471805599453;
    double e = 1.0 + t * (1.0 + t * (1.0 / 2.0 + t * (1.0 / 6.0 + t * (1.0 / 24.0
               + t * (1.0 / 120.0 + t * (1.0 / 720.0 + t * (1.0 / 5040.0)))))));
    int64_t rb, mb;
    uint64_t bits;
    double scale;
    memcpy(&rb, &r, sizeof rb);
    memcpy(&mb, &magic, sizeof mb);
    bits = (uint64_t)(rb - mb + 1023) << 52;
    memcpy(&scale, &bits, sizeof scale);
    return e * scale;
}

static inline double fx_smoothing(double time, double fs) {
    return time > 0 ? -expm1(-1.0 / (time * fs)) : 1.0;
}

static inline void fx_smoother_init(fx_smoother *s, double v, double a) {
    s->current = v;
    s->target = v;
    s->coefficient = a;
}

static inline double fx_next(fx_smoother *s) {
    double d = s->target - s->current;
    s->current = fabs(d) < 1e-12 ? s->target : s->current + s->coefficient * d;
    return s->current;
}

static inline void fx_fade_init(fx_fade *f, int bypassed, double fs) {
    f->position = bypassed ? 0.0 : 1.0;
    f->target = f->position;
    f->step = 1.0 / (0.005 * fs);
}

static inline float fx_fade_apply(fx_fade *f, float dry, double wet) {
    const double limit = (double)FLT_MAX;
    double c = f->position, y;
    if (c != f->target) {
        if (c < f->target) {
            c += f->step;
            if (c > f->target) c = f->target;
        } else {
            c -= f->step;
            if (c < f->target) c = f->target;
        }
        f->position = c;
    }
    if (c == 0.0) return dry;
    y = c == 1.0 ? wet : (double)dry + c * (wet - (double)dry);
    if (!(y <= limit)) y = isnan(y) ? 0.0 : limit;
    if (y < -limit) y = -limit;
    return (float)y;
}

static inline double fx_cos_turns(double t) {
    const double magic = 6755399441055744.0;
    double x = t - ((t + magic) - magic), sign = 1.0, w, w2;
    if (x < 0) x = -x;
    if (x > 0.25) { x = 0.5 - x; sign = -1.0; }
    w = x * 6.283185307179586;
    w2 = w * w;
    return sign * (1.0 + w2 * (-1.0 / 2.0 + w2 * (1.0 / 24.0 + w2 * (-1.0 / 720.0 + w2 * (1.0 / 40320.0
        + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0)))))));
}

static inline double fx_tan(double w) {
    double w2 = w * w;
    double sn = w * (1.0 + w2 * (-1.0 / 6.0 + w2 * (1.0 / 120.0 + w2 * (-1.0 / 5040.0
        + w2 * (1.0 / 362880.0 + w2 * (-1.0 / 39916800.0))))));
    double cs = 1.0 + w2 * (-1.0 / 2.0 + w2 * (1.0 / 24.0 + w2 * (-1.0 / 720.0
        + w2 * (1.0 / 40320.0 + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0))))));
    return sn / cs;
}

static inline double fx_tanh(double x) {
    double a = x < 0 ? -x : x, e, t;
    if (!(a < 20)) a = 20;
    e = fx_exp2(a * 2.8853900817779268);
    t = 1.0 - 2.0 / (e + 1.0);
    return x < 0 ? -t : t;
}

static inline double fx_flush(double v) { return fabs(v) < 1e-20 ? 0.0 : v; }

/* Beats per cycle of a sync choice (EffectParameter.syncBeats). */
static inline double fx_sync_beats(int i) {
    switch (i) {
    case 1: return 4;
    case 2: return 2;
    case 3: return 1;
    case 4: return 0.5;
    case 5: return 0.25;
    case 6: return 2.0 / 3.0;
    case 7: return 1.0 / 3.0;
    case 8: return 1.5;
    case 9: return 0.75;
    default: return 0;
    }
}

#endif
