/* wah_common.h - what both C references share with each other, as WahProcessor's voices share
 * it in Swift (fastExp2, smooth, crossfadeAndLimit): the polynomial exp2, the pedal smoother and
 * the end of every sample. Private to CWahReference. */
#ifndef WAH_COMMON_H
#define WAH_COMMON_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* 2^y for |y| < 2^50: round to nearest integer with 1.5*2^52, e^t (|t| <= ln2/2) by its Taylor
 * series to degree 7, 2^n from the exponent bits. Relative error < 1e-8. */
static inline double fast_exp2(double y) {
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

/* Pedal smoother: two one-poles, each snapping to its input when closer than 1e-12. */
static inline double smooth(double *p1, double *p2, double target, double a) {
    const double snap = 1e-12;
    double d1 = target - *p1, d2;
    *p1 = fabs(d1) < snap ? target : *p1 + a * d1;
    d2 = *p1 - *p2;
    *p2 = fabs(d2) < snap ? *p1 : *p2 + a * d2;
    return *p2;
}

/* One step of the bypass crossfade from dry to effect, then the output clamped to the finite
 * float range. */
static inline float crossfade_and_limit(double effect, double dry, double *crossfade, double target, double step) {
    const double limit = (double)FLT_MAX;
    double c = *crossfade, y;
    if (c != target) {
        if (c < target) {
            c += step;
            if (c > target) c = target;
        } else {
            c -= step;
            if (c < target) c = target;
        }
        *crossfade = c;
    }
    if (c == 1.0) {
        y = effect;
    } else if (c == 0.0) {
        y = dry;
    } else {
        y = dry + c * (effect - dry);
    }
    if (y > limit) y = limit;
    if (y < -limit) y = -limit;
    return (float)y;
}

#endif
