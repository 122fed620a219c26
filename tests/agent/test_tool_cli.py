#!/usr/bin/env python3
"""`ctxsearch tool`, `ctxsearch tools` and `ctxsearch mcp` as commands: exit codes and outputs.

Covers: `tools` (one line per tool), `tools --schema mcp|openai` (valid JSON, the five tools,
object schemas, OpenAI's {"type":"function","function":{...}} shape), `--schema openai-strict`
(every parameter required, the optional ones nullable, and null taken as absent); `tool NAME 'JSON'` printing
the structured result with exit 0 (real results from a small tree), a tool error as
{"error":{code,message,hint}} with exit 1 (not_found, invalid JSON arguments, a denied path),
arguments from stdin with '-', --text; usage errors with exit 2 and a message naming the input
(unknown flag, missing tool name, unknown tool, bad root, bad --context-window, a bad config file,
a flag without its value, extra arguments); the audit log (--log: one JSON line per call with the
documented fields, appended); `mcp` over a pipe (initialize, tools/list, a call, EOF ends it with
0, only the fields of the negotiated protocol version, batch ids echoed as written, names that
are not UTF-8 shown escaped and opened by that name, a log kept inside the root is hidden from the tools; hostile lines (oversized, deeply nested,
invalid UTF-8) each get a JSON error while the session goes on, and EOF during a running call
still answers it and exits 0; responses larger than the pipe arrive whole while the server's
writes are cut short by stops); a root given through a symlink (--root, or the working directory
as $PWD spells it), whose absolute paths are accepted in both spellings and only at a path
component boundary; and that other argv still reaches the rg-compatible CLI.

Run as `python3 tests/agent/test_tool_cli.py` with CTXSEARCH set to the binary.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from case_runner import Skip, case, check, run_cases  # noqa: E402

CTX = os.environ.get("CTXSEARCH", "")
TIMEOUT = 60
TOOLS = ["file_info", "find_files", "list_directory", "read_file", "search_files"]


def run(args, stdin=None, cwd=None):
    proc = subprocess.run([CTX] + args, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT, cwd=cwd)
    return proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")


class Tree:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="ctx-tool-cli-")
        self.root = os.path.join(self.tmp, "root")
        files = {
            "a.txt": "first line\nsecond line\n",
            "src/main.c": "int main(void) { return 0; }  /* marker_17 */\n",
            "notes/todo.md": "- marker_17 again\n",
            ".env": "SECRET=1\n",
        }
        for rel, text in files.items():
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def usage_error(args, *needles, stdin=None):
    rc, out, err = run(args, stdin=stdin)
    check(rc == 2, "%s: exit %d, want 2 (stderr %r)" % (args, rc, err))
    check(out == "", "%s: a usage error printed on stdout: %r" % (args, out))
    for needle in needles:
        check(needle in err, "%s: stderr should name %r: %r" % (args, needle, err))
    check("--help" in err, "%s: stderr should point at --help: %r" % (args, err))


def tool_error(args, code, stdin=None):
    rc, out, err = run(args, stdin=stdin)
    check(rc == 1, "%s: exit %d, want 1 (stdout %r, stderr %r)" % (args, rc, out, err))
    doc = json.loads(out)
    check(set(doc) == {"error"}, "%s: want only an error object: %r" % (args, doc))
    check(set(doc["error"]) == {"code", "message", "hint"}, "%s: error fields: %r" % (args, doc))
    check(doc["error"]["code"] == code, "%s: code %r, want %r" % (args, doc["error"]["code"], code))
    check(doc["error"]["message"], "%s: empty message" % (args,))
    return doc["error"]


# ----------------------------------------------------------------------------------------------
# tools


@case
def tools_lists_one_line_per_tool():
    rc, out, err = run(["tools"])
    check(rc == 0, "exit %d: %s" % (rc, err))
    names = sorted(line.split(":", 1)[0] for line in out.splitlines())
    check(names == TOOLS, "names %r" % names)


@case
def tools_schema_mcp_is_the_tools_list_array():
    rc, out, err = run(["tools", "--schema", "mcp"])
    check(rc == 0, "exit %d: %s" % (rc, err))
    check(out.count("\n") == 1, "one line of JSON expected")
    tools = json.loads(out)
    check(sorted(t["name"] for t in tools) == TOOLS, "names %r" % [t["name"] for t in tools])
    for t in tools:
        check(t["inputSchema"]["type"] == "object", "%s inputSchema" % t["name"])
        check(t["outputSchema"]["type"] == "object", "%s outputSchema" % t["name"])
        check(t["annotations"]["readOnlyHint"] is True, "%s readOnlyHint" % t["name"])
        check(t["description"], "%s description" % t["name"])
    rc2, out2, _ = run(["tools", "--schema=mcp"])
    check(rc2 == 0 and out2 == out, "--schema=mcp differs from --schema mcp")


@case
def tools_schema_openai_is_function_calling_shaped():
    rc, out, err = run(["tools", "--schema", "openai"])
    check(rc == 0, "exit %d: %s" % (rc, err))
    tools = json.loads(out)
    check(sorted(t["function"]["name"] for t in tools) == TOOLS, "names")
    mcp = {t["name"]: t for t in json.loads(run(["tools", "--schema", "mcp"])[1])}
    for t in tools:
        check(set(t) == {"type", "function"} and t["type"] == "function", "shape %r" % t)
        f = t["function"]
        check(set(f) == {"name", "description", "parameters"}, "function keys %r" % sorted(f))
        check(f["parameters"] == mcp[f["name"]]["inputSchema"], "%s parameters" % f["name"])
        check(f["description"] == mcp[f["name"]]["description"], "%s description" % f["name"])


@case
def tools_schema_openai_strict_requires_every_parameter_and_null_is_absent():
    rc, out, err = run(["tools", "--schema", "openai-strict"])
    check(rc == 0, "exit %d: %s" % (rc, err))
    tools = json.loads(out)
    mcp = {t["name"]: t for t in json.loads(run(["tools", "--schema", "mcp"])[1])}
    with Tree() as t:
        for tool in tools:
            f = tool["function"]
            name = f["name"]
            check(f["strict"] is True, "%s: strict" % name)
            params = f["parameters"]
            given = mcp[name]["inputSchema"]
            check(params["additionalProperties"] is False, "%s: additionalProperties" % name)
            check(params["required"] == list(given["properties"]), "%s: required %r" % (name, params["required"]))
            for key, schema in given["properties"].items():
                strict = params["properties"][key]
                if key in given.get("required", []):
                    check(strict == schema, "%s.%s changed" % (name, key))
                    continue
                check(strict["type"] == [schema["type"], "null"], "%s.%s type %r" % (name, key, strict["type"]))
                if "enum" in schema:
                    check(strict["enum"] == schema["enum"] + [None], "%s.%s enum" % (name, key))
                rest = {k: v for k, v in strict.items() if k not in ("type", "enum")}
                check(rest == {k: v for k, v in schema.items() if k not in ("type", "enum")},
                      "%s.%s other keywords" % (name, key))
            # A strict client sends null for what it leaves out: the same result as leaving it out.
            required = {"read_file": {"path": "a.txt"}, "file_info": {"path": "a.txt"},
                        "search_files": {"pattern": "marker_17"}, "find_files": {"pattern": "*.c"},
                        "list_directory": {}}[name]
            nulls = dict(required, **{k: None for k in params["required"] if k not in required})
            rc1, out1, err1 = run(["tool", name, "--root", t.root, json.dumps(required)])
            rc2, out2, err2 = run(["tool", name, "--root", t.root, json.dumps(nulls)])
            check(rc1 == 0 and rc2 == 0, "%s: exit %d / %d: %s %s" % (name, rc1, rc2, err1, out2))
            if name == "file_info":  # mtime and the like are the same file's
                out1, out2 = json.loads(out1), json.loads(out2)
            check(out1 == out2, "%s with nulls: %r\nwithout: %r" % (name, out2, out1))


@case
def tools_usage_errors():
    usage_error(["tools", "--schema", "yaml"], "yaml", "--schema")
    usage_error(["tools", "--schema"], "--schema")
    usage_error(["tools", "--allow", "*.c"], "--allow")
    usage_error(["tools", "--root", "/nonexistent/ctx-root"], "--root")
    usage_error(["tools", "extra"], "extra")


@case
def tools_schema_states_the_configured_max_results_limit():
    with Tree() as t:
        def maxima(*args):
            rc, out, err = run(["tools", "--schema"] + list(args))
            check(rc == 0, "exit %d: %s" % (rc, err))
            tools = json.loads(out)
            if args[0] == "mcp":
                schemas = {x["name"]: x["inputSchema"] for x in tools}
            else:
                schemas = {x["function"]["name"]: x["function"]["parameters"] for x in tools}
            return {name: s["properties"]["max_results"]["maximum"]
                    for name, s in schemas.items() if "max_results" in s["properties"]}
        want = {"search_files", "find_files", "list_directory"}
        check(set(maxima("mcp", "--root", t.root)) == want, "tools with max_results")
        check(set(maxima("mcp", "--root", t.root).values()) == {1000}, "the default cap")
        with open(os.path.join(t.root, ".ctxsearch.json"), "w") as f:
            f.write('{"limits": {"max_results": 7}}')
        for form in ("mcp", "openai", "openai-strict"):
            check(set(maxima(form, "--root", t.root).values()) == {7}, "%s: the root's cap" % form)
        config = os.path.join(t.tmp, "other.json")
        with open(config, "w") as f:
            f.write('{"limits": {"max_results": 12}}')
        check(set(maxima("mcp", "--config", config).values()) == {12}, "--config's cap")
        # The server publishes the same maximum, and clamps a larger value with a note.
        init = init_message()
        rc, replies, err = mcp_session(["--root", t.root], [
            init, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "find_files", "arguments": {"pattern": "**/*",
                                                            "max_results": 500}}}])
        listed = {x["name"]: x["inputSchema"] for x in replies[2]["result"]["tools"]}
        check(listed["find_files"]["properties"]["max_results"]["maximum"] == 7, "tools/list")
        text = replies[3]["result"]["content"][0]["text"]
        check("max_results=500 was taken as 7, this server's limit" not in text,
              "4 files, no cut: no note expected: %r" % text)


@case
def help_for_each_command():
    for command in ("mcp", "tool", "tools"):
        rc, out, err = run([command, "--help"])
        check(rc == 0, "%s --help: exit %d" % (command, rc))
        check(out.startswith("Usage: ctxsearch " + command), "%s --help: %r" % (command, out[:80]))
    rc, out, _ = run(["tool", "-h"])
    check(rc == 0 and "search_files" in out, "tool -h lists the tools")


# ----------------------------------------------------------------------------------------------
# tool


@case
def tool_prints_the_structured_result():
    with Tree() as t:
        rc, out, err = run(["tool", "read_file", "--root", t.root, '{"path": "a.txt"}'])
        check(rc == 0, "exit %d: stdout %r stderr %r" % (rc, out, err))
        doc = json.loads(out)
        check("second line" in json.dumps(doc), "read_file result lacks the file's line: %r" % doc)
        rc, out, err = run(["tool", "search_files", "--root", t.root, '{"pattern": "marker_17"}'])
        check(rc == 0, "search_files exit %d: %s %s" % (rc, out, err))
        text = json.dumps(json.loads(out))
        check("src/main.c" in text and "notes/todo.md" in text, "search result: %s" % text)


@case
def tool_reads_arguments_from_stdin_and_prints_text_with_text_flag():
    with Tree() as t:
        rc, out, err = run(["tool", "--root", t.root, "read_file", "-"],
                           stdin=b'{"path": "a.txt", "offset": 2}')
        check(rc == 0, "exit %d: %s %s" % (rc, out, err))
        check("second line" in out and "first line" not in out, "stdin arguments: %r" % out)
        rc, out, err = run(["tool", "read_file", "--text", "--root", t.root, '{"path": "a.txt"}'])
        check(rc == 0, "exit %d: %s" % (rc, err))
        check("first line" in out, "--text output: %r" % out)
        try:
            json.loads(out)
            is_json = True
        except ValueError:
            is_json = False
        check(not is_json, "--text printed JSON: %r" % out)


@case
def tool_defaults_the_root_to_the_working_directory():
    with Tree() as t:
        proc = subprocess.run([CTX, "tool", "read_file", '{"path": "a.txt"}'], cwd=t.root,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        check(proc.returncode == 0, "exit %d: %r" % (proc.returncode, proc.stderr))
        check(b"first line" in proc.stdout, "stdout %r" % proc.stdout)


@case
def tool_errors_exit_1_with_the_error_object():
    with Tree() as t:
        tool_error(["tool", "read_file", "--root", t.root, '{"path": "missing.txt"}'], "not_found")
        tool_error(["tool", "read_file", "--root", t.root, "{not json"], "invalid_argument")
        tool_error(["tool", "read_file", "--root", t.root, '{"path": "a.txt", "bogus": 1}'],
                   "invalid_argument")
        tool_error(["tool", "read_file", "--root", t.root, "-"], "invalid_argument", stdin=b"[1]")
        tool_error(["tool", "read_file", "--root", t.root, '{"path": "../x"}'], "outside_root")
        # Hidden paths are missing, whether protected by default or denied by a flag.
        tool_error(["tool", "read_file", "--root", t.root, '{"path": ".env"}'], "not_found")
        tool_error(["tool", "read_file", "--root", t.root, "--deny", "a.txt",
                    '{"path": "a.txt"}'], "not_found")


@case
def tool_usage_errors_exit_2_and_name_the_input():
    with Tree() as t:
        usage_error(["tool"], "missing the tool name")
        usage_error(["tool", "nope_tool", "--root", t.root, "{}"], "nope_tool", "read_file")
        usage_error(["tool", "read_file", "--bogus", "{}"], "--bogus")
        usage_error(["tool", "read_file", "--root"], "--root")
        usage_error(["tool", "read_file", "--root", os.path.join(t.tmp, "nope"), "{}"], "nope")
        usage_error(["tool", "read_file", "--root", os.path.join(t.root, "a.txt"), "{}"], "a.txt")
        usage_error(["tool", "read_file", "--root", t.root, "--context-window", "lots", "{}"],
                    "lots")
        usage_error(["tool", "read_file", "--root", t.root, "--context-window", "10", "{}"],
                    "--context-window")
        usage_error(["tool", "read_file", "--root", t.root, "--no-default-protect=yes", "{}"],
                    "--no-default-protect")
        usage_error(["tool", "read_file", "--root", t.root, "{}", "extra"], "extra")
        usage_error(["tool", "read_file", "--root", t.root, "--deny", "#x", "{}"], "#x")
        bad = os.path.join(t.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"deny": ["x"], "colour": 1}')
        usage_error(["tool", "read_file", "--root", t.root, "--config", bad, "{}"], bad, "colour")
        usage_error(["tool", "read_file", "--root", t.root, "--config",
                     os.path.join(t.tmp, "none.json"), "{}"], "none.json")


@case
def tool_reads_the_project_config_from_the_root():
    with Tree() as t:
        with open(os.path.join(t.root, ".ctxsearch.json"), "w") as f:
            f.write('{"deny": ["notes/"]}')
        tool_error(["tool", "read_file", "--root", t.root, '{"path": "notes/todo.md"}'],
                   "not_found")
        rc, out, err = run(["tool", "read_file", "--root", t.root, '{"path": "a.txt"}'])
        check(rc == 0, "exit %d: %s" % (rc, err))
        with open(os.path.join(t.root, ".ctxsearch.json"), "w") as f:
            f.write('{"deny": [')
        usage_error(["tool", "read_file", "--root", t.root, '{"path": "a.txt"}'],
                    ".ctxsearch.json")


@case
def a_project_file_in_the_root_cannot_lift_default_protection():
    # The tree being read must not unprotect its own .env; the operator can (--config, the flag).
    with Tree() as t:
        with open(os.path.join(t.root, ".env"), "w") as f:
            f.write("SECRET=1\n")
        with open(os.path.join(t.root, ".ctxsearch.json"), "w") as f:
            f.write('{"no_default_protect": true}')
        rc, out, err = run(["tool", "read_file", "--root", t.root, '{"path": ".env"}'])
        check(rc == 1 and "SECRET" not in out and '"not_found"' in out, "exit %d: %s" % (rc, out))
        check("no_default_protect" in err and "--no-default-protect" in err, "stderr: %r" % err)
        for extra in (["--config", os.path.join(t.root, ".ctxsearch.json")],
                      ["--no-default-protect"]):
            rc, out, err = run(["tool", "read_file", "--root", t.root] + extra +
                               ['{"path": ".env"}'])
            check(rc == 0 and "SECRET=1" in out, "%s: exit %d: %s" % (extra, rc, err))


@case
def tool_appends_one_audit_line_per_call():
    with Tree() as t:
        log = os.path.join(t.tmp, "audit.jsonl")
        with open(log, "w") as f:
            f.write('{"earlier": true}\n')
        rc, _, err = run(["tool", "read_file", "--root", t.root, "--log", log, '{"path":"a.txt"}'])
        check(rc == 0, "exit %d: %s" % (rc, err))
        rc, _, _ = run(["tool", "read_file", "--root", t.root, "--log", log, '{"path":"nope"}'])
        check(rc == 1, "exit %d" % rc)
        with open(log) as f:
            lines = f.read().splitlines()
        check(len(lines) == 3, "log lines: %r" % lines)
        check(json.loads(lines[0]) == {"earlier": True}, "the log was not appended to")
        want = {"time", "tool", "arguments", "ok", "error", "result_bytes", "tokens", "truncated",
                "policy_hidden", "cancelled", "duration_ms"}
        first, second = json.loads(lines[1]), json.loads(lines[2])
        check(set(first) == want, "fields %r" % sorted(first))
        check(first["tool"] == "read_file" and first["arguments"] == {"path": "a.txt"}, "%r" % first)
        check(first["ok"] is True and first["error"] is None and first["result_bytes"] > 0,
              "%r" % first)
        check(first["tokens"] > 0 and first["duration_ms"] >= 0, "%r" % first)
        check(second["ok"] is False and second["error"] == "not_found", "%r" % second)
        usage_error(["tool", "read_file", "--root", t.root, "--log", t.tmp, "{}"], t.tmp)


# ----------------------------------------------------------------------------------------------
# mcp and the rg CLI


def mcp_session(args, messages):
    lines = "".join(json.dumps(m) + "\n" for m in messages).encode()
    proc = subprocess.run([CTX, "mcp"] + args, input=lines, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT)
    replies = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    return proc.returncode, {r.get("id"): r for r in replies}, proc.stderr.decode(errors="replace")


def init_message():
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}}


@case
def mcp_serves_a_session_over_pipes_and_ends_at_eof():
    with Tree() as t:
        rc, replies, err = mcp_session(["--root", t.root], [
            init_message(),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "read_file", "arguments": {"path": "a.txt"}}},
        ])
        check(rc == 0, "exit %d: %s" % (rc, err))
        check(replies[1]["result"]["protocolVersion"] == "2025-06-18", "%r" % replies[1])
        check(sorted(x["name"] for x in replies[2]["result"]["tools"]) == TOOLS, "tools/list")
        result = replies[3]["result"]
        check(result["isError"] is False, "read_file failed: %r" % result)
        check("second line" in result["content"][0]["text"], "%r" % result)
        check("serving" in err and t.root in err, "the startup line on stderr: %r" % err)


@case
def mcp_sends_only_the_fields_of_the_negotiated_protocol_version():
    # outputSchema, Tool.title, serverInfo.title and structuredContent came with 2025-06-18,
    # annotations with 2025-03-26: an older client never sees a field its schema lacks.
    with Tree() as t:
        for version, annotations, newest in (("2024-11-05", False, False),
                                             ("2025-03-26", True, False),
                                             ("2025-06-18", True, True)):
            init = init_message()
            init["params"]["protocolVersion"] = version
            rc, replies, err = mcp_session(["--root", t.root], [
                init,
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": {"name": "read_file", "arguments": {"path": "a.txt"}}},
            ])
            check(rc == 0, "%s: exit %d: %s" % (version, rc, err))
            check(("title" in replies[1]["result"]["serverInfo"]) == newest, "%r" % replies[1])
            for tool in replies[2]["result"]["tools"]:
                check(("outputSchema" in tool) == newest, "%s: %r" % (version, tool))
                check(("title" in tool) == newest, "%s: %r" % (version, tool))
                check(("annotations" in tool) == annotations, "%s: %r" % (version, tool))
            result = replies[3]["result"]
            check(result["isError"] is False and "second line" in result["content"][0]["text"],
                  "%s: %r" % (version, result))
            check(("structuredContent" in result) == newest, "%s: %r" % (version, result))


@case
def mcp_batch_elements_echo_number_ids_as_written():
    with Tree() as t:
        ids = ["1.0", "1e2", "9007199254740993", "123456789012345678901234"]
        batch = "[" + ",".join('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % i for i in ids) + "]"
        init = init_message()
        init["params"]["protocolVersion"] = "2025-03-26"
        lines = (json.dumps(init) + "\n" + batch + "\n").encode()
        proc = subprocess.run([CTX, "mcp", "--root", t.root], input=lines, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT)
        out = proc.stdout.decode().splitlines()
        check(proc.returncode == 0 and len(out) == 2, "%r %r" % (out, proc.stderr))
        for i in ids:
            check('"id":%s,' % i in out[1], "id %s altered: %r" % (i, out[1]))


@case
def names_that_are_not_utf8_are_shown_escaped_everywhere_and_open_by_that_name():
    with Tree() as t:
        raw = os.path.join(t.root.encode(), b"n\xffx.txt")
        with open(raw, "wb") as f:
            f.write(b"marker_17 in a bad name\n")
        shown = "n\\xFFx.txt"
        calls = [("list_directory", {}), ("find_files", {"pattern": "**/*.txt"}),
                 ("search_files", {"pattern": "marker_17"}),
                 ("search_files", {"pattern": "marker_17", "output_mode": "count"}),
                 ("read_file", {"path": shown}), ("file_info", {"path": shown})]
        messages = [init_message()] + [
            {"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
             "params": {"name": name, "arguments": args}} for i, (name, args) in enumerate(calls)]
        lines = "".join(json.dumps(m) + "\n" for m in messages).encode()
        proc = subprocess.run([CTX, "mcp", "--root", t.root], input=lines,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        text = proc.stdout.decode("utf-8")  # strict: a raw byte in a JSON string fails here
        replies = {r["id"]: r for r in map(json.loads, text.splitlines())}
        for i, (name, args) in enumerate(calls):
            result = replies[10 + i]["result"]
            check(result["isError"] is False, "%s: %r" % (name, result))
            want = "marker_17" if name == "read_file" else shown  # opened by the name shown
            check(want in result["content"][0]["text"], "%s text: %r" % (name, result))
            check(json.dumps(shown)[1:-1] in json.dumps(result["structuredContent"]),
                  "%s: %r" % (name, result))
            check("\ufffd" not in json.dumps(result, ensure_ascii=False), "%s lossy" % name)
        # The CLI's --text prints the same valid UTF-8.
        for name, args in calls:
            proc = subprocess.run([CTX, "tool", name, "--root", t.root, "--text",
                                   json.dumps(args)], stdout=subprocess.PIPE, timeout=TIMEOUT)
            check(proc.returncode == 0, "%s: exit %d" % (name, proc.returncode))
            want = "marker_17" if name == "read_file" else shown
            check(want in proc.stdout.decode("utf-8"), "%s --text: %r" % (name, proc.stdout))


@case
def mcp_hides_an_audit_log_kept_inside_the_root():
    with Tree() as t:
        log = os.path.join(t.root, "audit.jsonl")
        rc, replies, err = mcp_session(["--root", t.root, "--log", log], [
            init_message(),
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "read_file", "arguments": {"path": "audit.jsonl"}}},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "list_directory", "arguments": {}}},
        ])
        check(rc == 0, "exit %d: %s" % (rc, err))
        check(replies[2]["result"]["isError"] is True, "the log was readable: %r" % replies[2])
        check(json.loads(replies[2]["result"]["content"][0]["text"])["code"] == "not_found",
              "%r" % replies[2])
        listing = replies[3]["result"]
        check(listing["isError"] is False, "list_directory failed: %r" % listing)
        check("a.txt" in json.dumps(listing) and "audit.jsonl" not in json.dumps(listing),
              "the listing shows the log: %r" % listing)
        with open(log) as f:
            check(len(f.read().splitlines()) == 2, "two calls, two log lines")


@case
def mcp_answers_hostile_lines_and_finishes_a_call_running_at_eof():
    with Tree() as t:
        with open(os.path.join(t.root, "slow.txt"), "w") as f:
            f.write(("a" * 24 + "\n") * 200)
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "search_files",
                           "arguments": {"pattern": "(a|aa)+(?=b)", "path": "slow.txt"}}}
        lines = [json.dumps(init_message()).encode(),
                 b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"p":"' + b"x" * (9 << 20) +
                 b'"}}',
                 b"[" * 100000,
                 b'{"jsonrpc":"2.0","id":3,"method":"p\xff\xfe"}',
                 b'{"jsonrpc":"2.0","id":4,"method":"ping"}',
                 json.dumps(call).encode()]
        start = time.time()
        proc = subprocess.run([CTX, "mcp", "--root", t.root], input=b"\n".join(lines) + b"\n",
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        took = time.time() - start
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 0, "exit %d: %s" % (proc.returncode, err))
        replies = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
        check(len(replies) == 6, "one reply per line: %r" % [r.get("id") for r in replies])
        by_id = {}
        errors = []
        for r in replies:
            if r.get("id") is None:
                errors.append(r["error"]["code"])
            else:
                by_id[r["id"]] = r
        check(sorted(errors) == [-32700, -32700, -32600], "errors %r" % errors)
        check(by_id[4].get("result") == {}, "the session went on: %r" % by_id.get(4))
        # End of input came while the search ran: it was still answered before the exit.
        result = by_id[7]["result"]
        check(result["isError"] is False, "%r" % result)
        check(result["structuredContent"]["files_searched"] == 1, "%r" % result)
        check(took < TIMEOUT / 2, "took %.1fs" % took)
        check("skipped a message of" in err, "the oversized line is logged: %r" % err)


@case
def mcp_writes_whole_responses_when_its_writes_are_cut_short():
    # A response larger than the pipe, drained slowly while the server is stopped and continued
    # again and again: each stop ends its blocked write early, and the write must go on from
    # the first byte not yet written, so every response arrives whole and identical.
    with Tree() as t:
        with open(os.path.join(t.root, "big.txt"), "w") as f:
            f.write("".join("line %d of the big file\n" % i for i in range(20000)))
        proc = subprocess.Popen([CTX, "mcp", "--root", t.root], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        out = proc.stdout.fileno()
        pending = b""

        def send(message):
            proc.stdin.write((json.dumps(message) + "\n").encode())

        def reply():
            nonlocal pending
            while b"\n" not in pending:
                chunk = os.read(out, 1 << 16)
                check(chunk != b"", "the server closed its output")
                pending += chunk
            line, pending = pending.split(b"\n", 1)
            return line

        try:
            send(init_message())
            reply()
            texts = set()
            for rid in range(2, 8):
                send({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                      "params": {"name": "read_file",
                                 "arguments": {"path": "big.txt", "max_tokens": 1000000}}})
                time.sleep(0.05)  # the server fills the pipe and blocks in its write
                for _ in range(30):
                    os.kill(proc.pid, signal.SIGSTOP)
                    os.kill(proc.pid, signal.SIGCONT)
                    pending += os.read(out, 4096)
                line = reply()
                check(len(line) > 500000, "a short response: %d bytes" % len(line))
                response = json.loads(line)  # a lost or repeated piece breaks the JSON
                check(response["id"] == rid and response["result"]["isError"] is False,
                      "%r" % line[:300])
                texts.add(response["result"]["content"][0]["text"])
            check(len(texts) == 1, "the same call gave %d different texts" % len(texts))
        finally:
            proc.stdin.close()
            proc.wait(timeout=TIMEOUT)


def root_link(t, name="link-to-project"):
    link = os.path.join(t.tmp, name)
    os.symlink(t.root, link)
    return link


@case
def tool_accepts_absolute_paths_through_a_symlinked_root_in_both_spellings():
    with Tree() as t:
        link = root_link(t)
        real = os.path.realpath(t.root)
        for root_arg, cwd in ((link, None), ("link-to-project", t.tmp)):
            for prefix in (link, real):
                args = ["tool", "read_file", "--root", root_arg,
                        json.dumps({"path": prefix + "/src/main.c"})]
                rc, out, err = run(args, cwd=cwd)
                check(rc == 0, "%s: exit %d: %s %s" % (args, rc, out, err))
                check(json.loads(out)["path"] == "src/main.c", "%s: %r" % (args, out))
        # A sibling whose name merely starts with the root's spelling is outside it.
        os.makedirs(link + "X/src")
        with open(link + "X/src/main.c", "w") as f:
            f.write("outside\n")
        for path in (link + "X/src/main.c", real + "X/src/main.c", link + "/../root/../x"):
            tool_error(["tool", "read_file", "--root", link, json.dumps({"path": path})],
                       "outside_root")


@case
def tool_accepts_the_working_directory_as_the_shell_spells_it():
    with Tree() as t:
        link = root_link(t)
        env = dict(os.environ, PWD=link)
        proc = subprocess.run([CTX, "tool", "file_info", json.dumps({"path": link + "/a.txt"})],
                              cwd=link, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT)
        check(proc.returncode == 0, "exit %d: %r %r" % (proc.returncode, proc.stdout, proc.stderr))
        check(json.loads(proc.stdout)["path"] == "a.txt", "%r" % proc.stdout)
        # A stale $PWD (another directory) is not trusted.
        env = dict(os.environ, PWD=os.path.join(t.root, "src"))
        proc = subprocess.run([CTX, "tool", "file_info", json.dumps({"path": link + "/a.txt"})],
                              cwd=link, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT)
        check(proc.returncode == 1 and b"outside_root" in proc.stdout, "%r" % proc.stdout)


@case
def mcp_usage_errors():
    usage_error(["mcp", "extra"], "extra")
    usage_error(["mcp", "--schema", "mcp"], "--schema")
    usage_error(["mcp", "--root", "/nonexistent/ctx-root"], "/nonexistent/ctx-root")


@case
def other_arguments_still_reach_the_rg_cli():
    with Tree() as t:
        rc, out, err = run(["-e", "mcp", t.root])
        check(rc == 1, "searching for 'mcp' in a tree without it: exit %d (%s)" % (rc, err))
        rc, out, err = run(["second", os.path.join(t.root, "a.txt")])
        check(rc == 0 and out == "second line\n", "rg search: %d %r %r" % (rc, out, err))
        rc, out, err = run(["--files", t.root])
        check(rc == 0 and "a.txt" in out, "--files: %d %r" % (rc, out))


def main():
    if not CTX or not os.path.exists(CTX):
        print("CTXSEARCH is not set to the ctxsearch binary (got %r)" % CTX)
        print("0 passed, 1 failed")
        return 1
    return run_cases()


if __name__ == "__main__":
    sys.exit(main())
