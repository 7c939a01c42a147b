/* shim.h - the parts of libjack Swift needs, plus helpers for what Swift cannot import. */
#ifndef SENSORWAH_CJACK_SHIM_H
#define SENSORWAH_CJACK_SHIM_H

#include <jack/jack.h>
#include <jack/midiport.h>
#include <stddef.h>

/* jack_client_open is C-variadic (not importable). `server` NULL or "" = the default server
 * ($JACK_DEFAULT_SERVER or "default"). `no_start` adds JackNoStartServer. */
static inline jack_client_t *sw_jack_client_open(const char *name, int no_start, const char *server,
                                                 jack_status_t *status) {
    int options = JackNullOption;
    if (no_start) options |= JackNoStartServer;
    if (server && server[0]) {
        return jack_client_open(name, (jack_options_t)(options | JackServerName), status, server);
    }
    return jack_client_open(name, (jack_options_t)options, status);
}

/* Port flags as the unsigned long jack_port_register/jack_get_ports take. */
static inline unsigned long sw_jack_input_flags(void) { return (unsigned long)JackPortIsInput; }
static inline unsigned long sw_jack_output_flags(void) { return (unsigned long)JackPortIsOutput; }
static inline unsigned long sw_jack_physical_input_flags(void) {
    return (unsigned long)(JackPortIsPhysical | JackPortIsInput);
}
static inline unsigned long sw_jack_physical_output_flags(void) {
    return (unsigned long)(JackPortIsPhysical | JackPortIsOutput);
}
static inline const char *sw_jack_audio_type(void) { return JACK_DEFAULT_AUDIO_TYPE; }
static inline const char *sw_jack_midi_type(void) { return JACK_DEFAULT_MIDI_TYPE; }

#endif
