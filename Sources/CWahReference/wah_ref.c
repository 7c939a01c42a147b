/* wah_ref.c - plain C reference of WahProcessor. See wah_ref.h. */
#include "wah_ref.h"
#include "wah_common.h"

/* WahVoice.svf.makeUpGainDB: the voice's make-up gain (see Wah.swift for how it is chosen). */
#define SVF_MAKE_UP_DB 9.55

void wah_ref_default_settings(wah_ref_settings *s) {
    s->heel_frequency = 450.0;
    s->toe_frequency = 2200.0;
    s->heel_q = 8.0;
    s->toe_q = 2.0;
    s->level_compensation = 1.0;
    s->output_gain = 1.0;
    s->mix = 1.0;
    s->smoothing_time = 0.015;
    s->bypass = 0;
}

static double sanitize(double v, double lo, double hi, double fallback) {
    if (isnan(v)) return fallback;
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}

void wah_ref_update_settings(wah_ref_state *st, const wah_ref_settings *s) {
    double fs = st->sample_rate;
    double guard_hz = 0.49 * fs;
    double heel, toe, heel_q, toe_q, level, gain, mix, smoothing_time, qg, exponent, stage_time;

    st->settings = *s;
    heel = sanitize(s->heel_frequency, 1.0, guard_hz, 450.0);
    toe = sanitize(s->toe_frequency, 1.0, guard_hz, 2200.0);
    heel_q = sanitize(s->heel_q, 0.05, 200.0, 8.0);
    toe_q = sanitize(s->toe_q, 0.05, 200.0, 2.0);
    level = sanitize(s->level_compensation, 0.0, 1.0, 1.0);
    gain = isfinite(s->output_gain) ? (s->output_gain < -1000.0 ? -1000.0
                                     : (s->output_gain > 1000.0 ? 1000.0 : s->output_gain))
                                    : 1.0;
    mix = sanitize(s->mix, 0.0, 1.0, 1.0);
    smoothing_time = sanitize(s->smoothing_time, 0.0, 10.0, 0.015);

    st->angle_heel = 3.14159265358979323846 * heel / fs; /* == Double.pi */
    st->angle_span = log2(toe / heel);
    st->k_heel = 1.0 / heel_q;
    st->k_span = log2(heel_q / toe_q);
    qg = sqrt(heel_q * toe_q);
    exponent = 1.0 - 0.5 * level;
    st->wet_heel = mix * gain * pow(10.0, SVF_MAKE_UP_DB / 20.0) * pow(qg, -0.5 * level) * pow(st->k_heel, exponent);
    st->wet_span = st->k_span * exponent;
    st->dry_gain = (1.0 - mix) * gain;
    stage_time = 0.5 * smoothing_time;
    st->smoothing = stage_time > 0.0 ? -expm1(-1.0 / (stage_time * fs)) : 1.0;
    st->crossfade_step = 1.0 / (0.005 * fs);
    st->crossfade_target = s->bypass ? 0.0 : 1.0;
}

void wah_ref_reset(wah_ref_state *st) {
    st->s1 = 0.0;
    st->s2 = 0.0;
    st->p1 = st->target;
    st->p2 = st->target;
    st->crossfade = st->crossfade_target;
}

void wah_ref_prepare(wah_ref_state *st, double sample_rate, const wah_ref_settings *s) {
    wah_ref_settings defaults;
    if (s == NULL) {
        wah_ref_default_settings(&defaults);
        s = &defaults;
    }
    memset(st, 0, sizeof *st);
    st->sample_rate = (isfinite(sample_rate) && sample_rate > 0.0) ? sample_rate : 48000.0;
    st->target = 0.0;
    wah_ref_update_settings(st, s);
    wah_ref_reset(st);
}

void wah_ref_set_pedal(wah_ref_state *st, float target) {
    if (isnan(target)) return;
    if (target < 0.0f) target = 0.0f;
    if (target > 1.0f) target = 1.0f;
    st->target = (double)target;
}

float wah_ref_pedal(const wah_ref_state *st) { return (float)st->p2; }

