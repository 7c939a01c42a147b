/* crybaby_ref.c - plain C reference of the crybaby voice. See crybaby_ref.h. */
#include "crybaby_ref.h"
#include "wah_common.h"

#define PI 3.14159265358979323846
/* CrybabyModel's constants */
#define INPUT_ZERO_HZ 22.151955
#define INPUT_POLE_HZ 231.727680
#define LOOP_ZERO_HZ 471.821743
#define HIGH_ZERO_HZ 10097.8321
#define OUTPUT_CORNER_HZ 7.958
#define A2 0.0176257
#define A3 (-0.00260259)
#define HEEL_SLOPE 0.9294779
#define HEADROOM 4.4
/* WahVoice.crybaby.makeUpGainDB: the voice's make-up gain (see Wah.swift for how it is chosen). */
#define MAKE_UP_DB (-7.75)

static inline double log2_frequency(double p) {
    return 8.6704348899e+00 + p * (2.3222015926e+00 + p * (-9.8858452204e-01 + p * (3.0139140040e+00
           + p * (-4.1998607859e+00 + p * (2.6425668727e+00 + p * -6.8951411284e-01)))));
}
static inline double log2_q(double p) {
    return 3.5893152308e+00 + p * (-1.7675786260e+00 + p * (1.7089026197e+00 + p * (-6.3217008313e+00
           + p * (8.8010379283e+00 + p * (-5.6908470907e+00 + p * 1.4964348046e+00)))));
}
static inline double log2_gain(double p) {
    return 1.0486126328e+01 + p * (4.9669805705e+00 + p * (-3.1441138531e+00 + p * (8.4757535730e+00
           + p * (-1.1392236346e+01 + p * (7.2398252717e+00 + p * -1.9026414790e+00)))));
}

typedef struct { double a1, a2, a3, k, mh, mb, ml, dist2; } laws_t;

static inline laws_t crybaby_laws(double p, const crybaby_ref_state *co) {
    laws_t l;
    double f0 = fast_exp2(log2_frequency(p));
    double q = fast_exp2(log2_q(p));
    double gain = fast_exp2(log2_gain(p));
    double w = f0 * co->pi_over_rate;
    if (w > 1.5) w = 1.5;
    double w2 = w * w;
    double sn = w * (1.0 + w2 * (-1.0 / 6.0 + w2 * (1.0 / 120.0 + w2 * (-1.0 / 5040.0
                + w2 * (1.0 / 362880.0 + w2 * (-1.0 / 39916800.0))))));
    double cs = 1.0 + w2 * (-1.0 / 2.0 + w2 * (1.0 / 24.0 + w2 * (-1.0 / 720.0
                + w2 * (1.0 / 40320.0 + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0))))));
    double k = 1.0 / q;
    double ss = sn * sn, sc = sn * cs, cc = cs * cs;
    double inv = 1.0 / (cc + ss + k * sc);
    double w0 = 2 * PI * f0;
    l.a1 = cc * inv;
    l.a2 = sc * inv;
    l.a3 = ss * inv;
    l.k = k;
    l.mh = gain * co->high;
    l.mb = gain * co->band / w0;
    l.ml = gain * co->low / (w0 * w0);
    l.dist2 = A2 * fast_exp2(HEEL_SLOPE * (1 - p));
    return l;
}

static inline double resonator(double x, const laws_t *l, double *s1, double *s2) {
    double v3 = x - *s2;
    double bp = l->a1 * *s1 + l->a2 * v3;
    double lp = *s2 + l->a2 * *s1 + l->a3 * v3;
    double hp;
    *s1 = (bp + bp) - *s1;
    *s2 = (lp + lp) - *s2;
    hp = x - l->k * bp - lp;
    return l->mh * hp + l->mb * bp + l->ml * lp;
}

static inline double headroom_limit(double v) {
    double r = v * (1.0 / HEADROOM);
    double r2 = r * r;
    return v / sqrt(sqrt(1.0 + r2 * r2));
}

