#!/usr/bin/env python3
"""`ctxsearch mcp` driven by the official MCP TypeScript SDK (Client + StdioClientTransport).

Installs @modelcontextprotocol/sdk from the npm registry into a cache directory outside the
repository ($CTXSEARCH_NPM_DIR, default ~/.cache/ctxsearch/npm; an existing install is reused),
builds a small tree, and runs tests/agent/mcp_sdk_client.mjs against
`$CTXSEARCH mcp --root <tree>`: initialize, tools/list (names, schemas, read-only annotations),
every tool with known results (search_files finds known lines, read_file returns known lines,
find_files/list_directory/file_info), error results (not_found, outside_root, a protected file
reads as not_found, invalid_argument, invalid_pattern, unknown tool), a cancelled call, ping. The
SDK validates each structuredContent against the tool's outputSchema and the script checks again
with ajv.

Fails (never skips) when node or npm is missing or the registry cannot be reached: this test is
the proof that a real MCP client accepts the server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

CTX = os.environ.get("CTXSEARCH", "")
HERE = os.path.dirname(os.path.abspath(__file__))
NPM_DIR = os.environ.get("CTXSEARCH_NPM_DIR") or os.path.join(
    os.path.expanduser("~"), ".cache", "ctxsearch", "npm")
SDK_PACKAGE = "@modelcontextprotocol/sdk"


def fail(message):
    print("FAIL " + message)
    print("0 passed, 1 failed")
    sys.exit(1)


def ensure_sdk():
    """Returns NPM_DIR holding the SDK, installing it on first use."""
    marker = os.path.join(NPM_DIR, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
    if os.path.exists(marker):
        return NPM_DIR
    npm = shutil.which("npm")
    if npm is None:
        fail("npm is not installed; install nodejs and npm (Debian: apt-get install nodejs npm)")
    os.makedirs(NPM_DIR, exist_ok=True)
    package_json = os.path.join(NPM_DIR, "package.json")
    if not os.path.exists(package_json):
        with open(package_json, "w") as f:
            f.write('{"private": true}\n')
    try:
        proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", NPM_DIR,
                               SDK_PACKAGE], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=600)
    except subprocess.TimeoutExpired:
        fail("npm install %s into %s timed out after 600 s: is the npm registry reachable?"
             % (SDK_PACKAGE, NPM_DIR))
    if proc.returncode != 0 or not os.path.exists(marker):
        fail("npm install %s into %s failed (exit %d); the npm registry must be reachable "
             "(or pre-install the package there):\n%s"
             % (SDK_PACKAGE, NPM_DIR, proc.returncode, proc.stdout.decode(errors="replace")[-3000:]))
    return NPM_DIR


def build_tree(root):
    files = {
        "src/alpha.py": 'def alpha():\n    x = "needle_42"\n    return x\n',
        "src/beta.c": "int beta(void) { return 0; }\n",
        "docs/guide.md": "# Guide\n\nSee needle_7 for details.\n",
        ".env": "API_KEY=needle_99\n",
        "README.md": "A test tree for the MCP SDK client.\n",
    }
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return os.path.getsize(os.path.join(root, "src/alpha.py"))


def main():
    if not CTX or not os.path.exists(CTX):
        fail("CTXSEARCH is not set to the ctxsearch binary (got %r)" % CTX)
    node = shutil.which("node")
    if node is None:
        fail("node is not installed; the MCP SDK test needs Node.js >= 18")
    npm_dir = ensure_sdk()
    with tempfile.TemporaryDirectory(prefix="ctx-mcp-sdk-") as tmp:
        tree = os.path.join(tmp, "tree")
        os.makedirs(tree)
        size = build_tree(tree)
        with open(os.path.join(tmp, "outside.txt"), "w") as f:
            f.write("outside the root\n")
        args = [node, os.path.join(HERE, "mcp_sdk_client.mjs"), npm_dir, tree, str(size), "--",
                CTX, "mcp", "--root", tree]
        try:
            proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=300)
        except subprocess.TimeoutExpired as e:
            print((e.stdout or b"").decode(errors="replace"))
            fail("the SDK session did not finish in 300 s")
        out = proc.stdout.decode(errors="replace")
        print(out, end="")
        if proc.returncode != 0:
            fail("the MCP SDK client reported failures (exit %d)" % proc.returncode)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
