/* crybaby_ref.h - plain C reference of the crybaby voice of SensorWahCore's WahProcessor
 * (Sources/SensorWahCore/DSP/Crybaby.swift): the same equations, operation for operation, in the
 * same order (pedal smoother, laws recomputed when the smoothed pedal moved, input network,
 * TPT resonator and its two distortion copies, headroom limits, output coupling, the voice's
 * make-up gain (WahVoice.crybaby.makeUpGainDB), mix, bypass crossfade). Double state, float I/O. Used by the tests (agreement with Swift) and the
 * benchmark (Swift/C cost). Sensor mode only (no envelope follower).
 */
#ifndef CRYBABY_REF_H
#define CRYBABY_REF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /* derived constants */
    double pi_over_rate, input_g, output_g, input_ratio, high, band, low, wet_gain, dry_gain;
    double smoothing, crossfade_step, crossfade_target;
    /* state */
    double c0, c1, s1, s2, t1, t2, u1, u2;
    double target, p1, p2, crossfade;
} crybaby_ref_state;

/* Prepares for `sample_rate` with mix and output gain (1, 1 for the plain voice), smoothing time
 * (seconds; 0.015 as WahSettings), no bypass; pedal target 0; state cleared. */
void crybaby_ref_prepare(crybaby_ref_state *st, double sample_rate, double mix, double gain, double smoothing_time);
void crybaby_ref_set_pedal(crybaby_ref_state *st, float target);
void crybaby_ref_set_bypass(crybaby_ref_state *st, int bypass);
void crybaby_ref_process(crybaby_ref_state *st, const float *in, float *out, int n);

#ifdef __cplusplus
}
#endif

#endif
