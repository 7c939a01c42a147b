/* rtaudit.c - counts what a real-time thread does between sw_rtaudit_enter() and sw_rtaudit_exit().
 *
 * Build (tools/jack-rtaudit/build) as a shared library and LD_PRELOAD it into the *release*
 * sensorwah with SENSORWAH_RT_AUDIT=1: the JACK engine then calls sw_rtaudit_enter/exit around
 * the whole of every process callback (through plain C function pointers) and prints the
 * counters at exit. Counting happens only on a thread between enter and exit, so every other
 * thread (network, pipeline, JACK's own notification thread) may allocate freely.
 *
 * Three independent mechanisms:
 *  1. Interposed libc functions (this library comes first in symbol lookup): malloc, calloc,
 *     realloc, free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc; pthread mutex,
 *     rwlock, spinlock, condition variable and POSIX semaphore operations; a set of I/O and
 *     sleeping wrappers. Calls that stay inside one library (glibc calling itself) are not seen.
 *  2. The Swift runtime's own instrumentation hooks (enabled through
 *     _swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly): the function
 *     pointers _swift_release, _swift_retain_n, _swift_release_n, _swift_tryRetain and
 *     _swift_allocObject, and for swift_retain the runtime's private `_swift_retain_adapter`
 *     pointer (found in libswiftCore's ELF symbol table): the public `_swift_retain` hook is
 *     reached through an adapter that masks the object pointer, which turns a tagged non-pointer
 *     (a small String's bridge object) into a bogus pointer and crashes on Linux. Hooked at that
 *     level, every strong retain/release and object allocation is seen, wherever in the process
 *     it comes from (inlined code, the standard library, the runtime itself). Also interposed:
 *     swift_beginAccess (dynamic exclusivity checks) and swift_once (lazy globals).
 *     A Swift runtime linked statically into a shared object with its symbols hidden (the LV2
 *     plugin) has the same hook pointers, local: sw_rtaudit_install_private finds them in that
 *     object's ELF symbol table (lv2host.c); its swift_beginAccess/swift_once cannot be interposed.
 *  3. System calls, counted by the kernel: Syscall User Dispatch (Linux >= 5.11,
 *     prctl(PR_SET_SYSCALL_USER_DISPATCH)). During the audited region the thread's selector byte
 *     is BLOCK, so *any* system call instruction executed by that thread outside this library's
 *     small trampoline - from Swift, libjack, libc internals or inline assembly - raises SIGSYS;
 *     the handler counts it, records its number and performs it on the thread's behalf (so
 *     behaviour is unchanged). vDSO functions (clock_gettime with a TSC clock source) are not
 *     system calls and are not counted. Asynchronous signals are blocked on the audited thread
 *     (a foreign signal handler's rt_sigreturn would otherwise be trapped too).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <poll.h>
#include <time.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#define SYSCALL_DISPATCH_FILTER_ALLOW 0
#define SYSCALL_DISPATCH_FILTER_BLOCK 1
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2 /* si_code of a SIGSYS raised by syscall user dispatch */
#endif

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

enum {
    C_CALLBACKS, C_MALLOC, C_FREE, C_LOCK, C_CONDVAR, C_SEMAPHORE, C_LIBC_IO, C_SYSCALL,
    C_RETAIN, C_RELEASE, C_SWIFT_ALLOC, C_SWIFT_ACCESS, C_SWIFT_ONCE, C_THREADS, C_COUNT
};
static const char *const counter_names[C_COUNT] = {
    "callbacks", "malloc", "free", "lock", "condvar", "semaphore", "libc_io", "syscalls",
    "retain", "release", "swift_alloc", "swift_access", "swift_once", "threads",
};

static _Atomic uint64_t counters[C_COUNT];
#define SITES 4
static _Atomic uintptr_t sites[C_COUNT][SITES];
#define SYSNRS 16
static _Atomic long syscall_numbers[SYSNRS];
static _Atomic int sud_status = -1; /* -1 never tried, 0 ok, else errno */
static _Atomic int installed;
static _Atomic int sigsys_ready;

