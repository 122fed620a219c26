#!/usr/bin/env python3
"""Lean MCP driver: a server's own cost per call, without an SDK client's overhead.

Starts each MCP stdio server of a spec, does the initialize handshake (initialize, then the
notifications/initialized notification), then for each query sends `warmup` calls and `calls`
timed calls one at a time (the next request is written when the previous response line has
arrived) and measures:
  - round-trip latency per call (write of the request line to the end of the response line):
    median and p90;
  - the server's CPU time per call: utime+stime of /proc/PID/stat (all its threads, clock ticks)
    after minus before the timed calls, divided by the calls; and the same from the sum of
    /proc/PID/task/*/schedstat (run time in ns of the live threads: finer, but a thread that
    exits in between is missed), as a cross-check;
  - this driver's own CPU per call (what the client side costs here).
The client does no schema validation and parses a response only after its time is taken.

Rounds: every round starts each server once (one long-lived process for all queries), the
servers in alternating order, so load changes on a shared machine hit both alike. The report
gives, per query and server, the median over rounds of each round's figures.

usage: mcp_lean.py SPEC.json [-o RESULT.json] [-t TABLE.md]
SPEC: {"rounds": R, "warmup": W,
       "servers": {"NAME": ["command", "arg", ...], ...},
       "queries": [{"name": "list", "calls": N, "warmup": W?,
                    "per_server": {"NAME": {"tool": "...", "args": {...}, "calls": N?, "warmup": W?,
                                            "label": "..."}
                                   or {"method": "ping"}}}, ...],
       "ratios": [["QUERY", "SERVER_A/TOOL_LABEL", "SERVER_B/TOOL_LABEL"], ...]}
A query may name several variants for one server with "NAME#variant" keys.
"""

