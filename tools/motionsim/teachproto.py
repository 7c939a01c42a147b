"""Teach by example: a Python port of SensorWah's current features (for diagnosis) and the
prototype of the proposed recogniser, scored by tools/teach-score (method `proto`).

Everything here is causal and runs reading by reading (the features) or frame by frame (the
recogniser) with fixed-size state, as the Swift port must; numpy only vectorises the loops over
examples and example frames that Swift runs as plain loops.

State of the prototype (Params() defaults = the best configuration measured): SensorWah's features
(current_features, a port checked against the frames `sensorwah teach` writes: the magnitude and
rotation-rate features agree to the file's precision, the accelerometer's within 0.003), examples = the labelled stretches (trimmed, <= 3 s), open-begin matching with steps that
each take one stream frame (so numpy can update a whole column at once), thresholds 1.3 x the
farthest leave-one-out distance within [0.5, 0.8] x a still device's distance, firing when the
best match has stayed best 0.1 s and no other class's path that began inside it and has matched
half its example could still end nearer (at most 0.6 s), 0.25 s refractory, no hold-back.
It does NOT reach the goal (see tools/teach-score's figures): it is kept to reproduce the
ablations of the report, not as the recogniser to port as it is.
"""
import math

import numpy as np

RATE = 50.0
STEP = 1 / RATE


# ---------------------------------------------------------------- SensorWah's features (a port)

def compress(x, s):
    return np.sign(x) * np.log1p(np.abs(x) / s)


def current_features(t, acc, gyro):
    """GestureFeatures.feed over a take: (frame times, N x 7 frames), line by line as in
    LearnedGestures.swift (accelerometer x y z compressed, low-passed 80 ms, minus their 0.6 s
    average; 1.6 * compressed (|a| - 1); 0.8 * compressed gyro; the accelerometer's 3-vector
    saturated at 0.4, the gyro's at 1.2)."""
    tc, gtc, knees = 0.08, 0.6, {0: 0.4, 4: 1.2}
    n = len(t)
    filt = np.zeros(7)
    slow = np.zeros(3)
    times, out = [], []
    last_a = math.nan
    next_tick = math.nan
    last = math.nan

    def raw(i):
        a, w = acc[i], gyro[i]
        return np.concatenate([compress(a, 1.0), [1.6 * compress(np.linalg.norm(a) - 1, 1.0)], 0.8 * compress(w, 2.0)])

    def sat(v):
        v = v.copy()
        for o, knee in knees.items():
            r = np.linalg.norm(v[o:o + 3])
            if r > 1e-12:
                v[o:o + 3] *= knee * math.tanh(r / knee) / r
        return v

    for i in range(n):
        x = raw(i)
        ti = t[i]
        if math.isnan(last):
            filt = x.copy()
            slow = filt[:3].copy()
            last = ti
            next_tick = math.ceil(ti / STEP) * STEP
            if next_tick == ti:
                v = filt.copy(); v[:3] -= slow
                times.append(ti); out.append(sat(v)); next_tick += STEP
            continue
        prev = filt.copy()
        dt = STEP if math.isnan(last_a) else max(0.0, ti - last_a)
        k = 1 - math.exp(-dt / tc)
        filt += k * (x - filt)
        ks = 1 - math.exp(-dt / gtc)
        slow += ks * (filt[:3] - slow)
        last_a = ti
        t0 = last
        last = ti
        while next_tick <= ti:
            u = (next_tick - t0) / (ti - t0) if ti > t0 else 1.0
            v = prev + u * (filt - prev)
            v[:3] -= slow
            times.append(next_tick); out.append(sat(v))
            next_tick += STEP
    return np.array(times), np.array(out)


def dtw_full(a, b):
    """GestureModel.distance: whole-sequence DTW, L1 cost, diagonal weighted 2, / (n + m)."""
    n, m = len(a), len(b)
    d = np.abs(a[:, None, :] - b[None, :, :]).sum(-1)
    C = np.full((n, m), np.inf)
    for i in range(n):
        for j in range(m):
            if i == 0 and j == 0:
                C[i, j] = 2 * d[i, j]
                continue
            best = np.inf
            if i > 0 and j > 0:
                best = C[i - 1, j - 1] + 2 * d[i, j]
            if i > 0:
                best = min(best, C[i - 1, j] + d[i, j])
            if j > 0:
                best = min(best, C[i, j - 1] + d[i, j])
            C[i, j] = best
    return C[-1, -1] / (n + m)


