#!/usr/bin/env python3
"""Real RTP-MIDI peers for RTPMIDICLITests.

  pymidi   --port P            pymidi's RTP-MIDI server (PyPI) on P and P+1: the session SensorWah
                               invites. One JSON line per peer change and per MIDI message it decodes.
  initiate --target HOST:PORT  a session initiator written here with the standard library only:
                               invites SensorWah (control, then data port), runs the clock sync,
                               reads every RTP packet with its own decoder of RFC 6295 (MIDI list,
                               delta times, running status; recovery journal chapters C, W, N),
                               sends RS feedback, optionally drops packets on purpose (--drop N:
                               every Nth, as a lossy link would) and repairs from the journal,
                               then says goodbye. Prints one JSON summary.
"""
import argparse, json, os, random, signal, socket, struct, sys, time


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------- pymidi as the invited session

def run_pymidi(args):
    from pymidi import server

    class H(server.Handler):
        def on_peer_connected(self, peer):
            out({"event": "connected", "name": peer.name})

        def on_peer_disconnected(self, peer):
            out({"event": "disconnected", "name": peer.name})

        def on_midi_commands(self, peer, commands):
            for c in commands:
                p = c.params
                if c.command in ("note_on", "note_off"):
                    key = getattr(p.key, "intvalue", p.key)
                    out({"event": "midi", "bytes": [int(c.command_byte), int(key), int(p.velocity)]})
                elif c.command == "control_mode_change":
                    out({"event": "midi", "bytes": [int(c.command_byte), int(p.controller), int(p.value)]})
                else:
                    out({"event": "midi", "other": str(c.command)})

    s = server.Server([("127.0.0.1", args.port)])
    s.add_handler(H())
    s._init_protocols()
    out({"event": "listening", "port": args.port})
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    deadline = time.time() + args.seconds
    while not stop[0] and time.time() < deadline:
        s._loop_once(timeout=0.05)


# ---------------------------------------------------------------- RFC 6295 decoding, written here

def read_delta(b, i):
    v = 0
    while True:
        v = (v << 7) | (b[i] & 0x7F)
        i += 1
        if not b[i - 1] & 0x80:
            return v, i


def decode_rtp(b):
    """(seq, timestamp, ssrc, [(delta, status, d1, d2)], journal dict or None)."""
    assert b[0] >> 6 == 2, "RTP version"
    assert b[1] & 0x7F == 0x61, "payload type"
    seq, ts, ssrc = struct.unpack("!HII", b[2:12])
    i = 12
    flags = b[i]
    long_form, j, z = flags & 0x80, flags & 0x40, flags & 0x20
    n = flags & 0x0F
    i += 1
    if long_form:
        n = (n << 8) | b[i]
        i += 1
    end = i + n
    msgs, running, first = [], None, True
    while i < end:
        delta = 0
        if not first or z:
            delta, i = read_delta(b, i)
        first = False
        if b[i] & 0x80:
            running = b[i]
            i += 1
        size = 1 if running & 0xF0 in (0xC0, 0xD0) else 2
        msgs.append((delta, running) + tuple(b[i:i + size]))
        i += size
    assert i == end, "MIDI list length"
    journal = None
    if j:
        journal = {"checkpoint": struct.unpack("!H", b[i + 1:i + 3])[0], "cc": [], "wheel": [], "on": [], "off": [],
                   "bytes": len(b) - i}
        a, total = b[i] & 0x20, (b[i] & 0x0F) + 1
        i += 3
        if a:
            for _ in range(total):
                ch = (b[i] >> 3) & 0x0F
                length = ((b[i] & 0x03) << 8) | b[i + 1]
                toc = b[i + 2]
                stop = i + length
                i += 3
                assert not toc & 0x80, "chapter P not expected"
                if toc & 0x40:  # chapter C
                    count = (b[i] & 0x7F) + 1
                    i += 1
                    for _ in range(count):
                        assert not b[i + 1] & 0x80, "only the value tool is expected"
                        journal["cc"].append((ch, b[i] & 0x7F, b[i + 1] & 0x7F))
                        i += 2
                assert not toc & 0x20, "chapter M not expected"
                if toc & 0x10:  # chapter W
                    journal["wheel"].append((ch, (b[i] & 0x7F) | ((b[i + 1] & 0x7F) << 7)))
                    i += 2
                if toc & 0x08:  # chapter N
                    logs = b[i] & 0x7F
                    low, high = b[i + 1] >> 4, b[i + 1] & 0x0F
                    if logs == 127 and low == 15 and high == 0:
                        logs = 128
                    i += 2
                    for _ in range(logs):
                        journal["on"].append((ch, b[i] & 0x7F, b[i + 1] & 0x7F))
                        i += 2
                    if low <= high:
                        for octet in range(low, high + 1):
                            for k in range(8):
                                if b[i] & (0x80 >> k):
                                    journal["off"].append((ch, octet * 8 + k))
                            i += 1
                assert i == stop, "channel journal length"
    return seq, ts, ssrc, msgs, journal


