# tools/alsa-vm.d/initramfs.sh: the guest's initramfs (static busybox, the
# modules, and guest-init as /init), cached in $KDIR with a key over its inputs.
# shellcheck shell=bash

# PID 1 of the guest (busybox ash), and this file.
INIT_FILE=$ALSA_VM_LIB/guest-init
INITRAMFS_SH=$ALSA_VM_LIB/initramfs.sh

# The cache key: everything the initramfs is built from. This includes the
# guest init and this file (which decides the layout), so editing either one
# rebuilds it; the kernel files are covered by FORMAT, KVER and modules.load.
initramfs_key() {
    { printf '%s\n' "$FORMAT" "$KVER"; cat "$INIT_FILE" "$INITRAMFS_SH"; cat "$KDIR/modules.load"; sha256sum /bin/busybox; } \
        | sha256sum | cut -c1-16
}

initramfs_ready() {
    [ -s "$KDIR/initramfs.cpio" ] && [ "$(cat "$KDIR/initramfs.key" 2>/dev/null)" = "$(initramfs_key)" ]
}

build_initramfs() {
    local key stage
    key=$(initramfs_key)
    say "building initramfs ($key)"
    stage=$(mktemp -d "$CACHE/.initramfs.XXXXXX")
    mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,mnt,etc,root,tmp,newroot,lib/modules}
    cp /bin/busybox "$stage/bin/busybox"
    cp "$INIT_FILE" "$stage/init"
    chmod 755 "$stage/init"
    cp -a "$KDIR/tree/lib/modules/$KVER" "$stage/lib/modules/"
    cp "$KDIR/modules.load" "$stage/etc/alsa-vm.modules"
    echo "KVER=$KVER" > "$stage/etc/alsa-vm.conf"
    # An early console for the kernel and init; init reopens it from devtmpfs anyway.
    mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
    (cd "$stage" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet > "$stage.cpio") \
        || { rm -rf "$stage" "$stage.cpio"; die "cpio failed"; }
    mv "$stage.cpio" "$KDIR/initramfs.cpio"
    echo "$key" > "$KDIR/initramfs.key"
    rm -rf "$stage"
}