def dtw_pairs(As, Bs, dims=None):
    """GestureModel.distance for every (a, b) of As x Bs at once: (len(As), len(Bs)) array."""
    P = [(i, j) for i in range(len(As)) for j in range(len(Bs))]
    n = np.array([len(As[i]) for i, _ in P]); m = np.array([len(Bs[j]) for _, j in P])
    N, M = n.max(), m.max()
    D = As[0].shape[1] if dims is None else dims
    A = np.zeros((len(P), N, D)); B = np.zeros((len(P), M, D))
    for k, (i, j) in enumerate(P):
        A[k, :len(As[i])] = As[i][:, :D]; B[k, :len(Bs[j])] = Bs[j][:, :D]
    prev = np.full((len(P), M), np.inf)
    out = np.full(len(P), np.inf)
    for i in range(N):
        cur = np.full((len(P), M), np.inf)
        d = np.abs(A[:, i, None, :] - B).sum(-1)      # (P, M)
        for j in range(M):
            if i == 0 and j == 0:
                cur[:, 0] = 2 * d[:, 0]
                continue
            best = np.full(len(P), np.inf)
            if i > 0 and j > 0:
                best = prev[:, j - 1] + 2 * d[:, j]
            if i > 0:
                best = np.minimum(best, prev[:, j] + d[:, j])
            if j > 0:
                best = np.minimum(best, cur[:, j - 1] + d[:, j])
            cur[:, j] = best
        done = n - 1 == i
        out[done] = cur[done, m[done] - 1] / (n[done] + m[done])
        prev = cur
    return out.reshape(len(As), len(Bs))


# ---------------------------------------------------------------- the prototype

class Params:
    """The prototype's constants (seconds, or ratios); see the report for each one's reason."""
    def __init__(self, **kw):
        self.min_stretch, self.max_stretch = 0.6, 1.7   # a match's length / its example's
        self.max_run = 2            # stream steps in a row with the example held
        self.hold = 0.10            # s a best match must stay best before it fires
        self.refractory = 0.25      # s after a firing
        self.early_depth, self.early_ratio = 0.8, 0.9
        self.early = False
        self.early_rest = 1.0       # after an early firing, no other for this many times the rest of its example
        self.margin = 1.3           # threshold: margin x the farthest leave-one-out distance ...
        self.neg_fraction = 0.8     # ... at most this share of the nearest non-example distance
        self.floor_fraction = 0.5   # ... at least this share of it
        self.edge = 0.0             # teaching from a stretch: trim still ends (change energy < this per s)
        self.mark_edge = 0.12       # teaching from a mark: extent while the energy stays above this share of its peak
        self.mark_bridge = 0.2      # s of dips bridged
        self.mark_reach = 1.0       # s at most each side
        self.class_key = "distance" # "distance" or "ratio": how the nearest candidate is chosen
        self.stream_negatives = False
        self.norm = "lenm"            # a match's cost over 2 x its example's frames ("2m"), or over its
                                    # frames plus the example's ("lenm", SensorWah's: a path padded with
                                    # still frames after the movement keeps getting cheaper)
        self.max_len = 3.0          # s: a longer stretch teaches its most active max_len s
        self.trim = 0.1             # a stretch's ends where the change energy is under this share of its peak are left out
        self.wait_growing = False
        self.seg_on = 0.25          # a movement: change energy above this share of the examples' median peak ...
        self.seg_gap = 0.2          # ... until under half of that for this long (s)
        self.seg_slack = 0.3        # s: a match may begin this long before the movement
        self.seg_max = 1.5          # a movement longer than this times the longest example is decided then
        self.decide = "stream"      # "segment" or "stream"
        self.wait_bound = True      # wait while a path of another class that began within the candidate's
                                    # match could still end nearer (its cost so far / (2 m) is a lower bound)
        self.wait_guard = 0.2       # s: a path that began this close to the candidate's end is the next movement's
        self.wait_depth = 0.5       # ... and that has matched at least this share of its example
        self.max_wait = 0.6         # s after the candidate's best frame, fire anyway
        for k, v in kw.items():
            if not hasattr(self, k):
                raise KeyError(k)
            setattr(self, k, v)