static TLS int active;
static TLS volatile char selector; /* SYSCALL_DISPATCH_FILTER_ALLOW (0) or BLOCK (1) */
static TLS int thread_ready;

static inline void note(int c, const void *site) {
    uint64_t n = atomic_fetch_add_explicit(&counters[c], 1, memory_order_relaxed);
    if (n < SITES) atomic_store_explicit(&sites[c][n], (uintptr_t)site, memory_order_relaxed);
}
#define COUNT(c) do { if (__builtin_expect(active, 0)) note((c), __builtin_return_address(0)); } while (0)

/* ---- system-call trampoline: the only code allowed to make system calls while BLOCK ---- */

long sw_raw_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
void sw_restore_rt(void);
extern char sw_sud_begin[], sw_sud_end[];
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl sw_sud_begin\n.hidden sw_sud_begin\n"
    ".globl sw_raw_syscall6\n.hidden sw_raw_syscall6\n.type sw_raw_syscall6,@function\n"
    ".globl sw_restore_rt\n.hidden sw_restore_rt\n.type sw_restore_rt,@function\n"
    ".globl sw_sud_end\n.hidden sw_sud_end\n"
    "sw_sud_begin:\n"
    "sw_raw_syscall6:\n"
    "  mov %rdi, %rax\n"
    "  mov %rsi, %rdi\n"
    "  mov %rdx, %rsi\n"
    "  mov %rcx, %rdx\n"
    "  mov %r8, %r10\n"
    "  mov %r9, %r8\n"
    "  mov 8(%rsp), %r9\n"
    "  syscall\n"
    "  ret\n"
    "sw_restore_rt:\n"
    "  mov $15, %rax\n" /* rt_sigreturn */
    "  syscall\n"
    "  hlt\n"
    "sw_sud_end:\n");

static void sigsys_handler(int sig, siginfo_t *info, void *ucv) {
    (void)sig;
    ucontext_t *uc = (ucontext_t *)ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    if (info->si_code != SYS_USER_DISPATCH) return;
    long nr = info->si_syscall;
    uint64_t n = atomic_fetch_add_explicit(&counters[C_SYSCALL], 1, memory_order_relaxed);
    if (n < SITES) atomic_store_explicit(&sites[C_SYSCALL][n], (uintptr_t)info->si_call_addr, memory_order_relaxed);
    for (int i = 0; i < SYSNRS; i++) {
        long expected = -1;
        long cur = atomic_load_explicit(&syscall_numbers[i], memory_order_relaxed);
        if (cur == nr) break;
        if (cur == -1 && atomic_compare_exchange_strong(&syscall_numbers[i], &expected, nr)) break;
    }
    /* perform it on the thread's behalf, from the allowed trampoline */
    g[REG_RAX] = sw_raw_syscall6(nr, g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9]);
}

struct kernel_sigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

static int install_sigsys(void) {
    struct kernel_sigaction k;
    memset(&k, 0, sizeof k);
    k.handler = (void *)sigsys_handler;
    k.flags = SA_SIGINFO | SA_RESTORER | SA_NODEFER;
    k.restorer = (void *)sw_restore_rt; /* sigreturn from inside the allowed range */
    k.mask = 0;
    long r = sw_raw_syscall6(SYS_rt_sigaction, SIGSYS, (long)&k, 0, 8, 0, 0);
    return r == 0 ? 0 : (int)-r;
}

/* First enter on a thread: block asynchronous signals there, switch on syscall user dispatch. */
static void prepare_thread(void) {
    thread_ready = 1;
    note(C_THREADS, NULL);
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGSYS);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    selector = SYSCALL_DISPATCH_FILTER_ALLOW;
    if (!atomic_load(&sigsys_ready)) { atomic_store(&sud_status, ENOSYS); return; }
    int r = prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, (unsigned long)sw_sud_begin,
                  (unsigned long)(sw_sud_end - sw_sud_begin), (unsigned long)&selector);
    atomic_store(&sud_status, r == 0 ? 0 : errno);
}

