/* fuzz_ref.c - plain C reference of FuzzEffect (Fuzz.swift). See CEffectReference.h. */
#include "effect_common.h"

static double bessel_i0(double x) {
    double sum = 1.0, term = 1.0, k = 1.0;
    while (term > 1e-17 * sum) {
        term *= (x / (2 * k)) * (x / (2 * k));
        sum += term;
        k += 1;
    }
    return sum;
}

void fuzz_ref_design(double *h) {
    const int n = 256;
    const double beta = 8.0, cutoff = 0.5 / 8.0, centre = (double)(n - 1) / 2;
    double sum = 0;
    int i;
    for (i = 0; i < n; i++) {
        double t = (double)i - centre;
        double x = 2 * cutoff * t;
        double sinc = x == 0 ? 1 : sin(M_PI * x) / (M_PI * x);
        double r = t / centre;
        double window = bessel_i0(beta * sqrt(1 - r * r)) / bessel_i0(beta);
        h[i] = 2 * cutoff * sinc * window;
    }
    for (i = 0; i < n; i++) sum += h[i];
    for (i = 0; i < n; i++) h[i] = h[i] / sum;
}

void fuzz_ref_init(fuzz_ref_state *st, double fs, double drive, double tone, double level) {
    double h[256], a = fx_smoothing(0.02, fs);
    int k, j;
    memset(st, 0, sizeof *st);
    fx_smoother_init(&st->drive, drive, a);
    fx_smoother_init(&st->tone, tone, a);
    fx_smoother_init(&st->level, level, a);
    fx_fade_init(&st->fade, 0, fs);
    st->dc_pole = 1 - 2 * M_PI * 10 / fs;
    st->tone_floor = -expm1(-2 * M_PI * 700 / fs);
    st->gain_span = log2(30.0);
    st->bias_offset = fx_tanh(0.15);
    fuzz_ref_design(h);
    for (k = 0; k < 8; k++)
        for (j = 0; j < 32; j++) st->up[k * 32 + j] = (float)(8.0 * h[j * 8 + k]);
    for (j = 0; j < 256; j++) st->down[j] = (float)h[j];
}

void fuzz_ref_set(fuzz_ref_state *st, int parameter, double value) {
    switch (parameter) {
    case 0: st->fade.target = value >= 0.5 ? 0.0 : 1.0; break;
    case 1: st->drive.target = value; break;
    case 2: st->tone.target = value; break;
    case 3: st->level.target = value; break;
    }
}

/* eight interleaved partial sums, added pairwise (as FuzzEffect.dot) */
static inline float dot(const float *a, const float *b, int n) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    int i;
    for (i = 0; i < n; i += 8) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
        s4 += a[i + 4] * b[i + 4];
        s5 += a[i + 5] * b[i + 5];
        s6 += a[i + 6] * b[i + 6];
        s7 += a[i + 7] * b[i + 7];
    }
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7));
}

void fuzz_ref_process(fuzz_ref_state *st, float *buffer, int n) {
    const double bias = 0.15;
    int i, k, xi = st->xi, si = st->si;
    for (i = 0; i < n; i++) {
        float x = buffer[i];
        float finite = isfinite(x) ? x : 0.0f;
        double g, y, d, a;
        xi = xi == 0 ? 31 : xi - 1;
        st->xh[xi] = finite;
        st->xh[xi + 32] = finite;
        g = fx_exp2(fx_next(&st->drive) * st->gain_span);
        for (k = 0; k < 8; k++) {
            double u = (double)dot(st->up + k * 32, st->xh + xi, 32);
            double s = fx_tanh(g * u + bias) - st->bias_offset;
            si = si == 0 ? 255 : si - 1;
            st->sh[si] = (float)s;
            st->sh[si + 256] = (float)s;
        }
        y = (double)dot(st->down, st->sh + si, 256);
        d = y - st->dc_in + st->dc_pole * st->dc_out;
        st->dc_in = y;
        st->dc_out = fx_flush(d);
        a = 1.0 - (1.0 - st->tone_floor) * (1.0 - fx_next(&st->tone));
        st->low_pass = fx_flush(st->low_pass + a * (st->dc_out - st->low_pass));
        buffer[i] = fx_fade_apply(&st->fade, x, st->low_pass * fx_next(&st->level));
    }
    st->xi = xi;
    st->si = si;
}