static inline float sample(float input, const laws_t *l, crybaby_ref_state *st, const crybaby_ref_state *co) {
    const double flush = 1e-20;
    double x = (double)input;
    double v = (x - st->c0) * co->input_g;
    double lp1 = v + st->c0;
    double n0 = lp1 + v;
    double u = (x - lp1) + co->input_ratio * lp1;
    double y = resonator(u, l, &st->s1, &st->s2);
    double yb = headroom_limit(y);
    double r1 = resonator(l->dist2 * yb * yb, l, &st->t1, &st->t2);
    double r1b = headroom_limit(r1);
    double r2 = resonator((2 * l->dist2 * r1b + A3 * yb * yb) * yb, l, &st->u1, &st->u2);
    double collector = headroom_limit(y + r1 + r2);
    double vo = (collector - st->c1) * co->output_g;
    double lpo = vo + st->c1;
    double n1 = lpo + vo;
    double wet = collector - lpo;
    double dry = x, effect;
    double total = fabs(n0) + fabs(n1) + fabs(st->s1) + fabs(st->s2) + fabs(st->t1) + fabs(st->t2)
                   + fabs(st->u1) + fabs(st->u2);
    if (!(total <= DBL_MAX)) {
        st->c0 = st->c1 = st->s1 = st->s2 = st->t1 = st->t2 = st->u1 = st->u2 = 0;
        wet = 0;
        dry = 0;
    } else {
        st->c0 = fabs(n0) < flush ? 0 : n0;
        st->c1 = fabs(n1) < flush ? 0 : n1;
        if (fabs(st->s1) < flush) st->s1 = 0;
        if (fabs(st->s2) < flush) st->s2 = 0;
        if (fabs(st->t1) < flush) st->t1 = 0;
        if (fabs(st->t2) < flush) st->t2 = 0;
        if (fabs(st->u1) < flush) st->u1 = 0;
        if (fabs(st->u2) < flush) st->u2 = 0;
    }
    effect = co->dry_gain * dry + co->wet_gain * wet;
    return crossfade_and_limit(effect, dry, &st->crossfade, co->crossfade_target, co->crossfade_step);
}

static double one_pole_g(double hz, double fs) {
    double g = tan(PI * hz / fs);
    return g / (1 + g);
}

void crybaby_ref_prepare(crybaby_ref_state *st, double fs, double mix, double gain, double smoothing_time) {
    double wz2 = 2 * PI * LOOP_ZERO_HZ, wz3 = 2 * PI * HIGH_ZERO_HZ, stage = 0.5 * smoothing_time;
    memset(st, 0, sizeof *st);
    st->pi_over_rate = PI / fs;
    st->input_g = one_pole_g(INPUT_POLE_HZ, fs);
    st->output_g = one_pole_g(OUTPUT_CORNER_HZ, fs);
    st->input_ratio = INPUT_ZERO_HZ / INPUT_POLE_HZ;
    st->high = 1 / wz3;
    st->band = 1 + wz2 / wz3;
    st->low = wz2;
    st->wet_gain = mix * gain * pow(10.0, MAKE_UP_DB / 20.0);
    st->dry_gain = (1.0 - mix) * gain;
    st->smoothing = stage > 0.0 ? -expm1(-1.0 / (stage * fs)) : 1.0;
    st->crossfade_step = 1.0 / (0.005 * fs);
    st->crossfade_target = 1.0;
    st->crossfade = 1.0;
}

void crybaby_ref_set_pedal(crybaby_ref_state *st, float target) {
    if (isnan(target)) return;
    if (target < 0.0f) target = 0.0f;
    if (target > 1.0f) target = 1.0f;
    st->target = (double)target;
}

void crybaby_ref_set_bypass(crybaby_ref_state *st, int bypass) { st->crossfade_target = bypass ? 0.0 : 1.0; }

void crybaby_ref_process(crybaby_ref_state *st, const float *in, float *out, int n) {
    const crybaby_ref_state co = *st;
    laws_t l = crybaby_laws(st->p2, &co);
    double laws_pedal = st->p2;
    int i;
    for (i = 0; i < n; i++) {
        double p = smooth(&st->p1, &st->p2, co.target, co.smoothing);
        if (p != laws_pedal) {
            l = crybaby_laws(p, &co);
            laws_pedal = p;
        }
        out[i] = sample(in[i], &l, st, &co);
    }
}