class State:
    def __init__(self):
        self.cc, self.wheel, self.notes = {}, {}, {}

    def apply(self, status, d1, d2=0):
        ch, kind = status & 0x0F, status & 0xF0
        if kind == 0xB0:
            self.cc[(ch, d1)] = d2
        elif kind == 0xE0:
            self.wheel[ch] = d1 | (d2 << 7)
        elif kind == 0x90 and d2:
            self.notes[(ch, d1)] = d2
        elif kind in (0x80, 0x90):
            self.notes.pop((ch, d1), None)

    def repair(self, j):
        for ch, n, v in j["cc"]:
            self.cc[(ch, n)] = v
        for ch, v in j["wheel"]:
            self.wheel[ch] = v
        for ch, n in j["off"]:
            self.notes.pop((ch, n), None)
        for ch, n, v in j["on"]:
            self.notes[(ch, n)] = v

    def snapshot(self):
        return (sorted(self.cc.items()), sorted(self.wheel.items()), sorted(self.notes.items()))


# ---------------------------------------------------------------- the initiator

def command(code, *fields):
    return b"\xff\xff" + code + b"".join(fields)


def run_initiator(args):
    host, port = args.target.rsplit(":", 1)
    port = int(port)
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ctl.bind(("127.0.0.1", args.port))
    dat = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dat.bind(("127.0.0.1", args.port + 1))
    ssrc = random.randrange(1, 2 ** 32)
    token = random.randrange(1, 2 ** 32)
    name = args.name.encode() + b"\0"
    result = {"handshake": [], "events": [], "packets": 0, "dropped": 0, "repaired": 0, "mismatches": [],
              "checks": 0, "rs": [], "checkpoints_after_rs": [], "journal_bytes": [], "ck": None, "journals": {}}

    def invite(sock, dest):
        for attempt in range(20):
            sock.sendto(command(b"IN", struct.pack("!III", 2, token, ssrc), name), dest)
            sock.settimeout(0.5)
            try:
                b, a = sock.recvfrom(2048)
            except socket.timeout:
                continue
            code = b[2:4].decode()
            ver, tok, their = struct.unpack("!III", b[4:16])
            result["handshake"].append({"code": code, "port": a[1], "token_echoed": tok == token,
                                        "name": b[16:].split(b"\0")[0].decode()})
            return their
        raise SystemExit("no answer to the invitation at %s" % (dest,))

    their = invite(ctl, (host, port))
    invite(dat, (host, port + 1))

    # clock sync as the initiator: CK0 -> CK1 -> CK2
    now = lambda: int(time.monotonic() * 10000)
    t1 = now()
    dat.sendto(command(b"CK", struct.pack("!IB3xQQQ", ssrc, 0, t1, 0, 0)), (host, port + 1))
    dat.settimeout(2)
    pending = []
    while True:
        b, a = dat.recvfrom(65536)
        if b[:4] == b"\xff\xffCK":
            s, count, e1, e2, e3 = struct.unpack("!IB3xQQQ", b[4:36])
            t3 = now()
            dat.sendto(command(b"CK", struct.pack("!IB3xQQQ", ssrc, 2, e1, e2, t3)), (host, port + 1))
            result["ck"] = {"count": count, "t1_echoed": e1 == t1, "their_ssrc_ok": s == their,
                            "round_trip_ms": (t3 - t1) / 10}
            offset = e2 - (t1 + t3) / 2  # their clock minus ours, in 100 us ticks
            break
        pending.append(b)

    truth, lossy = State(), State()
    last_seq = None
    deadline = time.time() + args.seconds
    dat.settimeout(0.2)
    received = 0
    idle_until = time.time() + args.idle
    last_rs = None
    latencies, recoveries, lost_at = [], [], None
    while time.time() < deadline:
        if pending:
            b = pending.pop(0)
        else:
            try:
                b, a = dat.recvfrom(65536)
            except socket.timeout:
                if received and time.time() > idle_until:
                    break
                continue
        idle_until = time.time() + args.idle
        if b[:2] == b"\xff\xff":
            continue
        arrived = now()
        seq, ts, s, msgs, journal = decode_rtp(b)
        received += 1
        # the first event's time on SensorWah's clock (RTP timestamps and CK share its base)
        latencies.append((arrived - (ts - offset)) / 10)
        result["packets"] += 1
        t = ts
        for m in msgs:
            t += m[0]
            result["events"].append([t] + list(m[1:]))
            truth.apply(*m[1:])
        if journal is not None:
            result["journal_bytes"].append(journal["bytes"])
            result["journals"][str(seq)] = {"cc": journal["cc"], "wheel": journal["wheel"], "on": journal["on"],
                                            "off": journal["off"], "checkpoint": journal["checkpoint"]}
            if last_rs is not None:
                result["checkpoints_after_rs"].append([last_rs, journal["checkpoint"]])
        if args.drop and received % args.drop == 0:
            result["dropped"] += 1
            lost_at = arrived
            continue  # lost on the way
        if lost_at is not None:
            recoveries.append((arrived - lost_at) / 10)  # how long the state was stale
            lost_at = None
        if last_seq is not None and seq != (last_seq + 1) & 0xFFFF:
            if journal is None:
                result["mismatches"].append({"seq": seq, "why": "gap and no journal"})
            else:
                lossy.repair(journal)
                result["repaired"] += 1
        for m in msgs:
            lossy.apply(*m[1:])
        last_seq = seq
        result["checks"] += 1
        if lossy.snapshot() != truth.snapshot():
            result["mismatches"].append({"seq": seq, "truth": truth.snapshot(), "lossy": lossy.snapshot()})
        if args.rs_every and received % args.rs_every == 0:
            ctl.sendto(command(b"RS", struct.pack("!II", ssrc, seq << 16)), (host, port))
            result["rs"].append(seq)
            last_rs = seq
    result["final_cc"] = {"%d/%d" % k: v for k, v in truth.cc.items()}

    def pct(xs, q):
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 2) if xs else None
    result["latency_ms"] = {"p50": pct(latencies, 0.5), "p99": pct(latencies, 0.99), "max": pct(latencies, 1)}
    result["stale_after_loss_ms"] = {"p50": pct(recoveries, 0.5), "p99": pct(recoveries, 0.99), "max": pct(recoveries, 1)}
    if args.bye:
        ctl.sendto(command(b"BY", struct.pack("!III", 2, token, ssrc)), (host, port))
    out(result)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("pymidi")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--seconds", type=float, default=60)
    i = sub.add_parser("initiate")
    i.add_argument("--target", required=True)
    i.add_argument("--port", type=int, required=True)
    i.add_argument("--name", default="test initiator")
    i.add_argument("--seconds", type=float, default=30)
    i.add_argument("--idle", type=float, default=1.5, help="stop after this long without packets")
    i.add_argument("--drop", type=int, default=0)
    i.add_argument("--rs-every", type=int, default=0)
    i.add_argument("--bye", action="store_true")
    args = ap.parse_args()
    run_pymidi(args) if args.mode == "pymidi" else run_initiator(args)


if __name__ == "__main__":
    main()