def dtw_steps_pairs(As, Bs, norm="lenm"):
    """Whole-sequence distance with the prototype's steps (every step one frame of the first
    sequence, the stream; the second, the example, advances 0, 1 or 2 frames; weights 1, 2, 3),
    L1 cost, / (n + m). (len(As), len(Bs))."""
    P = [(i, j) for i in range(len(As)) for j in range(len(Bs))]
    n = np.array([len(As[i]) for i, _ in P]); m = np.array([len(Bs[j]) for _, j in P])
    N, M = n.max(), m.max()
    D = As[0].shape[1]
    A = np.zeros((len(P), N, D)); B = np.zeros((len(P), M, D))
    for k, (i, j) in enumerate(P):
        A[k, :len(As[i])] = As[i]; B[k, :len(Bs[j])] = Bs[j]
    C = np.full((len(P), M), np.inf)
    R = np.zeros((len(P), M), int)
    out = np.full(len(P), np.inf)
    for i in range(N):
        d = np.abs(A[:, i, None, :] - B).sum(-1)
        if i == 0:
            C = np.full((len(P), M), np.inf); C[:, 0] = 2 * d[:, 0]; R[:] = 0
        else:
            C, R = _step(C, R, d, 2, open_begin=False)
        done = n - 1 == i
        out[done] = C[done, m[done] - 1] / ((n[done] + m[done]) if norm == "lenm" else 2 * m[done])
    return out.reshape(len(As), len(Bs))


def _step(C, R, d, max_run, open_begin=True, S=None, now=0):
    """One stream frame of the column update, vectorised over rows (examples) and j."""
    inf = np.inf
    diag = np.empty_like(C); diag[:, 1:] = C[:, :-1]; diag[:, 0] = 0.0 if open_begin else inf
    skip = np.empty_like(C); skip[:, 2:] = C[:, :-2]; skip[:, :2] = inf
    up = np.where(R < max_run, C, inf)
    c_diag = diag + 2 * d
    c_up = up + d
    c_skip = skip + 3 * d
    best = c_diag
    which = np.zeros(C.shape, int)
    m = c_up < best; best = np.where(m, c_up, best); which[m] = 1
    m = c_skip < best; best = np.where(m, c_skip, best); which[m] = 2
    Rn = np.where(which == 1, R + 1, 0)
    if S is None:
        return best, Rn
    sd = np.empty_like(S); sd[:, 1:] = S[:, :-1]; sd[:, 0] = now
    ss = np.empty_like(S); ss[:, 2:] = S[:, :-2]; ss[:, :2] = now
    Sn = np.where(which == 0, sd, np.where(which == 1, S, ss))
    return best, Rn, Sn


class Model:
    """Examples (frames) per class, thresholds, and what the teach report says."""
    def __init__(self, classes, examples, labels, p):
        self.classes, self.examples, self.labels, self.p = classes, examples, labels, p
        self.thr = {}
        self.info = {}


def mark_extent(tt, V, centre, lo, hi, p):
    """The movement around a mark (lo..hi: where its peak is looked for): the change energy's
    peak in lo..hi, grown each side while the energy stays above p.mark_edge of the peak (dips
    under p.mark_bridge s bridged, at most p.mark_reach s a side)."""
    e = np.zeros(len(V))
    e[1:] = np.abs(np.diff(V, axis=0)).sum(1) * RATE
    e = np.convolve(e, np.ones(5) / 5, "same")
    idx = np.nonzero((tt >= lo) & (tt <= hi))[0]
    if len(idx) == 0:
        return None
    pk = idx[np.argmax(e[idx])]
    floor = e[pk] * p.mark_edge
    br, reach = int(p.mark_bridge * RATE), int(p.mark_reach * RATE)
    a, q = pk, 0
    while a > 0 and pk - a < reach:
        if e[a - 1] < floor:
            q += 1
            if q > br:
                break
        else:
            q = 0
        a -= 1
    a += q
    b, q = pk, 0
    while b < len(e) - 1 and b - pk < reach:
        if e[b + 1] < floor:
            q += 1
            if q > br:
                break
        else:
            q = 0
        b += 1
    b -= q
    return a, b