import json
import os
import statistics
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, name, command):
        self.name = name
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.win = self.proc.stdin.fileno()
        self.rout = self.proc.stdout.fileno()
        self.buf = bytearray()
        self.next_id = 1

    def _read_line(self):
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[:nl + 1]
                return line
            chunk = os.read(self.rout, 1 << 20)
            if not chunk:
                raise RuntimeError(f"{self.name}: the server closed its output")
            self.buf += chunk

    def _write(self, data):
        view = memoryview(data)
        while view:
            n = os.write(self.win, view)
            view = view[n:]

    def request_raw(self, method, params):
        """Sends one request; returns (the raw response line, nanoseconds to get it)."""
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        key = f'"id":{rid},'.encode()
        t0 = time.perf_counter_ns()
        self._write(data)
        while True:
            line = self._read_line()
            # Our own responses carry "id":N right after "jsonrpc"; the SDK's put it last. A cheap
            # substring check keeps the timed path free of JSON parsing; the id is verified below.
            if key in line or f'"id":{rid}}}'.encode() in line:
                took = time.perf_counter_ns() - t0
                break
            self._answer_server_message(line)
        reply = json.loads(line)
        if reply.get("id") != rid:
            raise RuntimeError(f"{self.name}: response id {reply.get('id')} for request {rid}")
        return reply, took

    def _answer_server_message(self, line):
        # A notification (logging, progress) needs nothing; a request from the server (roots/list,
        # say: this client declares no capabilities) gets method-not-found.
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if "method" in msg and "id" in msg:
            self._write((json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": -32601, "message": "not supported"}}) + "\n").encode())

    def handshake(self):
        reply, _ = self.request_raw("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "mcp-lean", "version": "1"}})
        if "result" not in reply:
            raise RuntimeError(f"{self.name}: initialize failed: {reply}")
        self._write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        tools, _ = self.request_raw("tools/list", {})
        return [t["name"] for t in tools["result"]["tools"]]

    def cpu_ticks(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)

    def run_ns(self):
        total = 0
        task_dir = f"/proc/{self.proc.pid}/task"
        for tid in os.listdir(task_dir):
            try:
                with open(f"{task_dir}/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass  # the thread ended meanwhile
        return total

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def call(server, q):
    if "method" in q:
        return server.request_raw(q["method"], q.get("params", {}))
    return server.request_raw("tools/call", {"name": q["tool"], "arguments": q.get("args", {})})


def describe(reply):
    """What a reply held: bytes of its result, isError, truncated (ours says so)."""
    result = reply.get("result")
    if result is None:
        return {"error": reply.get("error")}
    out = {"result_bytes": len(json.dumps(result, separators=(",", ":")))}
    if "content" in result:
        out["is_error"] = result.get("isError") is True
        sc = result.get("structuredContent") or {}
        if isinstance(sc, dict) and "truncated" in sc:
            out["truncated"] = sc["truncated"]
            for k in ("shown", "total", "total_lines"):
                if k in sc:
                    out[k] = sc[k]
        text = result["content"][0].get("text", "") if result["content"] else ""
        out["text_bytes"] = len(text.encode())
        if out["is_error"]:
            out["text"] = text[:300]
    return out


def measure(server, q, calls, warmup):
    for _ in range(warmup):
        reply, _ = call(server, q)
    ticks0, ns0, own0 = server.cpu_ticks(), server.run_ns(), os.times()
    lat = []
    reply = None
    for _ in range(calls):
        reply, took = call(server, q)
        lat.append(took)
    ticks1, ns1, own1 = server.cpu_ticks(), server.run_ns(), os.times()
    lat.sort()
    own = (own1.user - own0.user) + (own1.system - own0.system)
    return {
        "calls": calls,
        "median_ms": statistics.median(lat) / 1e6,
        "p90_ms": lat[min(len(lat) - 1, int(len(lat) * 0.9))] / 1e6,
        "cpu_ms": (ticks1 - ticks0) * 1000.0 / CLK_TCK / calls,
        "cpu_ticks": ticks1 - ticks0,
        "sched_cpu_ms": (ns1 - ns0) / 1e6 / calls,
        "client_cpu_ms": own * 1000.0 / calls,
        "reply": describe(reply),
    }


def variants(query):
    """(server name, variant key, request) for each per_server entry."""
    for key, q in query["per_server"].items():
        yield key.split("#", 1)[0], key, q


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    spec_path, out_path, table_path = args[0], None, None
    i = 1
    while i < len(args):
        if args[i] == "-o":
            out_path = args[i + 1]
        elif args[i] == "-t":
            table_path = args[i + 1]
        else:
            print(f"mcp_lean: unknown argument {args[i]}", file=sys.stderr)
            return 2
        i += 2
    with open(spec_path) as f:
        spec = json.load(f)
    rounds, warmup = spec.get("rounds", 3), spec.get("warmup", 20)
    names = list(spec["servers"])
    results = {}  # query -> variant key -> [round results]
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            server = Server(name, spec["servers"][name])
            try:
                tools = server.handshake()
                for query in spec["queries"]:
                    for sname, key, q in variants(query):
                        if sname != name:
                            continue
                        if "tool" in q and q["tool"] not in tools:
                            raise RuntimeError(f"{name} has no tool {q['tool']} (has {tools})")
                        calls = q.get("calls", query.get("calls", 100))
                        res = measure(server, q, calls, q.get("warmup", query.get("warmup", warmup)))
                        results.setdefault(query["name"], {}).setdefault(key, []).append(res)
                        print(f"mcp_lean: round {r + 1}/{rounds} {query['name']:>6} {key:<28} "
                              f"median {res['median_ms']:8.3f} ms  p90 {res['p90_ms']:8.3f} ms  "
                              f"cpu {res['cpu_ms']:8.3f} ms ({res['sched_cpu_ms']:.3f})  "
                              f"client {res['client_cpu_ms']:.3f} ms", file=sys.stderr)
            finally:
                server.close()

    def med(runs, field):
        return statistics.median(run[field] for run in runs)

    summary = {}
    for qname, by_key in results.items():
        summary[qname] = {key: {f: med(runs, f) for f in (
            "median_ms", "p90_ms", "cpu_ms", "sched_cpu_ms", "client_cpu_ms")} | {
            "calls": runs[0]["calls"], "rounds": len(runs), "reply": runs[-1]["reply"],
            "cpu_ms_rounds": [round(run["cpu_ms"], 4) for run in runs]}
            for key, runs in by_key.items()}
    doc = {"spec": spec, "summary": summary, "rounds": results}
    if out_path:
        with open(out_path, "w") as f:
            json.dump(doc, f, indent=1)

    lines = [f"Lean driver (bench/mcp_lean.py): {rounds} rounds, medians over rounds; per round "
             f"{warmup} warm-up calls, then N timed calls one at a time on one long-lived server.",
             "", "| query | server/tool | N | latency median | p90 | server CPU/call "
             "(stat) | (schedstat) | result bytes |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for query in spec["queries"]:
        for _, key, q in variants(query):
            s = summary.get(query["name"], {}).get(key)
            if s is None:
                continue
            label = q.get("label", key + " " + q.get("tool", q.get("method", "")))
            reply = s["reply"]
            note = ""
            if reply.get("is_error"):
                note = " (error)"
            elif reply.get("truncated"):
                note = " (truncated)"
            lines.append(f"| {query['name']} | {label} | {s['calls']} | {s['median_ms']:.3f} ms | "
                         f"{s['p90_ms']:.3f} ms | {s['cpu_ms']:.3f} ms | {s['sched_cpu_ms']:.3f} ms"
                         f" | {reply.get('result_bytes', 'n/a')}{note} |")
    ratios = spec.get("ratios", [])
    if ratios:
        lines += ["", "| query | ratio (B / A) | latency | server CPU (stat) | (schedstat) |",
                  "|---|---|---:|---:|---:|"]
        for qname, a, b in ratios:
            sa, sb = summary.get(qname, {}).get(a), summary.get(qname, {}).get(b)
            if not sa or not sb:
                continue
            def ratio(field):  # "-" when A's CPU was below the clock tick in every round
                return f"{sb[field] / sa[field]:.2f}x" if sa[field] > 0 else "-"
            lines.append(f"| {qname} | {b} / {a} | {ratio('median_ms')} | {ratio('cpu_ms')} | "
                         f"{ratio('sched_cpu_ms')} |")
    table = "\n".join(lines) + "\n"
    if table_path:
        with open(table_path, "w") as f:
            f.write(table)
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
