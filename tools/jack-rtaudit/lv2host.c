/* lv2host.c - the real-time audit (rtaudit.c) inside an LV2 host, around the plugin's run().
 *
 * Built with rtaudit.c into one library (tools/jack-rtaudit/build --lv2) and LD_PRELOADed into
 * jalv (or any host that instantiates plugins through lilv) with SENSORWAH_RT_AUDIT=1 or
 * SENSORWAH_RT_AUDIT=canary. Nothing of it is in the plugin: the plugin bundle is the shipped one.
 *
 *  - lilv_plugin_instantiate is interposed: after the real one, the instance's descriptor is
 *    replaced by a copy whose run() is `audited_run`: sw_rtaudit_enter, the plugin's own run,
 *    sw_rtaudit_exit (lilv_instance_run is an inline call through instance->lv2_descriptor, so
 *    the host calls the copy). Only what happens inside the plugin's run() is counted; the host's
 *    own process callback around it is not.
 *  - The hooks are those of rtaudit.c. The plugin carries its own Swift runtime, linked
 *    statically with every symbol hidden, so its retain/release/allocation hooks are found in the
 *    plugin's ELF symbol table (sw_rtaudit_install_private); an unstripped build is needed.
 *    Interposition of swift_beginAccess/swift_once cannot reach a hidden runtime: those two
 *    counters stay at 0 here (a lazy global's first initialisation would still show as a
 *    malloc or lock).
 *  - Before the plugin runs, a self-test on a thread of its own does forbidden work between enter
 *    and exit (malloc/free, a mutex, a system call, a retain/release in the *plugin's* runtime);
 *    every counter concerned must move. Then the counters are zeroed.
 *  - jack_set_process_callback is interposed to count the host's JACK cycles beside the audited
 *    run() calls.
 *  - SENSORWAH_RT_AUDIT=canary: every audited run() also does one malloc/free pair, one system
 *    call and one retain/release in the plugin's runtime (negative control).
 *  - At exit, one line on stderr: `rt-audit: cycles=N callbacks=N malloc=0 ... selftest=ok
 *    syscall_dispatch=on install=ok`, then the first call sites of any non-zero counter.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lv2/core/lv2.h>

#define EXPORT __attribute__((visibility("default")))

/* rtaudit.c (the same library) */
void sw_rtaudit_enter(void);
void sw_rtaudit_enter_canary(void);
void sw_rtaudit_exit(void);
int sw_rtaudit_install_private(const void *anchor);
int sw_rtaudit_set_private_canary(const void *anchor);
void sw_rtaudit_reset(void);
int sw_rtaudit_counter_count(void);
const char *sw_rtaudit_counter_name(int i);
uint64_t sw_rtaudit_counter(int i);
uintptr_t sw_rtaudit_site(int counter, int i);
long sw_rtaudit_syscall_number(int i);
int sw_rtaudit_sud_status(void);

/* lilv.h's public instance (stable since lilv 0.4): the host runs the plugin through it */
typedef struct {
    const LV2_Descriptor *lv2_descriptor;
    LV2_Handle lv2_handle;
    void *pimpl;
} LilvInstanceImpl;

static int mode; /* 0 off, 1 audit, 2 canary */
static LV2_Descriptor wrapped;
static void (*plugin_run)(LV2_Handle, uint32_t);
static const char *install_status = "not-instantiated";
static const char *self_test = "not-run";
static _Atomic uint64_t cycles;

static void audited_run(LV2_Handle h, uint32_t n) {
    if (mode == 2) sw_rtaudit_enter_canary(); else sw_rtaudit_enter();
    plugin_run(h, n);
    sw_rtaudit_exit();
}

static int counter_index(const char *name) {
    for (int i = 0; i < sw_rtaudit_counter_count(); i++)
        if (!strcmp(sw_rtaudit_counter_name(i), name)) return i;
    return -1;
}

/* Negative control on a thread of its own (not the JACK thread, which must count 1 thread). */
static void *self_test_thread(void *arg) {
    (void)arg;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    sw_rtaudit_enter_canary(); /* malloc/free, getppid, retain/release in the plugin's runtime */
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    sw_rtaudit_exit();
    return NULL;
}

static void run_self_test(void) {
    static char missed[128];
    pthread_t t;
    if (pthread_create(&t, NULL, self_test_thread, NULL) != 0) { self_test = "FAILED(no-thread)"; return; }
    pthread_join(t, NULL);
    const char *wanted[] = {"malloc", "free", "lock", "syscalls", "retain", "release"};
    missed[0] = 0;
    for (size_t k = 0; k < sizeof wanted / sizeof *wanted; k++) {
        int i = counter_index(wanted[k]);
        if (i < 0 || sw_rtaudit_counter(i) == 0) {
            strncat(missed, missed[0] ? "," : "FAILED(not-seen:", sizeof missed - strlen(missed) - 1);
            strncat(missed, wanted[k], sizeof missed - strlen(missed) - 1);
        }
    }
    if (missed[0]) {
        strncat(missed, ")", sizeof missed - strlen(missed) - 1);
        self_test = missed;
    } else {
        self_test = "ok";
    }
    sw_rtaudit_reset();
}