def change_energy(V):
    e = np.zeros(len(V))
    e[1:] = np.abs(np.diff(V, axis=0)).sum(1) * RATE
    return np.convolve(e, np.ones(5) / 5, "same")


def stretch_extent(tt, V, lo, hi, p):
    """A labelled stretch's frames, less its ends where the change energy stays under p.trim of
    the stretch's peak; at most p.max_len s (the most active stretch of that length)."""
    s = np.nonzero((tt >= lo) & (tt <= hi))[0]
    a, b = s[0], s[-1]
    e = change_energy(V)
    on = np.nonzero(e[a:b + 1] >= p.trim * e[a:b + 1].max())[0]
    a, b = a + on[0], a + on[-1]
    n = int(p.max_len * RATE)
    if b - a + 1 > n:
        cs = np.concatenate([[0], np.cumsum(e[a:b + 1])])
        k = int(np.argmax(cs[n:] - cs[:-n]))
        a, b = a + k, a + k + n - 1
    return a, b


def teach(takes, how="stretch", p=None, feat=None):
    """A model from the takes' labelled movements: each a stretch (its frames as they are), or a
    mark at its time (the extent found around it)."""
    p = p or Params()
    feat = feat or current_features
    examples, labels = [], []
    streams = []
    for tk in takes:
        tt, V = feat(tk.t, tk.acc, tk.gyro)
        streams.append((tk, tt, V))
        for m in tk.moves:
            if m.distractor:
                continue
            if how == "stretch":
                a, b = stretch_extent(tt, V, m.lo, m.hi, p)
            else:
                r = mark_extent(tt, V, m.time, m.time - 0.4, m.time + 0.4, p)
                if r is None:
                    continue
                a, b = r
            examples.append(V[a:b + 1]); labels.append(m.cls)
    classes = sorted(set(labels))
    model = Model(classes, examples, labels, p)
    model.peak_energy = float(np.median([change_energy(e).max() for e in examples]))
    learn_thresholds(model, streams)
    return model


def learn_thresholds(model, streams):
    """Per class: margin x its farthest leave-one-out distance, at most neg_fraction of the
    nearest thing that is no movement at all (a still device; a stretch of the teaching takes
    that overlaps no labelled movement of any class), at least floor_fraction of it."""
    p = model.p
    ex, lab = model.examples, np.array(model.labels)
    D = dtw_steps_pairs(ex, ex, p.norm)
    still = np.array([dtw_steps_pairs([np.zeros_like(e)], [e], p.norm)[0, 0] for e in ex])
    stream_neg = {c: np.inf for c in model.classes}
    if p.stream_negatives:
        for tk, tt, V in streams:
            dist, start = match_stream(model, V)
            moving = np.zeros(len(tt), bool)
            for m in tk.moves:
                moving |= (tt >= m.lo) & (tt <= m.hi)
            cum = np.concatenate([[0], np.cumsum(moving)])
            for e in range(len(ex)):
                ends = np.nonzero(np.isfinite(dist[:, e]))[0]
                if not len(ends):
                    continue
                st = start[ends, e]
                share = (cum[ends + 1] - cum[st]) / (ends - st + 1)
                v = dist[ends[share <= 0.2], e]
                if v.size:
                    stream_neg[lab[e]] = min(stream_neg[lab[e]], float(v.min()))
    for c in model.classes:
        ic = np.nonzero(lab == c)[0]
        oc = np.nonzero(lab != c)[0]
        loo = [min(D[i, j] for j in ic if j != i) for i in ic] if len(ic) > 1 else []
        neg = min(still[ic].min(), stream_neg[c])
        t = p.margin * max(loo) if loo else 0.5 * neg
        bound = "examples"
        if t > p.neg_fraction * neg:
            t, bound = p.neg_fraction * neg, "cap"
        elif t < p.floor_fraction * neg:
            t, bound = p.floor_fraction * neg, "floor"
        model.thr[c] = t
        model.info[c] = dict(loo=max(loo) if loo else None, still=float(still[ic].min()), stream=stream_neg[c],
                             other=float(D[np.ix_(oc, ic)].min()) if len(oc) else None, neg=neg, bound=bound)


