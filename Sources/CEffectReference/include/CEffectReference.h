/* CEffectReference: plain C references of the effect chain's fuzz, tremolo, phaser and delay
 * (Sources/SensorWahCore/DSP/Effects): the same equations, operation for operation, in the same
 * order, double state and float I/O, compiled -O2 without FMA contraction. The wah's reference is
 * CWahReference. Used by the tests (agreement with Swift) and by EffectBenchmarks (Swift/C cost).
 *
 * Each effect: *_init(state, sample_rate, parameters...) sets everything (the delay allocates
 * its line: free it with delay_ref_free), *_set(state, index, value) takes a parameter already
 * clamped to its range (indices as in EffectKind.parameters: 0 is bypass), *_process runs n
 * samples in place.
 */
#ifndef C_EFFECT_REFERENCE_H
#define C_EFFECT_REFERENCE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { double current, target, coefficient; } fx_smoother;
typedef struct { double position, target, step; } fx_fade;

/* fuzz: 8x polyphase oversampling around tanh(g x + b) - tanh(b) */
typedef struct {
    float up[256];      /* 8 phases x 32 taps, x8 gain */
    float down[256];
    float xh[64];       /* input history, doubled ring of 32 */
    float sh[512];      /* 8x history, doubled ring of 256 */
    int xi, si;
    fx_smoother drive, tone, level;
    fx_fade fade;
    double dc_in, dc_out, dc_pole, low_pass, tone_floor, gain_span, bias_offset;
} fuzz_ref_state;
void fuzz_ref_init(fuzz_ref_state *st, double sample_rate, double drive, double tone, double level);
void fuzz_ref_set(fuzz_ref_state *st, int parameter, double value);
void fuzz_ref_process(fuzz_ref_state *st, float *buffer, int n);
/* The 256 taps both filters use (tests compare them with FuzzEffect.design()). */
void fuzz_ref_design(double *h);

typedef struct {
    double inverse_rate;
    fx_smoother hz, depth;
    fx_fade fade;
    double free_rate, bpm, phase, shaped, edge;
    int shape, sync, settling, settle_length;
} tremolo_ref_state;
void tremolo_ref_init(tremolo_ref_state *st, double sample_rate, double rate, double depth, int shape);
void tremolo_ref_set(tremolo_ref_state *st, int parameter, double value);
void tremolo_ref_process(tremolo_ref_state *st, float *buffer, int n);

typedef struct {
    fx_smoother rate, depth, feedback;
    fx_fade fade;
    double phase, inverse_rate, centre_angle, count_fade, count_step, last;
    int stage_count, previous_count;
    double states[12];
} phaser_ref_state;
void phaser_ref_init(phaser_ref_state *st, double sample_rate, double rate, double depth, int stages, double feedback);
void phaser_ref_set(phaser_ref_state *st, int parameter, double value);
void phaser_ref_process(phaser_ref_state *st, float *buffer, int n);

typedef struct {
    float *line;
    int mask, write, sync;
    double sample_rate, delay, delay_target, glide, free_time, bpm, damped, tone_floor;
    fx_smoother feedback, mix, tone;
    fx_fade fade;
} delay_ref_state;
void delay_ref_init(delay_ref_state *st, double sample_rate, double time, double feedback, double mix, double tone);
void delay_ref_set(delay_ref_state *st, int parameter, double value);
void delay_ref_process(delay_ref_state *st, float *buffer, int n);
void delay_ref_free(delay_ref_state *st);

#ifdef __cplusplus
}
#endif

#endif
