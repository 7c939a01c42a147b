/* Header-only: sensorwah_spin_pause() is static inline in include/spin_hint.h. */
#include "spin_hint.h"
