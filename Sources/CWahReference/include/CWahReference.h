/* CWahReference: plain C references of the wah voices (tests and benchmarks). */
#include "wah_ref.h"
#include "crybaby_ref.h"