def _templates(model):
    ex = model.examples
    E, M, Dm = len(ex), max(len(e) for e in ex), ex[0].shape[1]
    T = np.zeros((E, M, Dm))
    for k, e in enumerate(ex):
        T[k, :len(e)] = e
    return T, np.array([len(e) for e in ex])


def match_stream(model, V, thresholds=None):
    """The normalised end distance of every example at every frame (open-begin subsequence
    matching with the prototype's steps and length bounds): (frames, examples)."""
    p = model.p
    T, ml = _templates(model)
    E, M = len(ml), T.shape[1]
    C = np.full((E, M), np.inf); R = np.zeros((E, M), int); S = np.zeros((E, M), int)
    out = np.full((len(V), E), np.inf)
    start = np.zeros((len(V), E), int)
    rows = np.arange(E)
    for i in range(len(V)):
        d = np.abs(T - V[i]).sum(-1)
        C, R, S = _step(C, R, d, p.max_run, S=S, now=i)
        ln = i - S[rows, ml - 1] + 1
        ok = (ln >= p.min_stretch * ml) & (ln <= p.max_stretch * ml)
        out[i] = np.where(ok, C[rows, ml - 1] / ((ln + ml) if p.norm == "lenm" else 2 * ml), np.inf)
        start[i] = S[rows, ml - 1]
    return out, start


def recognise_frames(model, tt, V, trace=None):
    """The streaming recogniser over a take's frames: [(time, class, strength)]."""
    p = model.p
    T, ml = _templates(model)
    E, M = len(ml), T.shape[1]
    lab = np.array(model.labels)
    cls_of = np.array([model.classes.index(c) for c in model.labels])
    nc = len(model.classes)
    thr_e = np.array([model.thr[c] for c in model.labels])
    thr_c = np.array([model.thr[c] for c in model.classes])
    C = np.full((E, M), np.inf); R = np.zeros((E, M), int); S = np.zeros((E, M), int)
    rows = np.arange(E)
    jj = np.arange(1, M + 1)[None, :]
    valid = jj <= ml[:, None]
    early_j = np.ceil(p.early_depth * ml).astype(int)
    hold = int(round(p.hold * RATE))
    refr = int(round(p.refractory * RATE))
    fired = []
    best = None          # (key, ratio, class, tick)
    refractory_until = -1
    last_depth = np.zeros(nc)
    grew = np.full(nc, -10 ** 9)
    for i in range(len(V)):
        d = np.abs(T - V[i]).sum(-1)
        C, R, S = _step(C, R, d, p.max_run, S=S, now=i)
        ln_end = i - S[rows, ml - 1] + 1
        ok = (ln_end >= p.min_stretch * ml) & (ln_end <= p.max_stretch * ml)
        dist = np.where(ok, C[rows, ml - 1] / ((ln_end + ml) if p.norm == "lenm" else 2 * ml), np.inf)
        ratio_e = dist / thr_e
        # depth: the deepest example frame matched within the threshold so far (progress)
        ln = i - S + 1
        within = valid & (C <= thr_e[:, None] * ((ln + jj) if p.norm == "lenm" else 2 * jj)) & (ln <= p.max_stretch * jj + 2)
        depth_e = np.where(within.any(1), (M - np.argmax(within[:, ::-1], 1)) / ml, 0.0)
        cls_ratio = np.full(nc, np.inf); cls_dist = np.full(nc, np.inf); cls_depth = np.zeros(nc)
        np.minimum.at(cls_ratio, cls_of, ratio_e)
        np.minimum.at(cls_dist, cls_of, dist)
        np.maximum.at(cls_depth, cls_of, np.minimum(depth_e, 1.0))
        grew[cls_depth > last_depth] = i
        last_depth = cls_depth
        # early: most of an example matched, well
        early_c = np.full(nc, np.inf)
        if p.early:
            ej = early_j - 1
            ce = C[rows, ej]; le = i - S[rows, ej] + 1
            okE = (le >= p.min_stretch * (ej + 1)) & (le <= p.max_stretch * (ej + 1) + 2)
            re = np.where(okE, ce / (thr_e * ((le + ej + 1) if p.norm == "lenm" else 2 * (ej + 1))), np.inf)
            np.minimum.at(early_c, cls_of, re)
            early_e = int(np.argmin(re))
        if trace is not None:
            trace.append((tt[i], cls_ratio.copy(), cls_depth.copy()))
        # the best candidate since the last firing
        for c in range(nc):
            r = cls_ratio[c]
            if r <= 1:
                key = r if p.class_key == "ratio" else cls_dist[c]
                if best is None or key < best[0]:
                    e_best = np.nonzero(cls_of == c)[0][np.argmin(dist[cls_of == c])]
                    best = (key, r, c, i, S[e_best, ml[e_best] - 1])
        ready = best is not None and i - best[3] >= hold
        if ready and p.wait_bound and i - best[3] < int(p.max_wait * RATE):
            lb = C / (2 * ml[:, None]) if p.class_key != "ratio" else C / (2 * ml[:, None] * thr_e[:, None])
            other = (cls_of != best[2])[:, None] & valid & (S <= best[3] - int(p.wait_guard * RATE)) & (S >= best[4] - 2) \
                & (jj >= p.wait_depth * ml[:, None])
            if np.any(other & (lb < best[0])):
                ready = False
        e_c = int(np.argmin(early_c))
        early_go = early_c[e_c] <= p.early_ratio
        if not (ready or early_go):
            continue
        if i < refractory_until:
            continue
        if ready and p.wait_growing and not early_go:
            growing = [c for c in range(nc) if c != best[2] and 0.25 <= cls_depth[c] < 1 and i - grew[c] <= 2]
            if growing and i - best[3] < int(1.0 * RATE):
                continue
        rest = 0
        if early_go and (best is None or early_c[e_c] < best[1]):
            c, r = e_c, early_c[e_c]
            # the rest of the example is still to come: no firing before it has passed
            rest = int(p.early_rest * (ml[early_e] - early_j[early_e]))
        else:
            c, r = best[2], best[1]
        fired.append((tt[i], model.classes[c], 1 - 0.5 * min(r, 1)))
        best = None
        C[:] = np.inf
        refractory_until = i + max(refr, rest)
    return fired


