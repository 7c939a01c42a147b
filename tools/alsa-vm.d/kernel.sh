# tools/alsa-vm.d/kernel.sh: the guest kernel. Downloads Debian's kernel package,
# extracts the ELF vmlinux and a pruned module tree holding only the closure of
# the modules the guest loads, into $CACHE/<version>.
# shellcheck shell=bash

# Prints the kernel package to use: the one linux-image-amd64 depends on.
resolve_kernel_pkg() {
    if [ -n "${ALSA_VM_KERNEL_PKG:-}" ]; then echo "$ALSA_VM_KERNEL_PKG"; return 0; fi
    apt-cache depends linux-image-amd64 2>/dev/null \
        | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'
}

# Extracts the uncompressed ELF vmlinux from a bzImage ($1) into $2: finds each
# xz stream header in the file and decompresses the first one that gives an ELF.
extract_vmlinux() {
    local img=$1 out=$2 off
    for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$img" | cut -d: -f1); do
        # (tail gets SIGPIPE when xz stops at the end of the stream: ignore it)
        if { tail -c +"$((off + 1))" "$img" || true; } | xz -dc --single-stream > "$out.tmp" 2>/dev/null \
           && [ "$(od -An -tx1 -N4 "$out.tmp" | tr -d ' \n')" = 7f454c46 ]; then
            mv "$out.tmp" "$out"; return 0
        fi
    done
    rm -f "$out.tmp"
    return 1
}

# Lists the .ko paths (relative to the modules dir) needed for modules $2..,
# dependencies first, from the depmod'ed tree rooted at $1. Built-in modules
# print nothing. Fails if a module is neither.
module_closure() {
    local root=$1 ver=$2; shift 2
    local m line
    for m in "$@"; do
        line=$(modprobe -d "$root" -S "$ver" --show-depends "$m" 2>&1) || { echo "ERROR $m: $line"; continue; }
        printf '%s\n' "$line"
    done | awk -v pre="$root/lib/modules/$ver/" '
        $1 == "insmod" { p = $2; if (index(p, pre) == 1) p = substr(p, length(pre) + 1); if (!(p in seen)) { seen[p] = 1; print p } }
        $1 == "builtin" { next }
        $1 == "ERROR" { print; bad = 1 }
        END { exit bad }'
}