EXPORT void sw_rtaudit_enter(void) {
    if (__builtin_expect(!thread_ready, 0)) prepare_thread();
    atomic_fetch_add_explicit(&counters[C_CALLBACKS], 1, memory_order_relaxed);
    active = 1;
    atomic_signal_fence(memory_order_seq_cst);
    selector = SYSCALL_DISPATCH_FILTER_BLOCK;
    atomic_signal_fence(memory_order_seq_cst);
}

EXPORT void sw_rtaudit_exit(void) {
    atomic_signal_fence(memory_order_seq_cst);
    selector = SYSCALL_DISPATCH_FILTER_ALLOW;
    atomic_signal_fence(memory_order_seq_cst);
    active = 0;
}

/* Negative control (SENSORWAH_RT_AUDIT=canary): the same as sw_rtaudit_enter, then, inside the
 * audited region of every callback, one malloc/free pair, one system call through libc and, if
 * a Swift object was registered, one swift_retain/swift_release pair. Every counter concerned
 * must then read (at least) the number of callbacks. */
static void *canary_object;
static void *(*canary_swift_retain)(void *);
static void (*canary_swift_release)(void *);
EXPORT void sw_rtaudit_set_canary_object(void *o) {
    canary_swift_retain = (void *(*)(void *))dlsym(RTLD_DEFAULT, "swift_retain");
    canary_swift_release = (void (*)(void *))dlsym(RTLD_DEFAULT, "swift_release");
    canary_object = o;
}
EXPORT void sw_rtaudit_enter_canary(void) {
    sw_rtaudit_enter();
    void *(*volatile m)(size_t) = malloc;
    void (*volatile f)(void *) = free;
    f(m(16));
    (void)getppid();
    if (canary_object && canary_swift_retain && canary_swift_release) {
        canary_swift_retain(canary_object);
        canary_swift_release(canary_object);
    }
}

/* ---- Swift runtime hooks ---- */

typedef void *(*retain_fn)(void *);
typedef void (*release_fn)(void *);
typedef void *(*retain_n_fn)(void *, uint32_t);
typedef void (*release_n_fn)(void *, uint32_t);
typedef void *(*alloc_fn)(void *, size_t, size_t);
static retain_fn orig_retain, orig_try_retain;
static release_fn orig_release;
static retain_n_fn orig_retain_n;
static release_n_fn orig_release_n;
static alloc_fn orig_alloc;

static void *hook_retain(void *o) { COUNT(C_RETAIN); return orig_retain(o); }
static void *hook_try_retain(void *o) { COUNT(C_RETAIN); return orig_try_retain(o); }
static void hook_release(void *o) { COUNT(C_RELEASE); orig_release(o); }
static void *hook_retain_n(void *o, uint32_t n) { COUNT(C_RETAIN); return orig_retain_n(o, n); }
static void hook_release_n(void *o, uint32_t n) { COUNT(C_RELEASE); orig_release_n(o, n); }
static void *hook_alloc(void *md, size_t size, size_t align) { COUNT(C_SWIFT_ALLOC); return orig_alloc(md, size, align); }

/* Address of a local (non-exported) symbol of the shared object containing `anchor`, from the
 * ELF .symtab of its file. 0 if not found (stripped library). */