/* Laws at pedal p: a1 = cc/D, a2 = sc/D, a3 = ss/D (tan(w) = sn/cs), wet gain. */
static inline void laws(const wah_ref_state *co, double p, double *a1, double *a2, double *a3,
                        double *wet) {
    double w = co->angle_heel * fast_exp2(p * co->angle_span);
    double k = co->k_heel * fast_exp2(p * co->k_span);
    double g = co->wet_heel * fast_exp2(p * co->wet_span);
    double w2 = w * w;
    double sn = w * (1.0 + w2 * (-1.0 / 6.0 + w2 * (1.0 / 120.0 + w2 * (-1.0 / 5040.0
                + w2 * (1.0 / 362880.0 + w2 * (-1.0 / 39916800.0))))));
    double cs = 1.0 + w2 * (-1.0 / 2.0 + w2 * (1.0 / 24.0 + w2 * (-1.0 / 720.0
                + w2 * (1.0 / 40320.0 + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0))))));
    double ss = sn * sn, sc = sn * cs, cc = cs * cs;
    double inv = 1.0 / (cc + ss + k * sc);
    *a1 = cc * inv;
    *a2 = sc * inv;
    *a3 = ss * inv;
    *wet = g;
}

/* TPT SVF sample, NaN reset, denormal flush, mix, bypass crossfade, output clamp. */
static inline float filter(const wah_ref_state *co, float input, double a1, double a2, double a3,
                           double wet_gain, double *s1, double *s2, double *crossfade) {
    const double flush = 1e-20;
    double x = (double)input;
    double v3 = x - *s2;
    double bp = a1 * *s1 + a2 * v3;
    double lp = *s2 + a2 * *s1 + a3 * v3;
    double n1 = (bp + bp) - *s1;
    double n2 = 2.0 * lp - *s2;
    double dry = x, effect;
    if (!(fabs(n1) + fabs(n2) <= DBL_MAX)) {
        n1 = 0.0;
        n2 = 0.0;
        bp = 0.0;
        dry = 0.0;
    }
    *s1 = fabs(n1) < flush ? 0.0 : n1;
    *s2 = fabs(n2) < flush ? 0.0 : n2;

    effect = co->dry_gain * dry + wet_gain * bp;
    return crossfade_and_limit(effect, dry, crossfade, co->crossfade_target, co->crossfade_step);
}

#define WAH_REF_CHUNK 8

/* Same structure as WahProcessor.render: chunks of 8 samples, three passes per chunk
 * (smoother, coefficients, filter). Constants and state in locals so that stores through
 * out cannot alias them. */
void wah_ref_process(wah_ref_state *st, const float *in, float *out, int n) {
    const wah_ref_state co = *st;
    double pw[WAH_REF_CHUNK], c1[WAH_REF_CHUNK], c2[WAH_REF_CHUNK], c3[WAH_REF_CHUNK];
    double s1 = st->s1, s2 = st->s2, p1 = st->p1, p2 = st->p2, xf = st->crossfade;
    const double target = st->target, smoothing = st->smoothing;
    int base = 0, i, m;

    while (base < n) {
        m = n - base < WAH_REF_CHUNK ? n - base : WAH_REF_CHUNK;
        for (i = 0; i < m; i++) pw[i] = smooth(&p1, &p2, target, smoothing);
        for (i = 0; i < m; i++) laws(&co, pw[i], &c1[i], &c2[i], &c3[i], &pw[i]);
        for (i = 0; i < m; i++)
            out[base + i] = filter(&co, in[base + i], c1[i], c2[i], c3[i], pw[i], &s1, &s2, &xf);
        base += m;
    }

    st->s1 = s1;
    st->s2 = s2;
    st->p1 = p1;
    st->p2 = p2;
    st->crossfade = xf;
}

/* One sample, the same operations as wah_ref_process (for tests). */
float wah_ref_process_sample(wah_ref_state *st, float x) {
    double a1, a2, a3, wet;
    double p = smooth(&st->p1, &st->p2, st->target, st->smoothing);
    laws(st, p, &a1, &a2, &a3, &wet);
    return filter(st, x, a1, a2, a3, wet, &st->s1, &st->s2, &st->crossfade);
}
