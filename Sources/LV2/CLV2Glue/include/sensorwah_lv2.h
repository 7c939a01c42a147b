/* sensorwah_lv2.h - the LV2 side of sensorwah.lv2 (lv2_descriptor, ports, Atom MIDI). The DSP
 * is SensorWahCore's WahProcessor, reached through these functions (SensorWahLV2, Swift). */
#ifndef SENSORWAH_LV2_H
#define SENSORWAH_LV2_H
#include <stdint.h>

/* implemented in Swift (@_cdecl) */
void *sw_lv2_new(double sample_rate);
void sw_lv2_free(void *wah);
void sw_lv2_configure(void *wah, int32_t voice, int32_t mode, double heel_hz, double toe_hz, double heel_q,
                      double toe_q, double mix, int32_t bypass, double attack_ms, double release_ms,
                      double sensitivity);
void sw_lv2_set_pedal(void *wah, float pedal);
void sw_lv2_reset(void *wah);
void sw_lv2_process(void *wah, const float *in, float *out, uint32_t n);

/* the effect plugins: kind 0 fuzz, 1 tremolo, 2 phaser, 3 delay, 4 the whole chain; a control
 * is a parameter slot of the chain, in the parameter's units */
void *sw_fx_new(int32_t kind, double sample_rate);
void sw_fx_free(void *fx);
void sw_fx_set(void *fx, int32_t slot, float value);
void sw_fx_reset(void *fx);
void sw_fx_process(void *fx, float *buffer, uint32_t n);

/* for the symbol's presence in the library */
int sw_lv2_glue_version(void);
#endif