static uintptr_t private_symbol(const void *anchor, const char *name) {
    Dl_info info;
    if (!dladdr(anchor, &info) || !info.dli_fname) return 0;
    int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    uintptr_t result = 0;
    if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr)) {
        const unsigned char *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (base != MAP_FAILED) {
            const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
            if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
                eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= (size_t)st.st_size) {
                const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
                for (int i = 0; i < eh->e_shnum && !result; i++) {
                    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
                    const Elf64_Sym *syms = (const Elf64_Sym *)(base + sh[i].sh_offset);
                    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
                    const char *strtab = (const char *)(base + sh[sh[i].sh_link].sh_offset);
                    size_t strsize = sh[sh[i].sh_link].sh_size;
                    for (size_t k = 0; k < n; k++) {
                        if (syms[k].st_name >= strsize) continue;
                        if (strcmp(strtab + syms[k].st_name, name) == 0 && syms[k].st_value) {
                            result = (uintptr_t)info.dli_fbase + syms[k].st_value;
                            break;
                        }
                    }
                }
            }
            munmap((void *)base, (size_t)st.st_size);
        }
    }
    close(fd);
    return result;
}

/* swift_retain, swizzled, jumps through this pointer with the object unmasked */
static void *hook_retain_adapter(void *o) { COUNT(C_RETAIN); return orig_retain(o); }

/* A symbol of the Swift runtime: exported (dlsym), or, with an anchor, private to the shared object
 * holding the anchor (a runtime linked statically into a plugin whose symbols are hidden). */
static void *runtime_symbol(const void *anchor, const char *name) {
    return anchor ? (void *)private_symbol(anchor, name) : dlsym(RTLD_DEFAULT, name);
}

/* Installs the SIGSYS handler and the hooks of the Swift runtime: the process's libswiftCore
 * (anchor NULL) or the one linked statically into the shared object holding `anchor`. Returns 0
 * when all is in place, -1 when the Swift runtime hooks are missing (not a Swift process, or a
 * stripped plugin), -2 when SIGSYS cannot be handled, -3 when the private retain adapter is not in
 * the runtime's symbol table. */
static int install(const void *anchor) {
    if (atomic_exchange(&installed, 1)) return 0;
    if (install_sigsys() != 0) return -2;
    atomic_store(&sigsys_ready, 1);
    void **p_retain = runtime_symbol(anchor, "_swift_retain");
    void **p_adapter = p_retain ? (void **)private_symbol(p_retain, "_ZL21_swift_retain_adapter") : NULL;
    void **p_release = runtime_symbol(anchor, "_swift_release");
    void **p_retain_n = runtime_symbol(anchor, "_swift_retain_n");
    void **p_release_n = runtime_symbol(anchor, "_swift_release_n");
    void **p_try = runtime_symbol(anchor, "_swift_tryRetain");
    void **p_alloc = runtime_symbol(anchor, "_swift_allocObject");
    bool *enable = runtime_symbol(anchor, "_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly");
    if (!p_retain || !p_release || !enable) return -1;
    /* libswiftCore has them all; a runtime linked into a plugin keeps only the entry points the
     * plugin uses (the linker drops the rest with their hook pointers) */
    if (!anchor && (!p_retain_n || !p_release_n || !p_try || !p_alloc)) return -1;
    if (!p_adapter) return -3;
    orig_retain = (retain_fn)*p_retain;
    orig_release = (release_fn)*p_release;
    (void)hook_retain;                 /* _swift_retain itself stays: it is reached only through the adapter */
    *p_adapter = (void *)hook_retain_adapter;
    *p_release = (void *)hook_release;
    if (p_retain_n) { orig_retain_n = (retain_n_fn)*p_retain_n; *p_retain_n = (void *)hook_retain_n; }
    if (p_release_n) { orig_release_n = (release_n_fn)*p_release_n; *p_release_n = (void *)hook_release_n; }
    if (p_try) { orig_try_retain = (retain_fn)*p_try; *p_try = (void *)hook_try_retain; }
    if (p_alloc) { orig_alloc = (alloc_fn)*p_alloc; *p_alloc = (void *)hook_alloc; }
    atomic_thread_fence(memory_order_seq_cst);
    *enable = true;
    return 0;
}

EXPORT int sw_rtaudit_install(void) { return install(NULL); }

/* The same for a Swift runtime linked statically into the shared object holding `anchor` (an LV2
 * plugin): its hooks are found in the object's ELF symbol table. */