# Downloads and unpacks the kernel package; leaves $CACHE/$ver/{vmlinux,tree}.
prepare_kernel() {
    local pkg deb tmp ver kdir moddir
    pkg=$(resolve_kernel_pkg)
    if [ -z "$pkg" ]; then
        apt_update_once || die "apt-get update failed"
        pkg=$(resolve_kernel_pkg)
    fi
    [ -n "$pkg" ] || die "cannot find the package linux-image-amd64 depends on (apt-cache depends linux-image-amd64)"
    mkdir -p "$CACHE/debs"
    deb=$(ls -1 "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | tail -n 1)
    if [ -z "$deb" ]; then
        say "downloading $pkg"
        if ! (cd "$CACHE/debs" && apt_get -q download "$pkg" >&2); then
            apt_update_once || die "apt-get update failed"
            [ -n "${ALSA_VM_KERNEL_PKG:-}" ] || pkg=$(resolve_kernel_pkg)
            (cd "$CACHE/debs" && apt_get -q download "$pkg" >&2) || die "apt-get download $pkg failed"
        fi
        deb=$(ls -1 "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | tail -n 1)
        [ -n "$deb" ] || die "apt-get download $pkg left no .deb in $CACHE/debs"
    fi

    say "unpacking $(basename "$deb")"
    tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX")
    dpkg-deb -x "$deb" "$tmp/full" || { rm -rf "$tmp"; die "dpkg-deb -x $deb failed"; }
    # Debian 12 ships /lib/modules; newer releases /usr/lib/modules.
    for moddir in "$tmp/full/lib/modules" "$tmp/full/usr/lib/modules"; do
        [ -d "$moddir" ] && break
    done
    [ -d "$moddir" ] || { rm -rf "$tmp"; die "no lib/modules in $deb"; }
    ver=$(ls -1 "$moddir" | head -n 1)
    if [ -z "$ver" ] || ! [ -f "$tmp/full/boot/vmlinuz-$ver" ]; then rm -rf "$tmp"; die "no kernel image in $deb"; fi
    if [ "$moddir" != "$tmp/full/lib/modules" ]; then
        mkdir -p "$tmp/full/lib"; mv "$moddir" "$tmp/full/lib/modules"
    fi
    # Modules might be compressed in other kernels; busybox insmod wants plain .ko.
    find "$tmp/full/lib/modules/$ver" -name '*.ko.xz' -exec xz -d {} + 2>/dev/null
    if find "$tmp/full/lib/modules/$ver" -name '*.ko.zst' | grep -q .; then
        command -v zstd >/dev/null || { rm -rf "$tmp"; die "modules are .ko.zst; install zstd"; }
        find "$tmp/full/lib/modules/$ver" -name '*.ko.zst' -exec zstd -q -d --rm {} +
    fi
    depmod -b "$tmp/full" "$ver" || { rm -rf "$tmp"; die "depmod -b failed"; }

    # Keep only what the guest needs: a small module tree and the vmlinux.
    local closure
    # shellcheck disable=SC2086
    closure=$(module_closure "$tmp/full" "$ver" $BASE_MODULES) \
        || { rm -rf "$tmp"; die "kernel $ver lacks modules: $closure"; }
    local opt
    # shellcheck disable=SC2086
    opt=$(module_closure "$tmp/full" "$ver" $OPTIONAL_MODULES 2>/dev/null | grep -v '^ERROR' || true)
    kdir="$tmp/kdir"
    mkdir -p "$kdir/tree/lib/modules/$ver"
    # shellcheck disable=SC2046
    (cd "$tmp/full/lib/modules/$ver" && cp --parents modules.order modules.builtin modules.builtin.modinfo \
        $(printf '%s\n%s\n' "$closure" "$opt" | sort -u) "$kdir/tree/lib/modules/$ver/") \
        || { rm -rf "$tmp"; die "copying modules failed"; }
    depmod -b "$kdir/tree" "$ver" || { rm -rf "$tmp"; die "depmod on the pruned tree failed"; }
    # Load order for the base modules (dependencies first).
    # shellcheck disable=SC2086
    module_closure "$kdir/tree" "$ver" $BASE_MODULES > "$kdir/modules.load" \
        || { rm -rf "$tmp"; die "module order failed"; }
    cp "$tmp/full/boot/config-$ver" "$kdir/config" 2>/dev/null || true
    say "extracting vmlinux"
    extract_vmlinux "$tmp/full/boot/vmlinuz-$ver" "$kdir/vmlinux" \
        || { rm -rf "$tmp"; die "could not extract vmlinux from vmlinuz-$ver"; }
    echo "$FORMAT $pkg $(basename "$deb")" > "$kdir/stamp"
    rm -rf "${CACHE:?}/${ver:?}"
    mv "$kdir" "$CACHE/$ver"
    rm -rf "$tmp"
    echo "$ver" > "$CACHE/current.tmp" && mv "$CACHE/current.tmp" "$CACHE/current"
    # Drop what an older kernel left behind.
    local old
    for old in "$CACHE"/debs/*.deb "$CACHE"/*/stamp; do
        case $old in
            "$deb"|"$CACHE/$ver/stamp") ;;
            */stamp) [ -e "$old" ] && rm -rf "$(dirname "$old")" ;;
            *) [ -e "$old" ] && rm -f "$old" ;;
        esac
    done
}

kernel_ready() {
    local ver
    ver=$(cat "$CACHE/current" 2>/dev/null) || return 1
    [ -n "$ver" ] && [ -s "$CACHE/$ver/vmlinux" ] && [ -s "$CACHE/$ver/modules.load" ] \
        && [ "$(cut -d' ' -f1 "$CACHE/$ver/stamp" 2>/dev/null)" = "$FORMAT" ] || return 1
    KVER=$ver
    KDIR=$CACHE/$ver
}
