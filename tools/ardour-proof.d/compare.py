#!/usr/bin/env python3
"""tools/ardour-proof's checks on what Ardour recorded (stdlib only).

    compare.py midi REFERENCE.jsonl MODEL-EVENTS SMF-FILE --rate 48000 --tolerance-ms 50
               [--witness DUMP]
        REFERENCE.jsonl: `sensorwah replay LOG --midi stdout --fast` (one JSON object a line);
        MODEL-EVENTS: midi.lua's dump of Ardour's model ("sample channel cc value" a line);
        SMF-FILE: the .mid Ardour wrote for the recorded region (interchange/.../midifiles).
        Passes when the SMF's channel messages are exactly the reference's Control Changes
        (status byte = channel, controller, value; same count, same order), Ardour's model
        holds the same (channel, controller, value) sequence, and every event's time since
        the first, on Ardour's timeline, is within the tolerance of the reference's. DUMP:
        jack_midi_dump's output for the same JACK port (a second listener), which must hold the
        reference's messages too; it says which side lost a message.

    compare.py lv2 DRY.wav BOUNCED.wav --start S --length N --render-binary SENSORWAH --pedal P
               --work DIR [--max-diff 1e-5]
        DRY.wav: the recorded source; BOUNCED.wav: Ardour's bounce through sensorwah.lv2;
        the region is DRY[S:S+N]. Passes when the bounce is not silent, differs from the dry
        signal (not bypassed), and is sample for sample what `sensorwah render --pedal P
        --voice svf --tail 0` makes of the same region (within --max-diff).
Prints "RESULT ..." lines; exits 1 when a check fails, 2 on unusable input.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys


def die(msg):
    print(f"RESULT unusable: {msg}")
    sys.exit(2)


# ---- Standard MIDI File ---------------------------------------------------------------------

def read_varlen(data, i):
    value = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated variable-length number")
        b = data[i]
        i += 1
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            return value, i


def smf_events(path):
    """(tick, status, data bytes) for every channel message in every track; meta and sysex skipped."""
    data = open(path, "rb").read()
    if data[:4] != b"MThd":
        raise ValueError("not a Standard MIDI File")
    hlen, fmt, ntracks, division = struct.unpack(">IHHH", data[4:14])
    i = 8 + hlen
    out = []
    for _ in range(ntracks):
        if data[i:i + 4] != b"MTrk":
            raise ValueError(f"expected MTrk at {i}")
        tlen = struct.unpack(">I", data[i + 4:i + 8])[0]
        j, end = i + 8, i + 8 + tlen
        tick, running = 0, None
        while j < end:
            delta, j = read_varlen(data, j)
            tick += delta
            b = data[j]
            if b == 0xFF:                       # meta: type, length, data
                length, k = read_varlen(data, j + 2)
                j = k + length
                continue
            if b in (0xF0, 0xF7):               # sysex
                length, k = read_varlen(data, j + 1)
                j = k + length
                continue
            if b & 0x80:
                running = b
                j += 1
            elif running is None:
                raise ValueError(f"data byte without status at {j}")
            n = 1 if (running & 0xF0) in (0xC0, 0xD0) else 2
            out.append((tick, running, tuple(data[j:j + n])))
            j += n
        i = end
    out.sort(key=lambda e: e[0])
    return division, out


def midi(args):
    ref = []
    for line in open(args.reference):
        line = line.strip()
        if not line:
            continue
        m = json.loads(line)
        if m.get("type") != "cc":
            die(f"the reference holds a {m.get('type')} message; this proof compares 7-bit Control Changes only")
        ref.append((float(m["t"]), int(m["ch"]), int(m["cc"]), int(m["value"])))
    if not ref:
        die("the reference is empty")
    model = []
    for line in open(args.model):
        parts = line.split()
        if len(parts) == 4:
            model.append(tuple(int(p) for p in parts))
    try:
        division, smf = smf_events(args.smf)
    except (OSError, ValueError) as e:
        die(f"{args.smf}: {e}")

    ok = True
    ref_msgs = [(0xB0 | (ch - 1), cc, v) for (_, ch, cc, v) in ref]
    smf_msgs = [(st,) + d for (_, st, d) in smf]
    ccs = sorted({(ch, cc) for (_, ch, cc, _) in ref})
    print(f"RESULT reference: {len(ref)} Control Changes "
          + ", ".join(f"CC {cc} on channel {ch}" for ch, cc in ccs)
          + f", values {min(r[3] for r in ref)}..{max(r[3] for r in ref)}, {ref[-1][0] - ref[0][0]:.3f} s from first to last")
    if smf_msgs == ref_msgs:
        print(f"RESULT smf: {len(smf_msgs)} channel messages in {os.path.basename(args.smf)}, identical to the reference (status/channel, controller, value, in order)")
    else:
        ok = False
        first = next((k for k, (a, b) in enumerate(zip(smf_msgs, ref_msgs)) if a != b), min(len(smf_msgs), len(ref_msgs)))
        got = smf_msgs[first] if first < len(smf_msgs) else None
        want = ref_msgs[first] if first < len(ref_msgs) else None
        print(f"RESULT smf: MISMATCH: {len(smf_msgs)} channel messages, reference {len(ref_msgs)}; first difference at #{first}: {got} vs {want}")

    if args.witness:
        wit = []
        for line in open(args.witness):
            head, _, rest = line.partition(":")
            if not head.strip().isdigit():
                continue
            b = []
            for tok in rest.split():
                if len(tok) != 2:
                    break
                try:
                    b.append(int(tok, 16))
                except ValueError:
                    break
            if b:
                wit.append(tuple(b))
        if wit == ref_msgs:
            print(f"RESULT witness: jack_midi_dump on the same JACK port got {len(wit)} messages, identical to the reference")
        else:
            ok = False
            missing = len(ref_msgs) - len(wit)
            print(f"RESULT witness: MISMATCH: jack_midi_dump on the same JACK port got {len(wit)} messages, reference "
                  f"{len(ref_msgs)} ({missing} missing): what went out on JACK is not the reference")

    model_msgs = [(ch, cc, v) for (_, ch, cc, v) in model]
    ref_triples = [(ch, cc, v) for (_, ch, cc, v) in ref]
    if model_msgs == ref_triples:
        print(f"RESULT model: {len(model_msgs)} controller events in Ardour's region model, identical to the reference (channel, controller, value, in order)")
    else:
        ok = False
        first = next((k for k, (a, b) in enumerate(zip(model_msgs, ref_triples)) if a != b), min(len(model_msgs), len(ref_triples)))
        print(f"RESULT model: MISMATCH: {len(model_msgs)} events, reference {len(ref_triples)}; first difference at #{first}")
        import difflib
        shown = 0
        for op, a0, a1, b0, b1 in difflib.SequenceMatcher(a=ref_triples, b=model_msgs, autojunk=False).get_opcodes():
            if op != "equal" and shown < 5:
                shown += 1
                print(f"RESULT model: {op}: reference #{a0}-#{a1 - 1} (t {ref[a0][0] if a0 < len(ref) else '-'} s: "
                      f"{ref_triples[a0:a1][:4]}) vs Ardour #{b0}-#{b1 - 1} ({model_msgs[b0:b1][:4]})")

    if model and len(model) == len(ref):
        t0, s0 = ref[0][0], model[0][0]
        dev = [((s - s0) / args.rate - (t - t0)) * 1000.0 for (s, _, _, _), (t, _, _, _) in zip(model, ref)]
        worst = max(abs(d) for d in dev)
        mean = sum(dev) / len(dev)
        within = worst <= args.tolerance_ms
        ok = ok and within
        print(f"RESULT timing: every event's time since the first within {worst:.1f} ms of the reference's "
              f"(mean {mean:+.1f} ms; tolerance {args.tolerance_ms:g} ms){'' if within else ': OUT OF TOLERANCE'}")
    else:
        ok = False
        print("RESULT timing: not compared (the counts differ)")
    return 0 if ok else 1


# ---- WAV ------------------------------------------------------------------------------------

def read_wav(path):
    """(rate, samples of channel 1 as floats) for PCM 16/24/32-bit or float 32/64 WAV."""
    data = open(path, "rb").read()
    if data[:4] not in (b"RIFF", b"RF64") or data[8:12] != b"WAVE":
        raise ValueError("not a WAV file")
    i, fmt, frames = 12, None, None
    while i + 8 <= len(data):
        cid, size = data[i:i + 4], struct.unpack("<I", data[i + 4:i + 8])[0]
        body = data[i + 8:i + 8 + size]
        if cid == b"fmt ":
            tag, channels, rate = struct.unpack("<HHI", body[:8])
            bits = struct.unpack("<H", body[14:16])[0]
            if tag == 0xFFFE:
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
        elif cid == b"data":
            frames = body
        i += 8 + size + (size & 1)
    if fmt is None or frames is None:
        raise ValueError("no fmt or data chunk")
    tag, channels, rate, bits = fmt
    width = bits // 8
    n = len(frames) // (width * channels)
    if tag == 3 and bits == 32:
        vals = struct.unpack(f"<{n * channels}f", frames[:n * channels * 4])
    elif tag == 3 and bits == 64:
        vals = struct.unpack(f"<{n * channels}d", frames[:n * channels * 8])
    elif tag == 1 and bits == 16:
        vals = [v / 32768.0 for v in struct.unpack(f"<{n * channels}h", frames[:n * channels * 2])]
    elif tag == 1 and bits == 32:
        vals = [v / 2147483648.0 for v in struct.unpack(f"<{n * channels}i", frames[:n * channels * 4])]
    elif tag == 1 and bits == 24:
        vals = [int.from_bytes(frames[k:k + 3], "little", signed=True) / 8388608.0 for k in range(0, n * channels * 3, 3)]
    else:
        raise ValueError(f"unsupported WAV format tag {tag}, {bits} bits")
    return rate, list(vals[0::channels])


def write_wav_float(path, rate, samples):
    body = struct.pack(f"<{len(samples)}f", *samples)
    fmt = struct.pack("<HHIIHH", 3, 1, rate, rate * 4, 4, 32)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(body)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<I", len(fmt)) + fmt)
        f.write(b"data" + struct.pack("<I", len(body)) + body)


def rms(x):
    return math.sqrt(sum(v * v for v in x) / len(x)) if x else 0.0


def lv2(args):
    try:
        rate, dry_all = read_wav(args.dry)
        brate, bounced = read_wav(args.bounced)
    except (OSError, ValueError) as e:
        die(str(e))
    dry = dry_all[args.start:args.start + args.length]
    if len(dry) != args.length:
        die(f"the recorded source has {len(dry_all)} samples, the region wants {args.start}+{args.length}")
    ok = True
    print(f"RESULT recorded: {len(dry)} samples at {rate} Hz, RMS {rms(dry):.4f}, peak {max(abs(v) for v in dry):.4f}")
    if rms(dry) < 0.01:
        ok = False
        print("RESULT recorded: SILENT: nothing reached the track's input")
    # what sensorwah's own renderer makes of exactly the region Ardour bounced
    region = os.path.join(args.work, "region.wav")
    rendered = os.path.join(args.work, "render.wav")
    write_wav_float(region, rate, dry)
    r = subprocess.run([args.render_binary, "render", "--pedal", str(args.pedal), "--voice", "svf",
                        "--sample-format", "float", "--tail", "0", region, rendered],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die(f"sensorwah render failed ({r.returncode}): {r.stderr.strip()}")
    _, ref = read_wav(rendered)
    b_rms, change = rms(bounced), rms([b - d for b, d in zip(bounced, dry)])
    print(f"RESULT bounce: {len(bounced)} samples, RMS {b_rms:.4f} (dry {rms(dry):.4f}); RMS of bounce minus dry {change:.4f}")
    if b_rms < 0.001:
        ok = False
        print("RESULT bounce: SILENT")
    if change < 0.1 * rms(dry):
        ok = False
        print("RESULT bounce: UNCHANGED: the bounce is the dry signal (bypassed or not in the chain)")
    if len(bounced) != len(ref):
        ok = False
        print(f"RESULT render: LENGTH DIFFERS: bounce {len(bounced)}, render {len(ref)}")
    worst = max(abs(a - b) for a, b in zip(bounced, ref)) if bounced and ref else float("inf")
    same = worst <= args.max_diff
    ok = ok and same
    print(f"RESULT render: bounce vs `sensorwah render --pedal {args.pedal} --voice svf` of the same region: "
          f"max |difference| {worst:.2e} over {min(len(bounced), len(ref))} samples (limit {args.max_diff:g})"
          f"{'' if same else ': DIFFERENT'}")
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="what", required=True)
    m = sub.add_parser("midi")
    m.add_argument("reference")
    m.add_argument("model")
    m.add_argument("smf")
    m.add_argument("--rate", type=float, default=48000)
    m.add_argument("--tolerance-ms", type=float, default=50)
    m.add_argument("--witness", help="jack_midi_dump's output for the same JACK port")
    a = sub.add_parser("lv2")
    a.add_argument("dry")
    a.add_argument("bounced")
    a.add_argument("--start", type=int, required=True)
    a.add_argument("--length", type=int, required=True)
    a.add_argument("--render-binary", required=True)
    a.add_argument("--pedal", type=int, default=64)
    a.add_argument("--work", required=True)
    a.add_argument("--max-diff", type=float, default=1e-5)
    args = p.parse_args()
    sys.exit(midi(args) if args.what == "midi" else lv2(args))


if __name__ == "__main__":
    main()
