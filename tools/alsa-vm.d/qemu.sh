# tools/alsa-vm.d/qemu.sh: boots the guest and turns the outcome into alsa-vm's
# exit status. The work directory holds the shared comm dir and the logs, and
# is removed on exit (with qemu and the output streams stopped).
# shellcheck shell=bash

# On exit: stops qemu and the output streams, removes WORK.
# shellcheck disable=SC2317
cleanup() {
    [ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null
    for p in "${TAIL_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf -- "$WORK"
}

# Creates WORK (and COMM in it) and installs the cleanup traps.
make_workdir() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/alsa-vm.XXXXXX") || die "mktemp failed"
    COMM=$WORK/comm
    mkdir -p "$COMM/scratch-out"
    QEMU_PID=
    TAIL_PIDS=()
    trap cleanup EXIT
    trap 'say "interrupted"; exit 130' INT
    trap 'say "terminated"; exit 143' TERM
}

# Sets QEMU to the qemu command line: the kernel and initramfs from the cache,
# the host's / (read-only) and COMM shared over 9p, plus --out's DIR if given.
build_qemu_cmd() {
    APPEND="console=ttyS0 panic=-1 rdinit=/init mitigations=off nokaslr 8250.nr_uarts=1 i8042.noaux i8042.nomux i8042.nopnp"
    if [ "$DEBUG" = 1 ]; then APPEND="$APPEND loglevel=7 alsavm.debug=1"; else APPEND="$APPEND quiet loglevel=1"; fi
    # shellcheck disable=SC2054
    QEMU=(qemu-system-x86_64 -nodefaults -no-user-config -nographic -no-reboot
          -machine pc,accel=tcg -cpu max -smp "$SMP" -m "$MEM"
          -kernel "$KDIR/vmlinux" -initrd "$KDIR/initramfs.cpio" -append "$APPEND"
          -serial "file:$WORK/console.log" -monitor none -parallel none
          -fsdev "local,id=hostroot,path=/,readonly=on,multidevs=remap,security_model=none"
          -device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot"
          -fsdev "local,id=comm,path=$COMM,security_model=none"
          -device "virtio-9p-pci,fsdev=comm,mount_tag=comm")
    # shellcheck disable=SC2206
    [ -n "${ALSA_VM_QEMU_ARGS:-}" ] && QEMU+=($ALSA_VM_QEMU_ARGS)
    if [ -n "$OUT_DIR" ]; then
        QEMU+=(-fsdev "local,id=out,path=$OUT_DIR,security_model=none"
               -device "virtio-9p-pci,fsdev=out,mount_tag=out")
    fi
}

# Runs qemu under the time limit, streaming the command's stdout and stderr
# (and with ALSA_VM_DEBUG=1 the guest console) until it stops. Sets QEMU_RC.
run_qemu() {
    dbg "qemu: ${QEMU[*]}"
    T_QEMU=$(now)
    timeout -k 5 "$TIMEOUT" "${QEMU[@]}" </dev/null >"$WORK/qemu.log" 2>&1 &
    QEMU_PID=$!
    # Stream the command's output while it runs (9p writes reach the files at once).
    tail -c +1 -s 0.1 --pid="$QEMU_PID" -f "$COMM/stdout" &
    TAIL_PIDS+=($!)
    tail -c +1 -s 0.1 --pid="$QEMU_PID" -f "$COMM/stderr" >&2 &
    TAIL_PIDS+=($!)
    if [ "$DEBUG" = 1 ]; then
        : >> "$WORK/console.log"
        tail -c +1 -s 0.1 --pid="$QEMU_PID" -f "$WORK/console.log" | sed 's/^/[guest] /' >&2 &
        TAIL_PIDS+=($!)
    fi
    wait "$QEMU_PID"
    QEMU_RC=$?
    QEMU_PID=
    T_END=$(now)
    for p in "${TAIL_PIDS[@]}"; do wait "$p"; done
    TAIL_PIDS=()
}

# Prints what qemu said and the end of the guest console (for failures).
show_console() {
    if [ -s "$WORK/qemu.log" ]; then say "qemu said:"; sed 's/^/  /' "$WORK/qemu.log" >&2; fi
    if [ -s "$WORK/console.log" ] && [ "$DEBUG" != 1 ]; then
        say "last lines of the guest console (ALSA_VM_DEBUG=1 shows all):"
        tail -n 25 "$WORK/console.log" | tr -d '\r' \
            | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b.//g' -e 's/^/  /' >&2
    fi
}

# Exits with the command's status, or explains why there is none: EXIT_INFRA if
# the guest failed to set up or boot, EXIT_TIMEOUT if the command ran out of time.
finish() {
    if [ "$TIMING" = 1 ] && [ -s "$COMM/started" ]; then
        say "timing: boot to command $(cat "$COMM/started") s (guest clock)," \
            "command $(elapsed "$(cat "$COMM/started")" "$(cat "$COMM/finished" 2>/dev/null || cat "$COMM/started")") s," \
            "qemu $(elapsed "$T_QEMU" "$T_END") s, whole run $(elapsed "$T_START" "$T_END") s"
    fi

    if [ -s "$COMM/status" ]; then
        exit "$(cat "$COMM/status")"
    fi
    if [ -s "$COMM/init-error" ]; then
        say "guest setup failed: $(tr '\n' ' ' < "$COMM/init-error")"
        show_console; exit "$EXIT_INFRA"
    fi
    if [ "$QEMU_RC" = 124 ] || [ "$QEMU_RC" = 137 ]; then
        if [ -e "$COMM/started" ]; then
            say "timed out after ${TIMEOUT} s while the command was running (--timeout)"
            show_console; exit "$EXIT_TIMEOUT"
        fi
        say "timed out after ${TIMEOUT} s before the guest ran the command (boot hung?)"
        show_console; exit "$EXIT_INFRA"
    fi
    if [ -e "$COMM/started" ]; then
        say "the guest stopped while the command was running (qemu exit $QEMU_RC; kernel panic or out of memory?)"
    else
        say "the guest did not boot or did not start the command (qemu exit $QEMU_RC)"
    fi
    show_console
    exit "$EXIT_INFRA"
}