def recognise(model, take, feat=None):
    feat = feat or current_features
    tt, V = feat(take.t, take.acc, take.gyro)
    return (recognise_segments if model.p.decide == "segment" else recognise_frames)(model, tt, V)


# ---------------------------------------------------------------- proposed features

class FeatureParams:
    def __init__(self, **kw):
        self.gravity = "slow"     # "slow": minus the 0.6 s average (SensorWah's); "none": kept; "rest": minus the
                                  # orientation held at the last rest, frozen while the device moves
        self.tau_g = 0.6
        self.knee = 0.4           # 0: no saturation
        self.mag_weight = 1.6
        self.gyro_weight = 0.4
        self.rest_energy = 1.0    # rest: the raw change (per s, compressed units) under this ...
        self.rest_time = 0.15     # ... for this long
        for k, v in kw.items():
            if not hasattr(self, k):
                raise KeyError(k)
            setattr(self, k, v)


def features(t, acc, gyro, fp=None):
    """GestureFeatures with the proposed changes (fp): the same filter, resampling and layout
    (7 values a frame) as current_features, which it equals with FeatureParams()."""
    fp = fp or FeatureParams()
    tc = 0.08
    n = len(t)
    x = np.column_stack([compress(acc, 1.0), fp.mag_weight * compress(np.linalg.norm(acc, axis=1) - 1, 1.0),
                         fp.gyro_weight * compress(gyro, 2.0)])
    filt = x[0].copy(); slow = filt[:3].copy(); ref = filt[:3].copy()
    times, out = [], []
    last_a = math.nan
    last = t[0]
    next_tick = math.ceil(t[0] / STEP) * STEP
    quiet = 0.0
    if next_tick == t[0]:
        times.append(t[0]); out.append(filt.copy()); next_tick += STEP
    for i in range(1, n):
        ti = t[i]
        prev = filt.copy()
        dt = STEP if math.isnan(last_a) else max(0.0, ti - last_a)
        k = 1 - math.exp(-dt / tc)
        filt += k * (x[i] - filt)
        if fp.gravity == "slow":
            slow += (1 - math.exp(-dt / fp.tau_g)) * (filt[:3] - slow)
            ref = slow
        elif fp.gravity == "rest":
            ch = np.abs(filt - prev).sum() / dt if dt > 0 else 0.0
            quiet = quiet + dt if ch < fp.rest_energy else 0.0
            slow += (1 - math.exp(-dt / fp.tau_g)) * (filt[:3] - slow)
            if quiet >= fp.rest_time:
                ref = slow.copy()
        else:
            ref = np.zeros(3)
        last_a = ti
        t0 = last
        last = ti
        while next_tick <= ti:
            u = (next_tick - t0) / (ti - t0) if ti > t0 else 1.0
            v = prev + u * (filt - prev)
            v[:3] -= ref
            if fp.knee > 0:
                for o in (0, 4):
                    r = np.linalg.norm(v[o:o + 3])
                    if r > 1e-12:
                        v[o:o + 3] *= fp.knee * math.tanh(r / fp.knee) / r
            times.append(next_tick); out.append(v)
            next_tick += STEP
    return np.array(times), np.array(out)


