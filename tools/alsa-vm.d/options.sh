# tools/alsa-vm.d/options.sh: defaults from the environment, usage text and the
# command-line parser (sourced by tools/alsa-vm).
# shellcheck shell=bash

DEBUG=${ALSA_VM_DEBUG:-0}
TIMING=${ALSA_VM_TIMING:-$DEBUG}
TIMEOUT=${ALSA_VM_TIMEOUT:-120}
MEM=${ALSA_VM_MEM:-1024}
SMP=${ALSA_VM_SMP:-1}
EXTRA_MODULES=${ALSA_VM_MODULES:-}

# Modules always loaded, in this order (dependencies are added automatically).
BASE_MODULES="virtio_pci 9pnet_virtio 9p overlay snd-hrtimer snd-seq snd-seq-dummy"
# Modules also put into the initramfs so that --modules can load them.
OPTIONAL_MODULES="snd-seq-midi-event snd-rawmidi snd-seq-virmidi snd-virmidi snd-dummy snd-aloop snd-seq-midi"

# The text of --help (also printed, to stderr, after a usage error).
usage() {
    cat <<'EOF'
Usage: tools/alsa-vm [OPTIONS] -- COMMAND [ARGS...]
       tools/alsa-vm --setup-only

Boots a throw-away qemu guest (Debian's kernel, TCG, ~4 s to the command) with a
real ALSA sequencer and runs COMMAND in it as root through `sh -c`, in the same
current directory as on the host. The host's / is visible read-only at the same
paths, with a tmpfs overlay on top (writes go nowhere). A single COMMAND word is
taken as a shell script (`tools/alsa-vm -- 'a | b; c'`); several words are quoted
and run as one command (`tools/alsa-vm -- aconnect -l`).

COMMAND's stdout and stderr come out on the host's stdout and stderr, and
alsa-vm exits with COMMAND's exit status. Guest stdin is /dev/null.

Options:
  --timeout SECONDS  limit for the whole run, boot included (default 120)
  --out DIR          share host DIR (created if missing) writable into the guest
                     at the same path; the guest's $ALSA_VM_OUT names it. Without
                     --out, $ALSA_VM_OUT is a scratch directory thrown away.
  -e, --env NAME[=VALUE]
                     set NAME in the guest (from the host's value if no =VALUE)
  --modules LIST     extra kernel modules to load (comma/space separated), e.g.
                     snd-virmidi; available: snd-seq-midi-event snd-rawmidi
                     snd-seq-virmidi snd-virmidi snd-dummy snd-aloop snd-seq-midi
  --host-tmp         keep the host's /tmp visible (copy-on-write) instead of a
                     fresh empty tmpfs; automatic when the cwd is under /tmp
  --setup-only       install packages, download and build the cache, exit 0
  -h, --help         this text

Guest environment: PATH (host's, plus sbin dirs), HOME=/root, USER=root,
LANG, TZ, CI if set on the host, TMPDIR=/tmp, ALSA_VM=1, ALSA_VM_OUT.
Guest mounts: proc, sysfs, devtmpfs (/dev/snd/seq), /dev/pts, /dev/shm, /tmp
and /run (tmpfs). Loaded: snd-seq, snd-seq-dummy ("Midi Through"), snd-hrtimer.

Exit status: COMMAND's status; 124 if the time limit ran out while COMMAND ran;
125 for alsa-vm's own failures (bad usage, setup failed, guest did not boot or
did not run COMMAND), with a message and the end of the guest console on stderr.

Environment: ALSA_VM_DEBUG=1 (show the guest console and timings),
ALSA_VM_TIMING=1 (timings only), ALSA_VM_TIMEOUT, ALSA_VM_MEM (MiB, 1024),
ALSA_VM_SMP (1), ALSA_VM_MODULES, ALSA_VM_CACHE (cache dir),
ALSA_VM_KERNEL_PKG (pin a linux-image-* package instead of linux-image-amd64's).
EOF
}

# Parses the options; sets SETUP_ONLY, OUT_DIR, HOST_TMP, GUEST_ENV, TIMEOUT and
# EXTRA_MODULES, and leaves the command's words (after --) in the array CMD.
# Exits 0 after --help and EXIT_INFRA on a usage error.
parse_options() {
    SETUP_ONLY=0
    OUT_DIR=
    HOST_TMP=0
    GUEST_ENV=()
    while [ $# -gt 0 ]; do
        case $1 in
            --) shift; break ;;
            --timeout) [ $# -ge 2 ] || die "--timeout needs a value"; TIMEOUT=$2; shift 2 ;;
            --timeout=*) TIMEOUT=${1#*=}; shift ;;
            --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT_DIR=$2; shift 2 ;;
            --out=*) OUT_DIR=${1#*=}; shift ;;
            -e|--env) [ $# -ge 2 ] || die "$1 needs NAME[=VALUE]"; GUEST_ENV+=("$2"); shift 2 ;;
            --env=*) GUEST_ENV+=("${1#*=}"); shift ;;
            --modules) [ $# -ge 2 ] || die "--modules needs a list"; EXTRA_MODULES="$EXTRA_MODULES $2"; shift 2 ;;
            --modules=*) EXTRA_MODULES="$EXTRA_MODULES ${1#*=}"; shift ;;
            --host-tmp) HOST_TMP=1; shift ;;
            --setup-only) SETUP_ONLY=1; shift ;;
            -h|--help) usage; exit 0 ;;
            *) say "unknown option: $1 (the command goes after --)"; usage >&2; exit "$EXIT_INFRA" ;;
        esac
    done
    if [ "$SETUP_ONLY" = 0 ] && [ $# -eq 0 ]; then
        say "no command given"; usage >&2; exit "$EXIT_INFRA"
    fi
    case $TIMEOUT in ''|*[!0-9]*|0) die "--timeout wants a positive whole number of seconds, not '$TIMEOUT'" ;; esac
    EXTRA_MODULES=$(printf '%s' "$EXTRA_MODULES" | tr ',' ' ' | xargs)
    for m in $EXTRA_MODULES; do
        case " $BASE_MODULES $OPTIONAL_MODULES " in
            *" $m "*) ;;
            *) die "module '$m' is not in the guest's initramfs (available: $OPTIONAL_MODULES)" ;;
        esac
    done

    CMD=("$@")
}