typedef void *(*instantiate_fn)(const void *, double, const LV2_Feature *const *);

EXPORT void *lilv_plugin_instantiate(const void *plugin, double rate, const LV2_Feature *const *features) {
    static instantiate_fn real;
    if (!real) real = (instantiate_fn)dlsym(RTLD_NEXT, "lilv_plugin_instantiate");
    LilvInstanceImpl *instance = real ? real(plugin, rate, features) : NULL;
    const char *env = getenv("SENSORWAH_RT_AUDIT");
    if (!instance || !env || !*env || !strcmp(env, "0") || plugin_run) return instance;
    mode = strcmp(env, "canary") ? 1 : 2;
    const void *anchor = (const void *)instance->lv2_descriptor->run;
    int r = sw_rtaudit_install_private(anchor);
    install_status = r == 0 ? "ok" : r == -1 ? "no-swift-hooks-in-plugin" : r == -2 ? "no-sigsys" : "no-retain-adapter";
    if (sw_rtaudit_set_private_canary(anchor) != 0 && r == 0) install_status = "no-canary-object";
    run_self_test();
    wrapped = *instance->lv2_descriptor;
    plugin_run = wrapped.run;
    wrapped.run = audited_run;
    instance->lv2_descriptor = &wrapped;
    return instance;
}

/* The host's JACK cycles, to compare with the audited run() calls. */
typedef int (*process_fn)(uint32_t, void *);
static process_fn host_process;
static void *host_arg;
static int counting_process(uint32_t n, void *arg) {
    atomic_fetch_add_explicit(&cycles, 1, memory_order_relaxed);
    return host_process(n, arg);
}
EXPORT int jack_set_process_callback(void *client, process_fn cb, void *arg) {
    static int (*real)(void *, process_fn, void *);
    if (!real) real = (int (*)(void *, process_fn, void *))dlsym(RTLD_NEXT, "jack_set_process_callback");
    if (!real) return -1;
    host_process = cb;
    host_arg = arg;
    return real(client, cb ? counting_process : NULL, arg);
}

static void describe(uintptr_t addr, char *buf, size_t len) {
    Dl_info info;
    if (dladdr((void *)addr, &info) && info.dli_fname) {
        /* the plugin's symbols are hidden: give the offset in its file (addr2line -f -e FILE OFF) */
        unsigned long offset = (unsigned long)(addr - (uintptr_t)info.dli_fbase);
        if (info.dli_sname)
            snprintf(buf, len, "%s+0x%lx (%s+0x%lx)", info.dli_sname, (unsigned long)(addr - (uintptr_t)info.dli_saddr),
                     info.dli_fname, offset);
        else
            snprintf(buf, len, "%s+0x%lx", info.dli_fname, offset);
    } else {
        snprintf(buf, len, "0x%lx", (unsigned long)addr);
    }
}

__attribute__((destructor)) static void report(void) {
    if (!mode) return;
    int sud = sw_rtaudit_sud_status();
    fprintf(stderr, "rt-audit: cycles=%llu", (unsigned long long)atomic_load(&cycles));
    for (int i = 0; i < sw_rtaudit_counter_count(); i++)
        fprintf(stderr, " %s=%llu", sw_rtaudit_counter_name(i), (unsigned long long)sw_rtaudit_counter(i));
    fprintf(stderr, " selftest=%s install=%s syscall_dispatch=", self_test, install_status);
    if (sud == 0) fprintf(stderr, "on\n");
    else if (sud == -1) fprintf(stderr, "not-started\n");
    else fprintf(stderr, "unavailable(errno %d)\n", sud);
    for (int i = 0; i < sw_rtaudit_counter_count(); i++) {
        const char *name = sw_rtaudit_counter_name(i);
        if (!sw_rtaudit_counter(i) || !strcmp(name, "callbacks") || !strcmp(name, "threads")) continue;
        fprintf(stderr, "rt-audit:   %s:", name);
        for (int k = 0; k < 4; k++) {
            char buf[512];
            uintptr_t a = sw_rtaudit_site(i, k);
            if (!a) continue;
            describe(a, buf, sizeof buf);
            fprintf(stderr, " %s;", buf);
        }
        if (!strcmp(name, "syscalls")) {
            fprintf(stderr, " numbers");
            for (int k = 0; k < 16; k++) {
                long s = sw_rtaudit_syscall_number(k);
                if (s >= 0) fprintf(stderr, " %ld", s);
            }
        }
        fprintf(stderr, "\n");
    }
    fflush(stderr);
}