def causal_energy(V):
    """How fast the features change (per s), averaged over the last 3 frames: causal."""
    e = np.zeros(len(V))
    e[1:] = np.abs(np.diff(V, axis=0)).sum(1) * RATE
    c = np.cumsum(np.concatenate([[0, 0, 0], e]))
    return (c[3:] - c[:-3]) / 3


def recognise_segments(model, tt, V, trace=None):
    """Segment, then decide: a movement is where the change energy rises above `seg_on` times
    the taught examples' median peak energy, until it has stayed under half of that for
    `seg_gap` s. Meanwhile every example's open-begin match runs as before; per class the
    nearest match ending inside the movement (begun no earlier than `seg_slack` s before it)
    is kept. At the movement's end the nearest class within its threshold fires, once; none
    within its threshold: nothing."""
    p = model.p
    T, ml = _templates(model)
    E, M = len(ml), T.shape[1]
    cls_of = np.array([model.classes.index(c) for c in model.labels])
    nc = len(model.classes)
    thr_e = np.array([model.thr[c] for c in model.labels])
    on = p.seg_on * model.peak_energy
    off = 0.5 * on
    gap = int(round(p.seg_gap * RATE)); slack = int(round(p.seg_slack * RATE))
    C = np.full((E, M), np.inf); R = np.zeros((E, M), int); S = np.zeros((E, M), int)
    rows = np.arange(E)
    en = causal_energy(V)
    fired = []
    moving, seg_start, quiet = False, 0, 0
    best_d = np.full(E, np.inf)
    longest = int(p.seg_max * ml.max())
    for i in range(len(V)):
        d = np.abs(T - V[i]).sum(-1)
        C, R, S = _step(C, R, d, p.max_run, S=S, now=i)
        if not moving:
            if en[i] >= on:
                moving, seg_start, quiet = True, i, 0
                best_d[:] = np.inf
            else:
                continue
        st = S[rows, ml - 1]
        ln = i - st + 1
        ok = (ln >= p.min_stretch * ml) & (ln <= p.max_stretch * ml) & (st >= seg_start - slack)
        dist = np.where(ok, C[rows, ml - 1] / ((ln + ml) if p.norm == "lenm" else 2 * ml), np.inf)
        best_d = np.minimum(best_d, dist)
        quiet = quiet + 1 if en[i] < off else 0
        if quiet >= gap or i - seg_start >= longest:
            moving = False
            cd = np.full(nc, np.inf)
            np.minimum.at(cd, cls_of, best_d)
            cr = cd / np.array([model.thr[c] for c in model.classes])
            key = cr if p.class_key == "ratio" else cd
            key = np.where(cr <= 1, key, np.inf)
            c = int(np.argmin(key))
            if np.isfinite(key[c]):
                fired.append((tt[i], model.classes[c], 1 - 0.5 * cr[c]))
    return fired
