/* shim.h - libsndfile for Swift. */
#ifndef SENSORWAH_CSNDFILE_SHIM_H
#define SENSORWAH_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