EXPORT int sw_rtaudit_install_private(const void *anchor) { return install(anchor); }

/* The canary's Swift object, retain and release from the runtime linked into the shared object
 * holding `anchor`: the runtime's own empty-array singleton (immortal; retaining it changes
 * nothing, but every retain still passes the hooks). 0 when found. */
EXPORT int sw_rtaudit_set_private_canary(const void *anchor) {
    void *object = (void *)private_symbol(anchor, "_swiftEmptyArrayStorage");
    canary_swift_retain = (void *(*)(void *))private_symbol(anchor, "swift_retain");
    canary_swift_release = (void (*)(void *))private_symbol(anchor, "swift_release");
    if (!object || !canary_swift_retain || !canary_swift_release) return -1;
    canary_object = object;
    return 0;
}

/* Zeroes every counter and call site (after a self-test). */
EXPORT void sw_rtaudit_reset(void) {
    for (int i = 0; i < C_COUNT; i++) {
        atomic_store(&counters[i], 0);
        for (int k = 0; k < SITES; k++) atomic_store(&sites[i][k], 0);
    }
    for (int i = 0; i < SYSNRS; i++) atomic_store(&syscall_numbers[i], -1);
}

EXPORT int sw_rtaudit_counter_count(void) { return C_COUNT; }
EXPORT const char *sw_rtaudit_counter_name(int i) { return (i >= 0 && i < C_COUNT) ? counter_names[i] : ""; }
EXPORT uint64_t sw_rtaudit_counter(int i) {
    return (i >= 0 && i < C_COUNT) ? atomic_load(&counters[i]) : 0;
}
EXPORT uintptr_t sw_rtaudit_site(int counter, int i) {
    return (counter >= 0 && counter < C_COUNT && i >= 0 && i < SITES) ? atomic_load(&sites[counter][i]) : 0;
}
EXPORT long sw_rtaudit_syscall_number(int i) {
    return (i >= 0 && i < SYSNRS) ? atomic_load(&syscall_numbers[i]) : -1;
}
/* Writes "symbol+offset (library)" for a code address into buf. */
EXPORT void sw_rtaudit_describe(uintptr_t addr, char *buf, int len) {
    Dl_info info;
    if (len <= 0) return;
    if (dladdr((void *)addr, &info) && info.dli_sname) {
        snprintf(buf, (size_t)len, "%s+%lu (%s)", info.dli_sname, (unsigned long)(addr - (uintptr_t)info.dli_saddr),
                 info.dli_fname ? info.dli_fname : "?");
    } else if (dladdr((void *)addr, &info) && info.dli_fname) {
        snprintf(buf, (size_t)len, "%s+0x%lx", info.dli_fname, (unsigned long)(addr - (uintptr_t)info.dli_fbase));
    } else {
        snprintf(buf, (size_t)len, "0x%lx", (unsigned long)addr);
    }
}

/* 0: syscall user dispatch active; -1: no audited thread yet; else the prctl errno. */
EXPORT int sw_rtaudit_sud_status(void) { return atomic_load(&sud_status); }

__attribute__((constructor)) static void rtaudit_init(void) {
    for (int i = 0; i < SYSNRS; i++) atomic_store(&syscall_numbers[i], -1);
}

