/* wah_ref.h - plain C reference of SensorWahCore's WahProcessor (Sources/SensorWahCore/DSP/Wah.swift).
 *
 * Same maths, same precision (double state and coefficients, float I/O), same per-sample
 * algorithm, operation for operation, and the same loop structure (chunks of 8 samples:
 * smoother pass, coefficient pass, filter pass): pedal smoother (two one-poles in the pedal
 * domain), exponential laws via a polynomial exp2, tan via Taylor sin/cos, TPT state-variable
 * band-pass, the voice's make-up gain (WahVoice.svf.makeUpGainDB), mix/gain, 5 ms bypass
 * crossfade. Compiled without -ffast-math and without FMA contraction (the x86-64 baseline has
 * no FMA), it produces the same output as the Swift code bit for bit; with FMA contraction
 * (e.g. clang on arm64) they agree to ~1e-15 relative.
 * Used by tests and by the benchmark.
 */
#ifndef WAH_REF_H
#define WAH_REF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double heel_frequency;     /* Hz at pedal 0, default 450 */
    double toe_frequency;      /* Hz at pedal 1, default 2200 */
    double heel_q;             /* default 8 */
    double toe_q;              /* default 2 */
    double level_compensation; /* 0...1, default 1 */
    double output_gain;        /* linear, default 1 */
    double mix;                /* 0 dry ... 1 wet, default 1 */
    double smoothing_time;     /* seconds, default 0.015 */
    int bypass;                /* default 0 */
} wah_ref_settings;

typedef struct {
    /* derived constants */
    double angle_heel, angle_span;
    double k_heel, k_span;
    double wet_heel, wet_span;
    double dry_gain;
    double smoothing;
    double crossfade_step, crossfade_target;
    /* state */
    double s1, s2;
    double target, p1, p2;
    double crossfade;
    /* configuration */
    double sample_rate;
    wah_ref_settings settings;
} wah_ref_state;

/* Fills *s with the defaults above. */
void wah_ref_default_settings(wah_ref_settings *s);
/* Sets sample rate and settings (NULL = defaults), resets the state; pedal target 0. */
void wah_ref_prepare(wah_ref_state *st, double sample_rate, const wah_ref_settings *s);
/* Changes settings, keeping filter/pedal state (like assigning WahProcessor.settings). */
void wah_ref_update_settings(wah_ref_state *st, const wah_ref_settings *s);
/* Clears the filter; pedal jumps to its target, bypass crossfade to its end. */
void wah_ref_reset(wah_ref_state *st);
/* Pedal target 0...1; clamps; NaN ignored. */
void wah_ref_set_pedal(wah_ref_state *st, float target);
/* Current smoothed pedal. */
float wah_ref_pedal(const wah_ref_state *st);
/* Processes n samples; in == out allowed. */
void wah_ref_process(wah_ref_state *st, const float *in, float *out, int n);
/* Processes one sample (same operations as wah_ref_process). */
float wah_ref_process_sample(wah_ref_state *st, float x);

#ifdef __cplusplus
}
#endif

#endif
