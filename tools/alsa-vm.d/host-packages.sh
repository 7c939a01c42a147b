# tools/alsa-vm.d/host-packages.sh: installs the host tools alsa-vm needs (qemu,
# busybox-static, xz, cpio, kmod, ...) with apt-get, as root or through sudo.
# shellcheck shell=bash

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root to run: $*"; fi
}

apt_get() {
    # DPkg::Lock::Timeout waits for another apt/dpkg instead of failing at once.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 \
        -o APT::Sandbox::User=root "$@"
}

APT_UPDATED=0
apt_update_once() {
    [ "$APT_UPDATED" = 1 ] && return 0
    say "apt-get update"
    apt_get -q update >&2 || return 1
    APT_UPDATED=1
}

ensure_host_packages() {
    local missing=() cmd pkg
    # command:package pairs
    for pair in qemu-system-x86_64:qemu-system-x86 xz:xz-utils cpio:cpio \
                depmod:kmod modprobe:kmod dpkg-deb:dpkg flock:util-linux \
                timeout:coreutils stdbuf:coreutils aconnect:alsa-utils \
                aseqdump:alsa-utils; do
        cmd=${pair%%:*}; pkg=${pair#*:}
        if ! command -v "$cmd" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$cmd" ] && ! [ -x "/sbin/$cmd" ]; then
            missing+=("$pkg")
        fi
    done
    # The initramfs needs a *static* busybox (the busybox package is dynamic).
    if [ "$(dpkg-query -W -f='${Status}' busybox-static 2>/dev/null)" != "install ok installed" ]; then
        missing+=(busybox-static)
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    say "installing missing packages: ${missing[*]}"
    if ! apt_get -q install -y --no-install-recommends "${missing[@]}" >&2; then
        apt_update_once || die "apt-get update failed"
        apt_get -q install -y --no-install-recommends "${missing[@]}" >&2 \
            || die "could not install: ${missing[*]}"
    fi
    hash -r
}
