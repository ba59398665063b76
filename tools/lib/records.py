#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The records of make bench and make demo: tools/bench/run and
tools/demo/run (in the guest) collect raw samples - counters, clocks,
readings' files - into plain files, and this program assembles them into
the JSON records the reports read (the arithmetic is
tools/bench/stats.py's).  Standard library only; tools/bench/test-stats
checks it on fixed samples.

    records.py bench KV OUT      results/bench-vm.json from tools/bench/run's
                                 KV file
    records.py demo RAW OUT      results/demo.json from tools/demo/run's
                                 directory of raw records

The bench's KV file holds two kinds of lines, in the order the run wrote
them:
    KEY VALUE                    a figure as it is (a number or words)
    @ KEY NAME=VALUE...          the raw samples of figure KEY: NAME says
                                 what was measured and in which unit (us,
                                 ns, jiffies, frames, conns, bytes, polls,
                                 hz; bps, once per run); an empty VALUE is
                                 a sample that was not taken
FIGURES below turns each figure's samples into its value, by the figure's
name: its unit, its rounding.  OUT has every KEY in the file's order, a
later KEY replacing an earlier one's value in place.

The demo's RAW directory (tools/demo/run writes it):
    run.kv                       "KEY VALUE" lines: the run's parameters
                                 and the guest's
    partition.json               tools/lib/partition.sh's part_json
    npuflowd_status              npuctl status at the end (text)
    NN-stream.kv, NN-load.kv,    one per record, NN its place: "KEY VALUE"
    NN-health.kv                 lines, the window's two snap() readings
                                 (a, z) and the counts read after it
    NN-KIND.irq0, .irq1,         a record's readings around its window
    .punts0, .punts1,            (irqsnap, punts), iperf3's JSON, npuload
    .iperf3.json, .client.json   client's

A raw file that cannot make a right record (missing, not text, no
samples, a sample or reading that is not a number) is one line on
standard error naming the file and what is wrong, and exit status 1; a
line of the KV file that is neither kind is reported with its line
number and left out."""
import json
import os
import re
import sys

sys.dont_write_bytecode = True	# no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import stats  # noqa: E402  (tools/bench/stats.py: the arithmetic)
from stats import busy_pct, cpu_share_pct, fps, jqvalue, load_json, median, num, pct, quot  # noqa: E402


class Bad(Exception):
    """A raw file that cannot make a right record; the message names the
    file and what is wrong."""


def text_lines(path):
    """The lines of the text file PATH; Bad when it cannot be read or is
    not text."""
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror))
    except UnicodeDecodeError:
        raise Bad("%s: not text" % path)


# ---------------------------------------------------------------- bench --

class Samples:
    """One "@ KEY NAME=VALUE..." line's samples: NAME to its values (str),
    in the line's order; an empty VALUE is None."""

    def __init__(self, words):
        self.d = {}
        for w in words:
            k, _, v = w.partition("=")
            self.d.setdefault(k, []).append(v if v != "" else None)

    def one(self, name):
        """NAME's sample as a number, None when missing or not taken."""
        v = self.d.get(name)
        return num(v[0]) if v else None

    def all(self, name):
        """NAME's samples (str), the ones taken."""
        return [v for v in self.d.get(name, []) if v is not None]

    def has(self, name):
        return name in self.d


def times(x, k):
    """x * k, None when x is None."""
    return None if x is None else x * k


def secs(digits):
    """Seconds from us, with DIGITS decimals."""
    return lambda s: quot(digits, s.one("us"), 1000000)


def ms(s):
    """Milliseconds, one decimal, from us or ns."""
    if s.has("ns"):
        return quot(1, s.one("ns"), 1000000)
    return quot(1, s.one("us"), 1000)


# (figure key pattern, its value from its Samples); the first match counts
FIGURES = [
    # iperf: the lower median of a label's runs
    (r"^iperf\.[^.]+\.(fwd|rev)_bps$", lambda s: median(*s.all("bps"))),
    # the model's own time as a % of the CPU time (jiffies, HZ a second)
    (r"\.model_busy_share_pct$", lambda s: cpu_share_pct(1, s.one("ns"), s.one("jiffies"), s.one("hz"))),
    (r"\.model_idle_cpu_pct$", lambda s: cpu_share_pct(3, s.one("ns"), s.one("jiffies"), s.one("hz"))),
    # % busy, one decimal, of JIFFIES (all CPUs' or the router's) passed
    (r"_(busy|idle)_pct$", lambda s: busy_pct(0, 0, s.one("jiffies"), s.one("busy"))),
    # the host's share of the frames
    (r"\.egress_host_share_pct$", lambda s: pct(4, s.one("host_frames"), s.one("frames"))),
    (r"\.host_share_pct$", lambda s: pct(3, s.one("host_frames"), s.one("frames"))),
    (r"\.wire_fps$", lambda s: fps(s.one("frames"), s.one("us"))),
    (r"\.router_us_per_frame$",
     lambda s: quot(2, times(s.one("jiffies"), 1000000), s.one("hz"), s.one("frames"))),
    # scale: NS of CPU over the window of US, % of one vCPU
    (r"^scale\..*_pct$", lambda s: quot(2, times(s.one("ns"), 100), times(s.one("us"), 1000))),
    # connections a second: all of them, or 90 % of them
    (r"\.hw90_per_s$", lambda s: quot(0, times(s.one("conns"), 900000), s.one("us"))),
    (r"_per_s$", lambda s: quot(0, times(s.one("conns"), 1000000), s.one("us"))),
    (r"\.us_per_conn$", lambda s: quot(1, s.one("us"), s.one("conns"))),
    (r"\.not_active_per_conn$", lambda s: quot(1, s.one("frames"), s.one("conns"))),
    (r"_b_per_conn$", lambda s: quot(0, s.one("bytes"), s.one("conns"))),
    # teardown: ms a poll
    (r"\.poll_ms$", lambda s: quot(2, s.one("us"), 1000, s.one("polls"))),
    (r"_ms$", ms),
    # durations: ms resolution for the stream windows and the flower
    # batches, 10 ms for the loads, 100 ms for the scale section's
    (r"^(stream|pppoe|flower)\..*secs$", secs(3)),
    (r"^(ftload|flowmaker)[^.]*\..*_secs$", secs(2)),
    (r"^scale\..*_secs$", secs(1)),
]


def figure(key, words):
    """The value (str, or None) of figure KEY from its samples (WORDS:
    "NAME=VALUE")."""
    for pat, fn in FIGURES:
        if re.search(pat, key):
            return fn(Samples(words))
    print("records: no rule for figure %s" % key, file=sys.stderr)
    return None


def bench(kv, out):
    """tools/bench/run's KV file into OUT (JSON); prints "# KEY = VALUE"
    for each figure made from samples.  Bad for a file without samples
    and for a sample that is not NAME=NUMBER, NAME=null or NAME=."""
    d = {}
    for n, line in enumerate(text_lines(kv), 1):
        if line.startswith("@ "):
            w = line.split()
            if len(w) < 2:
                raise Bad("%s:%d: a samples line without its figure" % (kv, n))
            for x in w[2:]:
                name, eq, v = x.partition("=")
                if not name or not eq or (v not in ("", "null") and num(v) is None):
                    raise Bad("%s:%d: sample %r of %s is not NAME=NUMBER" % (kv, n, x, w[1]))
            key = w[1]
            v = figure(key, w[2:])
            v = "null" if v is None else v
            print("# %s = %s" % (key, v))
        else:
            m = re.match(r"^(\S+) (.*)$", line)
            if not m:
                print("records.py: %s:%d: not \"KEY VALUE\" nor \"@ KEY NAME=VALUE...\", left out: %r"
                      % (kv, n, line[:60]), file=sys.stderr)
                continue
            key, v = m.group(1), m.group(2)
        d[key] = jqvalue(v)
    if not d:
        raise Bad("no samples in %s" % kv)
    with open(out, "w") as f:
        f.write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------- demo --

def kv_file(path):
    """A "KEY VALUE" per line file as a dict (VALUE the rest of the line,
    "" when none); {} when it cannot be read."""
    d = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                if k:
                    d[k] = v
    except OSError:
        pass
    except UnicodeDecodeError:
        raise Bad("%s: not text" % path)
    return d


def read_text(path):
    try:
        with open(path) as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def jqtyped(v):
    """v with each integral float an int, as jq prints it (1e9, not
    1000000000.0)."""
    if isinstance(v, dict):
        return {k: jqtyped(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jqtyped(x) for x in v]
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e17:
        return int(v)
    return v


def intval(s):
    """A count as the shell wrote it: an int or float, None when not one."""
    return num(s)


def window(r, hz):
    """The window fields of a record R: its a, z, win and ports, its files
    .irq0 and .irq1; HZ run.kv's."""
    h = num(hz)
    if not h or h < 0:
        raise Bad("%s: hz %r is not a number above 0" % (os.path.join(os.path.dirname(r["_base"]), "run.kv"), hz))
    try:
        return stats.window_fields(r.get("a", ""), r.get("z", ""), hz, r.get("win"),
                                   r["_base"] + ".irq0", r["_base"] + ".irq1", r.get("ports", ""))
    except ValueError as e:
        raise Bad("%s.kv: %s" % (r["_base"], e))


def punted(r):
    """The punt reasons that grew over R's run: its files .punts0, .punts1."""
    return stats.pdiff_text(r["_base"] + ".punts0", r["_base"] + ".punts1")


def stream(r, hz):
    """One iperf3 stream's record."""
    ip = load_json(r["_base"] + ".iperf3.json") or {}
    end = ip.get("end") if isinstance(ip, dict) else None
    retr = ((end or {}).get("sum_sent") or {}).get("retransmits")
    rec = {"run": r.get("run", ""), "dir": r.get("dir", ""), "forwarding": r.get("forwarding", ""),
           "bits_per_second": intval(r.get("bits_per_second")),
           "window_s": [intval(x) for x in r.get("window_s", "").split()]}
    rec.update(window(r, hz))
    rec.update({"fp_conns_end": intval(r.get("fp_conns_end")),
                "hw_fp_conns_end": intval(r.get("hw_fp_conns_end")),
                "punted_ports_3_8": punted(r), "revived": intval(r.get("revived")),
                "retransmits": None if retr is False else retr})
    return rec


def load(r, hz):
    """One npuload run's record."""
    cli = load_json(r["_base"] + ".client.json")
    if isinstance(cli, list):	# jq's --slurpfile: the file's first value
        cli = cli[0] if cli else None
    rec = {"forwarding": r.get("forwarding", ""), "client": cli,
           "window_s": [intval(x) for x in r.get("window_s", "").split()]}
    rec.update(window(r, hz))
    rec.update({"fp_conns_s20": intval(r.get("fp_conns_s20")),
                "hw_fp_conns_s20": intval(r.get("hw_fp_conns_s20")),
                "hw_fp_conns_peak": intval(r.get("hw_fp_conns_peak")),
                "punted_ports_3_8": punted(r), "revived": intval(r.get("revived"))})
    return rec


def health(r):
    try:
        return stats.hrow_fields(r.get("mode", ""), r.get("before", ""), r.get("after", ""))
    except ValueError as e:
        raise Bad("%s.kv: %s" % (r["_base"], e))


def demo(raw, out):
    """tools/demo/run's RAW directory into OUT (results/demo.json)."""
    p = kv_file(os.path.join(raw, "run.kv"))
    hz = p.get("hz")
    part = load_json(os.path.join(raw, "partition.json")) or {}
    part["described"] = p.get("partition_described", "")
    runs = {"stream": [], "load": [], "health": []}
    try:
        names = sorted(os.listdir(raw))
    except OSError as e:
        raise Bad("%s: %s" % (raw, e.strerror))
    for name in names:
        m = re.fullmatch(r"\d+-(stream|load|health)\.kv", name)
        if not m:
            continue
        r = kv_file(os.path.join(raw, name))
        r["_base"] = os.path.join(raw, name[:-3])
        kind = m.group(1)
        runs[kind].append(stream(r, hz) if kind == "stream" else load(r, hz) if kind == "load" else health(r))
    if not any(runs.values()):
        raise Bad("%s: no runs (no NN-stream.kv, NN-load.kv or NN-health.kv)" % raw)
    w = [intval(x) for x in p.get("window_s", "").split()]
    lw = [intval(x) for x in p.get("load_window_s", "").split()]
    d = {"date": p.get("date", ""), "commit": p.get("commit", ""), "run_id": p.get("run_id", ""),
         "guest": {"kernel": p.get("kernel", ""), "cpus": intval(p.get("cpus")), "hz": intval(hz),
                   "debug_alloc": p.get("debug_alloc", ""), "cmdline": p.get("cmdline", "")},
         "partition": part,
         "params": {"modes": p.get("modes", "").split(), "stream_secs": intval(p.get("stream_secs")),
                    "window_s": w, "conns": intval(p.get("conns")),
                    "load_secs": intval(p.get("load_secs")), "load_window_s": lw,
                    "npuflowd_args": p.get("npuflowd_args", "")},
         "devlink": p.get("devlink", ""), "streams": runs["stream"], "connections": runs["load"],
         "health": runs["health"], "npuflowd_status": read_text(os.path.join(raw, "npuflowd_status")) or "",
         "per_second": "demo-seconds.dat"}
    with open(out, "w") as f:
        f.write(json.dumps(jqtyped(d), indent=2, ensure_ascii=False) + "\n")


COMMANDS = {"bench": bench, "demo": demo}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in COMMANDS:
        print("usage: records.py bench KV OUT | demo RAW OUT (see its header)", file=sys.stderr)
        sys.exit(2)
    try:
        COMMANDS[sys.argv[1]](*sys.argv[2:])
    except Bad as e:
        sys.exit("records.py: %s" % e)
    except OSError as e:
        sys.exit("records.py: %s: %s" % (e.filename, e.strerror))
