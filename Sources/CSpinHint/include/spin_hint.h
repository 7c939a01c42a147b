#ifndef SENSORWAH_SPIN_HINT_H
#define SENSORWAH_SPIN_HINT_H
/* What the output thread's short busy wait needs that Swift cannot reach: the CPU's "I am
   spinning" hint (x86 PAUSE, Arm YIELD; Swift has no inline assembly) and the CPU a thread runs
   on (sched_getcpu is a GNU extension, hidden from Swift's Glibc module). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

static inline void sensorwah_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/* The CPU the calling thread runs on, or -1 where that cannot be known. */
static inline int sensorwah_current_cpu(void) {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}
#endif