/* ---- interposed libc ---- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

EXPORT void *malloc(size_t n) { COUNT(C_MALLOC); return __libc_malloc(n); }
EXPORT void *calloc(size_t a, size_t b) { COUNT(C_MALLOC); return __libc_calloc(a, b); }
EXPORT void *realloc(void *p, size_t n) { COUNT(C_MALLOC); return __libc_realloc(p, n); }
EXPORT void free(void *p) { if (p) COUNT(C_FREE); __libc_free(p); }
EXPORT void *memalign(size_t a, size_t n) { COUNT(C_MALLOC); return __libc_memalign(a, n); }
EXPORT void *aligned_alloc(size_t a, size_t n) { COUNT(C_MALLOC); return __libc_memalign(a, n); }
EXPORT void *valloc(size_t n) { COUNT(C_MALLOC); return __libc_valloc(n); }
EXPORT void *pvalloc(size_t n) { COUNT(C_MALLOC); return __libc_pvalloc(n); }
EXPORT int posix_memalign(void **out, size_t a, size_t n) {
    COUNT(C_MALLOC);
    if (a < sizeof(void *) || (a & (a - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

/* Wrapped functions forward to the next definition (libc), resolved on first use. */
#define FORWARD(ret, name, counter, params, args)                              \
    EXPORT ret name params {                                                   \
        COUNT(counter);                                                        \
        static ret(*real) params;                                              \
        if (__builtin_expect(!real, 0)) real = (ret(*) params)dlsym(RTLD_NEXT, #name); \
        return real args;                                                      \
    }

FORWARD(int, pthread_mutex_lock, C_LOCK, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_trylock, C_LOCK, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_timedlock, C_LOCK, (pthread_mutex_t *m, const struct timespec *t), (m, t))
FORWARD(int, pthread_mutex_unlock, C_LOCK, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_rwlock_rdlock, C_LOCK, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_wrlock, C_LOCK, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_tryrdlock, C_LOCK, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_trywrlock, C_LOCK, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_unlock, C_LOCK, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_spin_lock, C_LOCK, (pthread_spinlock_t *l), (l))
FORWARD(int, pthread_spin_trylock, C_LOCK, (pthread_spinlock_t *l), (l))
FORWARD(int, pthread_once, C_LOCK, (pthread_once_t *o, void (*f)(void)), (o, f))
FORWARD(int, pthread_cond_wait, C_CONDVAR, (pthread_cond_t *c, pthread_mutex_t *m), (c, m))
FORWARD(int, pthread_cond_timedwait, C_CONDVAR, (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t), (c, m, t))
FORWARD(int, pthread_cond_signal, C_CONDVAR, (pthread_cond_t *c), (c))
FORWARD(int, pthread_cond_broadcast, C_CONDVAR, (pthread_cond_t *c), (c))
FORWARD(int, sem_wait, C_SEMAPHORE, (sem_t *s), (s))
FORWARD(int, sem_trywait, C_SEMAPHORE, (sem_t *s), (s))
FORWARD(int, sem_timedwait, C_SEMAPHORE, (sem_t *s, const struct timespec *t), (s, t))
FORWARD(int, sem_post, C_SEMAPHORE, (sem_t *s), (s))
FORWARD(ssize_t, write, C_LIBC_IO, (int fd, const void *b, size_t n), (fd, b, n))
FORWARD(ssize_t, read, C_LIBC_IO, (int fd, void *b, size_t n), (fd, b, n))
FORWARD(int, poll, C_LIBC_IO, (struct pollfd *f, nfds_t n, int t), (f, n, t))
FORWARD(int, nanosleep, C_LIBC_IO, (const struct timespec *a, struct timespec *b), (a, b))
FORWARD(int, clock_nanosleep, C_LIBC_IO, (clockid_t c, int f, const struct timespec *a, struct timespec *b), (c, f, a, b))
FORWARD(int, usleep, C_LIBC_IO, (useconds_t u), (u))
FORWARD(int, sched_yield, C_LIBC_IO, (void), ())

/* swift runtime entry points with the C calling convention */
#define FORWARD_VOID(name, counter, params, args)                              \
    EXPORT void name params {                                                  \
        COUNT(counter);                                                        \
        static void(*real) params;                                             \
        if (__builtin_expect(!real, 0)) real = (void(*) params)dlsym(RTLD_NEXT, #name); \
        real args;                                                             \
    }
FORWARD_VOID(swift_beginAccess, C_SWIFT_ACCESS, (void *p, void *buf, uintptr_t flags, void *pc), (p, buf, flags, pc))
FORWARD_VOID(swift_once, C_SWIFT_ONCE, (void *pred, void (*fn)(void *), void *ctx), (pred, fn, ctx))
