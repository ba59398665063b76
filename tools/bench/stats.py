#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The arithmetic of make bench and make demo: tools/bench/run and
tools/demo/run (in the guest) record raw samples - counters, clocks,
traces, npuctl's JSON - and this program turns them into figures.
Standard library only; tools/bench/test-stats checks it on fixed samples.

    stats.py teardown PREFIX TRACE CMD_TIMING
    stats.py lockholds KEY TRACE
    stats.py locktrace FILE T0_US
    stats.py made FLOWS PREFIX         npuctl flows --json: per connection
    stats.py first FLOWS HANDLE_KEY TO_HW_KEY
    stats.py earliest FLOWS PREFIX
    stats.py revive CAND0 CAND1 FLOWS PREFIX
    stats.py window A Z HZ WIN IRQ0 IRQ1 PORTS   demo: one window's JSON
    stats.py cputasks T0 T1 HZ CPUS [N]
    stats.py hrow MODE BEFORE AFTER
    stats.py pdiff BEFORE AFTER
    stats.py series TAG DIR IPERF_JSON [MODE T0 SAMPLES]

The functions below median to fps are the bench's figures from samples;
tools/lib/records.py (the bench's and the demo's JSON records) calls them
and window_fields, hrow_fields and pdiff_text.
The bench's subcommands print "KEY VALUE" lines (the value "null" when
there is none), as tools/bench/run's put takes them.  Numbers are printed
as jq prints them (an integral value without ".0"), rounded as the figure
says ("%.2f": C's printf; round: half away from zero, as jq's round)."""
import json
import math
import re
import sys


# ---------------------------------------------------------------- numbers --

def jqnum(x):
    """A number as jq 1.6 prints it: the shortest digits that read back as
    x, without exponent unless the number is below 1e-4 or has more than
    15 zeros past its digits ("1e+17", "123456789012345680"); integral
    values without ".0" ("-0" for minus zero).  x: int or float; returns
    a str."""
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "null"
    if math.isinf(x):
        x = math.copysign(sys.float_info.max, x)
    sign = "-" if math.copysign(1, x) < 0 else ""
    r = repr(abs(x))
    m = re.match(r"^(\d+)(?:\.(\d*))?(?:e([+-]\d+))?$", r)
    ip, fp, ex = m.group(1), m.group(2) or "", int(m.group(3) or 0)
    digits = (ip + fp).lstrip("0")
    lead = len(ip + fp) - len((ip + fp).lstrip("0"))
    if not digits:
        return sign + "0"
    digits = digits.rstrip("0")
    decpt = len(ip) + ex - lead	# the decimal point's place after digits[0..]
    if decpt <= -4 or decpt > len(digits) + 15:
        e = decpt - 1
        mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return "%s%se%s%02d" % (sign, mant, "-" if e < 0 else "+", abs(e))
    if decpt <= 0:
        return sign + "0." + "0" * -decpt + digits
    if decpt >= len(digits):
        return sign + digits + "0" * (decpt - len(digits))
    return sign + digits[:decpt] + "." + digits[decpt:]


def jqround(x):
    """jq's round (C's round()): x (float) to the nearest integer, halves
    away from zero; returns a float."""
    a = abs(x)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return math.copysign(r, x)


def num(s):
    """A sample as the shell passed it: a number (int or float) from its
    decimal text, or None for "", "null" or anything else."""
    if s is None:
        return None
    s = str(s).strip()
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s):
        return float(s)
    return None


def fixed(x, digits):
    """x (number or None) as C's printf "%.DIGITSf" writes it; None stays
    None."""
    return None if x is None else "%.*f" % (int(digits), x)


def jqvalue(s):
    """One value of the bench's KV file as its JSON: what jq's
    `tonumber? // (if . == "null" then null else . end)` makes of the text
    s (str): a number (integral ones as int), None, or s itself."""
    t = s.strip()
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
        x = float(t)
        if math.isinf(x):
            x = math.copysign(sys.float_info.max, x)
        return int(x) if x.is_integer() and abs(x) < 1e17 else x
    return None if s == "null" else s


# ---------------------------------------------------- the bench's figures --
# Each takes the samples as the shell wrote them (decimal text, "null" for
# none) and returns the figure's text, or None (JSON null) when a sample
# is missing or a denominator is 0.

def median(*runs):
    """The lower median of RUNS (numbers, any unit): the middle one sorted
    numerically, of an even count the lower of the two; returned as its
    text; None for no runs."""
    vals = [r for r in runs if num(r) is not None]
    if not vals:
        return None
    vals.sort(key=num)
    return vals[(len(vals) + 1) // 2 - 1]


def busy_pct(tot0, busy0, tot1, busy1):
    """CPU busy, % with one decimal, between two /proc/stat readings
    (jiffies: all CPUs' total and busy at the start and at the end); "0.0"
    when no time passed."""
    t0, b0, t1, b1 = (num(x) for x in (tot0, busy0, tot1, busy1))
    if None in (t0, b0, t1, b1):
        return None
    return fixed(100 * (b1 - b0) / (t1 - t0) if t1 > t0 else 0, 1)


def cpu_share_pct(digits, ns, ticks, hz):
    """NS (ns of the model's own time) as a % of TICKS (jiffies of CPU time,
    HZ of them a second), with DIGITS decimals."""
    n, t, h = num(ns), num(ticks), num(hz)
    if None in (n, t, h) or t == 0 or h == 0:
        return None
    return fixed(100 * n / (t * 1e9 / h), digits)


def quot(digits, numer, *dens):
    """NUMER divided by each of DENS in turn (left to right, as awk's
    a / b / c), with DIGITS decimals: e.g. us to s (quot 2 US 1000000),
    connections per second (quot 0 N*1000000 US), ms per poll
    (quot 2 US 1000 POLLS)."""
    x = num(numer)
    ds = [num(d) for d in dens]
    if x is None or None in ds or 0 in ds:
        return None
    for d in ds:
        x = x / d
    return fixed(x, digits)


def pct(digits, part, whole):
    """PART as a % of WHOLE (counts), with DIGITS decimals; -1 when WHOLE
    is 0 or less (nothing to share)."""
    p, w = num(part), num(whole)
    if p is None or w is None:
        return None
    return fixed(100 * p / w if w > 0 else -1, digits)


def fps(frames, us):
    """FRAMES per second over US microseconds, with no decimals; the
    seconds are rounded to ms first, as the window's "secs" figure is."""
    f, u = num(frames), num(us)
    if f is None or u is None:
        return None
    secs = float(fixed(u / 1e6, 3))
    return None if secs == 0 else fixed(f / secs, 0)


def put(key, v):
    """One "KEY VALUE" line; v None is "null", a number as jq prints it."""
    if v is None:
        v = "null"
    elif isinstance(v, (int, float)):
        v = jqnum(v)
    print("%s %s" % (key, v))


# --------------------------------------------------------- the teardown --

def trace_events(path):
    """The events of a tracefs trace (path; none if it cannot be read):
    (task-pid, t in ns on the trace's clock as a float, event name,
    {field: text}) in the file's order."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return
    for line in lines:
        w = line.split()
        for i, ev in enumerate(w):
            if i > 0 and re.fullmatch(r"npuep_[a-z_]+:", ev):
                break
        else:
            continue
        t = num(w[i - 1][:-1] if w[i - 1].endswith(":") else w[i - 1])
        fields = {}
        for tok in w[i + 1:]:
            k, eq, v = tok.partition("=")
            fields[k] = v if eq else tok
        yield w[0], (t or 0) * 1e9, ev[:-1], fields


def td_read(path):
    """The teardown's figures from the driver's tracepoints (path: the
    trace): a dict of the DESTROY calls (destroys; first_ns, last_entry_ns
    their first and last entry, last_ns their last return; inflight_max;
    cb_ns, cb_max_ns the time inside them), what they did (missed, queued,
    sync), the flow-table lock holds of the DESTROY callbacks and the
    destroy work (wait_ns, wait_max_ns, held_ns, held_max_ns) and command
    ring 0's backlog (ring0_backlog_max; ring0_drained_ns its last drain,
    ring0_drain_sleeps, ring0_drain_sleep_ns); ns on the trace's clock.
    None when the trace cannot be read."""
    try:
        open(path).close()
    except OSError:
        return None
    n = inflight = in_max = 0
    first = last_entry = last = cb = cb_max = 0.0
    w = w_max = h = h_max = bl_max = drained = sleeps = sleep_ns = 0
    ent, how = {}, {}
    for task, t, ev, f in trace_events(path):
        if ev == "npuep_flow_cls" and f.get("cmd") == "destroy":
            n += 1
            if not first or t < first:
                first = t
            last_entry = max(last_entry, t)
            inflight += 1
            in_max = max(in_max, inflight)
            ent[(task, f.get("port"), f.get("cookie"))] = t
        elif ev == "npuep_flow_cls_done" and f.get("cmd") == "destroy":
            inflight = max(inflight - 1, 0)
            last = max(last, t)
            k = (task, f.get("port"), f.get("cookie"))
            if k in ent:
                dt = t - ent.pop(k)
                cb += dt
                cb_max = max(cb_max, dt)
        elif ev == "npuep_flow_destroy":
            how[f.get("how")] = how.get(f.get("how"), 0) + 1
        elif ev == "npuep_ft_lock_hold" and re.match(r"(npuep_flow_destroy_cb|npuep_ft_dq_flush)\+",
                                                      f.get("caller", "")):
            wt, ht = num(f.get("wait_ns")) or 0, num(f.get("held_ns")) or 0
            w += wt
            w_max = max(w_max, wt)
            h += ht
            h_max = max(h_max, ht)
        elif ev == "npuep_cmd_backlog" and f.get("ring") == "0":
            bl_max = max(bl_max, num(f.get("len")) or 0)
        elif ev == "npuep_cmd_drained" and f.get("ring") == "0" and (num(f.get("moved")) or 0) > 0:
            drained = t
            sleeps += num(f.get("sleeps")) or 0
            sleep_ns += num(f.get("sleep_ns")) or 0
    r = {"destroys": n, "first_ns": first, "last_entry_ns": last_entry, "last_ns": last,
         "inflight_max": in_max, "cb_ns": cb, "cb_max_ns": cb_max, "missed": how.get("miss", 0),
         "queued": how.get("queued", 0), "sync": how.get("sync", 0), "wait_ns": w, "wait_max_ns": w_max,
         "held_ns": h, "held_max_ns": h_max, "ring0_backlog_max": bl_max, "ring0_drained_ns": drained,
         "ring0_drain_sleeps": sleeps, "ring0_drain_sleep_ns": sleep_ns}
    # the trace's clock is read in whole ns
    return {k: int("%.0f" % v) for k, v in r.items()}


def kv_file(path):
    """A "key value" per line file (the model's debugfs cmd_timing) as a
    dict of int; empty when it cannot be read."""
    d = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 2 and num(w[1]) is not None:
                    d[w[0]] = num(w[1])
    except OSError:
        pass
    return d


def teardown(prefix, trace, cmd_timing):
    """Prints the teardown's kernel-clock figures PREFIX.k_*: from TRACE
    (the driver's tracepoints, td_read) and CMD_TIMING (the model's
    debugfs cmd_timing: doorbells, runs, cmds, busy_ns, first_ns, last_ns,
    zero_ns), times in ms from the driver's first DESTROY (mono ns), lock
    times in ms summed and us longest."""
    T = td_read(trace) or {}
    C = kv_file(cmd_timing)
    f = T.get("first_ns", 0)

    def ms(x):		# ns on the mono clock, as ms after the first DESTROY
        return fixed((x - f) / 1e6, 2) if x and x > 0 and f > 0 else None

    def div(x, d, digits):
        return fixed(x / d, digits) if x is not None else None
    for k, v in (
            ("k_destroys", T.get("destroys")),
            ("k_first_to_last_destroy_ms", ms(T.get("last_entry_ns"))),
            ("k_last_destroy_return_ms", ms(T.get("last_ns"))),
            ("k_destroy_wait_sum_ms", div(T.get("wait_ns"), 1e6, 2)),
            ("k_destroy_wait_max_us", div(T.get("wait_max_ns"), 1e3, 0)),
            ("k_destroy_held_sum_ms", div(T.get("held_ns"), 1e6, 2)),
            ("k_destroy_held_max_us", div(T.get("held_max_ns"), 1e3, 0)),
            ("k_destroy_inflight_max", T.get("inflight_max")),
            ("k_destroy_cb_sum_ms", div(T.get("cb_ns"), 1e6, 2)),
            ("k_destroy_cb_max_us", div(T.get("cb_max_ns"), 1e3, 0)),
            ("k_destroys_missed", T.get("missed")),
            ("k_ring0_backlog_max", T.get("ring0_backlog_max")),
            ("k_ring0_drained_ms", ms(T.get("ring0_drained_ns"))),
            ("k_ring0_drain_sleeps", T.get("ring0_drain_sleeps")),
            ("k_ring0_drain_sleep_ms", div(T.get("ring0_drain_sleep_ns"), 1e6, 2)),
            ("k_destroys_queued", T.get("queued")),
            ("k_destroys_sync", T.get("sync")),
            ("k_hw_first_ms", ms(C.get("first_ns"))),
            ("k_hw_last_ms", ms(C.get("last_ns"))),
            ("k_hw_zero_ms", ms(C.get("zero_ns"))),
            ("k_hw_doorbells", C.get("doorbells")),
            ("k_hw_runs", C.get("runs")),
            ("k_hw_cmds", C.get("cmds")),
            ("k_hw_busy_ms", div(C.get("busy_ns"), 1e6, 2))):
        put("%s.%s" % (prefix, k), v)


def lockholds(key, trace):
    """Prints KEY: each flow-table lock hold of TRACE (npuep_ft_lock_hold
    events, the kernel's filter left those over 5 ms) as "caller ms", the
    ms with one decimal, comma separated; null for none."""
    holds = []
    try:
        with open(trace) as f:
            for line in f:
                m = re.match(r".*held_ns=([0-9]*) .*caller=([^ \n]*)", line)
                if m:
                    holds.append("%s %.1f ms" % (m.group(2), (num(m.group(1)) or 0) / 1e6))
    except OSError:
        pass
    put(key, ", ".join(holds) or None)


def leading_int(s):
    """awk's %d of a field s (str): the integer its leading number gives,
    0 for none."""
    m = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)", s or "")
    return int(float(m.group(0))) if m else 0


def locktrace(path, t0_us):
    """Prints the once-a-second lock trace (path: "EPOCHREALTIME
    longest_hold_us fp_conns" lines) as comments: seconds since T0_US (the
    load's start, us since the epoch) with one decimal, the longest hold,
    fp_conns."""
    t0 = num(t0_us)
    with open(path) as f:
        for line in f:
            w = line.split() + ["", "", ""]
            print("# lock trace %.1f s: max %d us, fp_conns %d" %
                  ((num(w[0]) or 0) - t0 / 1e6, leading_int(w[1]), leading_int(w[2])))


# --------------------------------------------------------- the flow maker --

def nearest_rank(vals):
    """VALS (numbers) sorted: (n, median, p99, max) by nearest rank (the
    median of an even count the upper of the two); (0, None, None, None)
    for none."""
    a = sorted(vals)
    n = len(a)
    if n == 0:
        return 0, None, None, None
    return n, a[math.ceil((n + 1) / 2) - 1], a[math.ceil(0.99 * n) - 1], a[n - 1]


def put_pct(prefix, name, vals):
    """Prints PREFIX.NAME.{n,median,p99,max} of VALS (nearest_rank)."""
    for k, v in zip(("n", "median", "p99", "max"), nearest_rank(vals)):
        put("%s.%s.%s" % (prefix, name, k), v)


def load_json(path, none=None):
    """The JSON of the file at path, or NONE when it cannot be read or
    parsed (npuctl failed: its figures are then those of no connection)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return none


def isnum(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def gt0(c, k):
    """c[k] > 0 as jq compares: a missing or non-number value is not."""
    return isnum(c.get(k)) and c[k] > 0


def fsum(vals):
    """vals (floats) added left to right, as jq's add; None for none."""
    s = None
    for v in vals:
        s = v if s is None else s + v
    return s


def round_to(x, digits):
    """jq's (x * 10^digits | round) / 10^digits; None stays None."""
    return None if x is None else jqround(x * 10 ** digits) / 10 ** digits


def made(flows, prefix):
    """Prints the connections npuflowd made once (from an event: state
    made, no remake, first punted frame, crossing and in-hardware times
    known) of FLOWS (npuctl flows --json): per connection, in ms, first
    punted frame to in hardware (to_hw), to the crossing frame (to_cross:
    the traffic's part), crossing to npuflowd handling it (queue), handling
    to in hardware (handle), and the frames punted (punted), each as
    PREFIX.X.{n,median,p99,max}; PREFIX.made, PREFIX.span_ms (the first
    crossing to the last in hardware) and PREFIX.handle_sum_ms, with one
    decimal."""
    cs = [c for c in load_json(flows, [])
          if c.get("state") == "made" and c.get("remakes") == 0 and gt0(c, "first_ns") and
          gt0(c, "cross_ns") and isnum(c.get("hw_ns")) and isnum(c.get("made_ns")) and
          c["hw_ns"] >= c["made_ns"]]
    put_pct(prefix, "to_hw", [(c["hw_ns"] - c["first_ns"]) / 1e6 for c in cs])
    put_pct(prefix, "to_cross", [(c["cross_ns"] - c["first_ns"]) / 1e6 for c in cs])
    put_pct(prefix, "queue", [(c["made_ns"] - c["cross_ns"]) / 1e6 for c in cs])
    put_pct(prefix, "handle", [(c["hw_ns"] - c["made_ns"]) / 1e6 for c in cs])
    put_pct(prefix, "punted", [c.get("punted") for c in cs])
    put(prefix + ".made", len(cs))
    span = (max(c["hw_ns"] for c in cs) - min(c["cross_ns"] for c in cs)) / 1e6 if cs else None
    put(prefix + ".span_ms", round_to(span, 1))
    put(prefix + ".handle_sum_ms", round_to(fsum((c["hw_ns"] - c["made_ns"]) / 1e6 for c in cs), 1))


def put_before(prefix, c):
    """Prints, of made connection C (or None), PREFIX.to_cross_ms: its
    first punted frame to its crossing frame (the traffic's part), and
    PREFIX.queue_ms: the crossing to npuflowd's handling, ms with two
    decimals; None for either without a crossing."""
    cross = c is not None and gt0(c, "cross_ns") and gt0(c, "first_ns")
    put(prefix + ".to_cross_ms", round_to((c["cross_ns"] - c["first_ns"]) / 1e6, 2) if cross else None)
    put(prefix + ".queue_ms", round_to((c["made_ns"] - c["cross_ns"]) / 1e6, 2) if cross else None)


def first(flows, handle_key, to_hw_key):
    """Prints, of the first made connection in FLOWS (npuctl flows --json,
    its order) that reached hardware, HANDLE_KEY: npuflowd's handling to in
    hardware, ms; and of the first with a first punted frame too,
    TO_HW_KEY: first punted frame to in hardware, ms with two decimals, and
    what came before the handling (put_before, keys beside TO_HW_KEY's)."""
    fl = load_json(flows, [])
    a = [c for c in fl if c.get("state") == "made" and gt0(c, "hw_ns")]
    put(handle_key, (a[0]["hw_ns"] - a[0]["made_ns"]) / 1e6 if a else None)
    b = [c for c in a if gt0(c, "first_ns")]
    put(to_hw_key, round_to((b[0]["hw_ns"] - b[0]["first_ns"]) / 1e6, 2) if b else None)
    put_before(to_hw_key.rsplit(".", 1)[0], b[0] if b else None)


def earliest(flows, prefix):
    """Prints, of the made connection of FLOWS (npuctl flows --json) whose
    first punted frame came first, PREFIX.to_hw_ms (first punted frame to
    in hardware) and PREFIX.handle_ms (npuflowd's handling to in
    hardware), ms with two decimals, and what came before the handling
    (put_before)."""
    cs = sorted((c for c in load_json(flows, [])
                 if c.get("state") == "made" and c.get("remakes") == 0 and gt0(c, "hw_ns") and
                 gt0(c, "first_ns") and gt0(c, "cross_ns")), key=lambda c: c["first_ns"])
    c = cs[0] if cs else None
    put(prefix + ".to_hw_ms", round_to((c["hw_ns"] - c["first_ns"]) / 1e6, 2) if c else None)
    put(prefix + ".handle_ms", round_to((c["hw_ns"] - c["made_ns"]) / 1e6, 2) if c else None)
    put_before(prefix, c)


def revive(cand0, cand1, flows, prefix):
    """Prints the revive figures: PREFIX.preexisting (CAND0's not_active
    candidates, npuctl candidates --json before the give-back); of CAND1's
    (after it) not_active candidates of a connection that were not in
    CAND0, per connection, the first to the last not_active punt (span,
    ms), the frames punted, and the ms between two of them (gap); and the
    ms between two frames of each made stream in hardware, both ways
    (interval, from FLOWS: npuctl flows --json, age over packets); each as
    PREFIX.X.{n,median,p99,max}."""
    c0, c1 = load_json(cand0, []), load_json(cand1, [])

    def key(c):
        return tuple(c.get(k) for k in ("ifindex", "saddr", "sport", "daddr", "dport"))
    old = {key(c) for c in c0}
    conns = {}
    for c in c1:
        if c.get("reason") == "not_active" and isnum(c.get("conn")) and c["conn"] >= 0 and key(c) not in old:
            conns.setdefault(c["conn"], []).append(c)
    span, frames, gap = [], [], []
    for conn in sorted(conns):
        g = conns[conn]
        s = (max(c["last_ns"] for c in g) - min(c["first_ns"] for c in g)) / 1e6
        fr = g[0]["frames"]
        for c in g[1:]:
            fr = fr + c["frames"]
        span.append(s)
        frames.append(fr)
        gap.append(s / max(fr - 1, 1))
    put(prefix + ".preexisting", len([c for c in c0 if c.get("reason") == "not_active"]))
    put_pct(prefix, "span", span)
    put_pct(prefix, "frames", frames)
    put_pct(prefix, "gap", gap)
    iv = [c["age_ns"] / 1e6 / (c["dirs"][0]["packets"] + c["dirs"][1]["packets"])
          for c in load_json(flows, []) if c.get("state") == "made" and gt0(c.get("dirs", [{}])[0], "packets")]
    put_pct(prefix, "interval", iv)


# ------------------------------------------------------------------ demo --

def irqdelta(irq0, irq1, ports):
    """The interrupts and softirqs of a window from two readings (IRQ0,
    IRQ1: /proc/interrupts, a "-- softirqs" line, /proc/softirqs, and
    optionally a "-- core_work" line and the model's debugfs core_work,
    "CPU WHAT N WHAT N..." lines): a dict of irqs_npu (the vectors of
    PORTS' queues, "<netdev>-q<N>", and every npusim vector), irqs_npu_cpus
    (the same, CPU by CPU), irqs_all, the NET_RX, NET_TX, TIMER and SCHED
    softirqs, each the count over all CPUs at IRQ1 less IRQ0's, and with
    core_work model_work_cpus: the model's work items, CPU by CPU."""
    pat = re.compile("(%s)-q[0-9]|npusim" % "|".join(ports.split()))
    r = []
    for path in (irq0, irq1):
        npu = allirq = 0
        cpus = []
        soft = {}
        work = {}
        s = False
        with open(path) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if line.startswith("-- softirqs"):
                    s = True
                elif line.startswith("-- core_work"):
                    s = "work"
                elif s == "work" and w[0].isdigit():
                    work[int(w[0])] = sum(leading_int(t) for t in w[2::2])
                elif not s and re.fullmatch(r"[0-9A-Z]+:", w[0]):
                    c = []
                    for tok in w[1:]:
                        if not tok.isdigit():
                            break
                        c.append(int(tok))
                    allirq += sum(c)
                    if pat.search(line):
                        npu += sum(c)
                        cpus = [x + y for x, y in zip(cpus or [0] * len(c), c)]
                elif s and w[0] in ("NET_RX:", "NET_TX:", "TIMER:", "SCHED:"):
                    soft[w[0][:-1].lower()] = sum(leading_int(t) for t in w[1:])
        r.append((npu, allirq, soft, cpus, work))
    (n0, a0, s0, c0, w0), (n1, a1, s1, c1, w1) = r
    d = {"irqs_npu": n1 - n0, "irqs_npu_cpus": [y - x for x, y in zip(c0 or [0] * len(c1), c1)],
         "irqs_all": a1 - a0}
    for k in ("net_rx", "net_tx", "timer", "sched"):
        d["softirq_" + k] = s1.get(k, 0) - s0.get(k, 0)
    if w1:
        d["model_work_cpus"] = [w1.get(c, 0) - w0.get(c, 0) for c in range(max(w1) + 1)]
    return d


def jqdump(v):
    """v (dict, list, number, str, None) as jq -c prints it."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + jqdump(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(jqdump(x) for x in v) + "]"
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return jqnum(v)


def window_fields(a, z, hz, win, irq0, irq1, ports):
    """One window of the demo as a dict: A and Z the two snap()
    readings (space separated: port 8's frames in and out, the fast path's
    forwarded, pc's and far's frames sent, CPU busy and total in ticks, the
    model's datapath_ns, the uptime in s, npuflowd's CPU ticks); HZ ticks
    a second; WIN the window's number; the interrupts between IRQ0 and IRQ1 (irqdelta, PORTS: the netdevs of
    ports 3 and 8).  The CPU as % busy (one decimal) and in ns.  A
    reading that is not nine numbers, or an HZ that is not one above 0, is
    a ValueError."""
    A, Z = a.split(), z.split()
    for name, r in (("a", A), ("z", Z)):
        if len(r) != 9 or None in (num(x) for x in r):
            raise ValueError("reading %s is not 9 numbers: %r" % (name, " ".join(r)))
    d = [num(Z[i]) - num(A[i]) for i in range(9) if i != 7]
    hin, hout, fwd, sent, busy, tot, model, fmd = d
    h = num(hz)
    if not h or h < 0:
        raise ValueError("hz %r is not a number above 0" % hz)
    w = {"host_frames_port8_in": hin, "host_frames_port8_out": hout,
         "fastpath_forwarded": fwd, "frames_sent_pc_far": sent,
         "cpu_busy_pct": jqround(1000 * busy / tot) / 10 if tot > 0 else None,
         "busy_ns": busy * 1e9 / h, "total_ns": tot * 1e9 / h, "model_ns": model,
         "npuflowd_ns": fmd * 1e9 / h if fmd >= 0 else None,
         "secs": float(fixed(float(Z[7]) - float(A[7]), 2)), "win": num(win)}
    w.update(irqdelta(irq0, irq1, ports))
    return w


def window(*args):
    """Prints window_fields(ARGS) as JSON."""
    print(jqdump(window_fields(*args)))


def cputasks(t0, t1, hz, cpus, n=8):
    """Prints what CPUS (a cpulist) ran between two readings T0 and T1 of
    "cat /proc/stat /proc/[0-9]*/task/[0-9]*/stat" (the demo's irqsnap):
    per CPU its ms of user, system, irq and softirq time and idle (the
    guest's ticks, HZ a second), then the N tasks that ran most and were
    last seen on one of them, "ms comm (tid, cpu C)"."""
    want = set()
    for r in cpus.split(","):
        a, _, b = r.partition("-")
        want.update(range(int(a), int(b or a) + 1))
    ms = 1000.0 / num(hz)

    def read(path):
        cpu, task = {}, {}
        with open(path) as f:
            for line in f:
                if line.startswith("cpu") and line[3:4].isdigit():
                    w = line.split()
                    cpu[int(w[0][3:])] = [int(x) for x in w[1:8]]
                elif ") " in line:
                    head, _, rest = line.rpartition(") ")
                    w = rest.split()
                    if len(w) > 36:
                        tid, comm = head.split(" (", 1)
                        task[tid] = (comm, int(w[11]) + int(w[12]), int(w[36]))
        return cpu, task

    c0, k0 = read(t0)
    c1, k1 = read(t1)
    for c in sorted(want & set(c0) & set(c1)):
        d = [y - x for x, y in zip(c0[c], c1[c])]
        print("cpu%d: user %.0f, system %.0f, irq %.0f, softirq %.0f, idle %.0f ms" % (
            c, (d[0] + d[1]) * ms, d[2] * ms, d[5] * ms, d[6] * ms, (d[3] + d[4]) * ms))
    rows = [(k1[t][1] - k0[t][1], k1[t][0], t, k1[t][2]) for t in k1 if t in k0 and k1[t][2] in want]
    for d, comm, tid, c in sorted(rows, key=lambda r: (-r[0], r[1]))[:int(n)]:
        if d > 0:
            print("%.0f ms %s (%s, cpu %d)" % (d * ms, comm, tid, c))


def hrow_fields(mode, before, after):
    """A mode's health row as a dict: BEFORE and AFTER two chealth
    readings ("TIMEOUTS FAILED CMD_ERRORS CMD_RECOVERIES FW_ERRORS
    FW_RECOVERIES RESYNCS", cumulative counts); each figure AFTER's less
    BEFORE's, a count a reading lacks 0 (the demo's chealth writes three
    when devlink shows no reporters).  A reading that is empty (chealth
    failed), has more than seven words or one that is not a count is a
    ValueError."""
    b, a = before.split(), after.split()
    for name, r in (("before", b), ("after", a)):
        if not 1 <= len(r) <= 7 or not all(x.isdigit() for x in r):
            raise ValueError("reading %s is not 1 to 7 counts: %r" % (name, " ".join(r)))
    d = [leading_int(a[i] if i < len(a) else "") - leading_int(b[i] if i < len(b) else "") for i in range(7)]
    return {"mode": mode, "timeouts": d[0], "failed": d[1], "cmd_recover": d[3],
            "cmd_errors": d[2], "fw_recover": d[5], "fw_errors": d[4], "resyncs": d[6]}


def hrow(mode, before, after):
    """Prints hrow_fields as JSON."""
    print(json.dumps(hrow_fields(mode, before, after)))


def reasons(path):
    """A punts() file ("reason count" lines) as a dict, in its order."""
    d = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2:
                d.setdefault(w[0], leading_int(w[1]))
    return d


def pdiff_text(before, after):
    """The punt reasons whose count grew between BEFORE and AFTER
    (punts() files, counts on ports 3 and 8), as "flow_miss 1,234,
    tcp_flags 6": by AFTER's count, highest first, then by name; "none"
    when none grew."""
    b, a = reasons(before), reasons(after)
    rows = sorted(("%s %d %d" % (k, b[k], a[k]), k, a[k] - b[k], a[k]) for k in b if k in a)
    rows.sort(key=lambda r: -r[3])
    out = ["%s %s" % (k, "{:,}".format(d)) for _, k, d, _ in rows if d > 0]
    return ", ".join(out) or "none"


def pdiff(before, after):
    """Prints pdiff_text."""
    print(pdiff_text(before, after))


def series(tag, direction, iperf_json, mode=None, t0=None, samples=None):
    """Prints a run's per-second series for results/demo-seconds.dat:
    "TAG DIR mbps END MBPS" per iperf3 interval (IPERF_JSON: iperf3 -J;
    END its end in s, two decimals; MBPS Mbit/s, one), then, with MODE, T0
    (the run's start, uptime s) and SAMPLES (the sampler's "uptime
    rx_packets tx_packets" of port 8), "MODE DIR host SECS FPS": the
    frames/s the host took on port 8 (in + out) between two samples, SECS
    since T0 at the later one."""
    try:
        ivs = load_json(iperf_json, {}).get("intervals") or []
        for iv in ivs:
            s = iv["sum"]
            print("%s %s mbps %s %s" % (tag, direction, jqnum(jqround(s["end"] * 100) / 100),
                                        jqnum(jqround(s["bits_per_second"] / 1e6 * 10) / 10)))
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        pass
    if mode is None:
        return
    t0 = float(t0)
    p = c = None
    with open(samples) as f:
        for line in f:
            w = [float(x) for x in line.split()[:3]]
            if len(w) < 3:
                continue
            if p is not None and w[0] > p:
                print("%s %s host %.2f %.1f" % (mode, direction, w[0] - t0, (w[1] + w[2] - c) / (w[0] - p)))
            p, c = w[0], w[1] + w[2]


COMMANDS = {"teardown": teardown, "lockholds": lockholds, "locktrace": locktrace,
            "made": made, "first": first, "earliest": earliest, "revive": revive,
            "window": window, "cputasks": cputasks, "hrow": hrow, "pdiff": pdiff, "series": series}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print("usage: stats.py %s ARGS... (see its header)" % "|".join(COMMANDS), file=sys.stderr)
        sys.exit(2)
    try:
        COMMANDS[sys.argv[1]](*sys.argv[2:])
    except OSError as e:
        sys.exit("stats.py: %s: %s" % (e.filename, e.strerror))
    except ValueError as e:
        sys.exit("stats.py %s: %s" % (sys.argv[1], e))
