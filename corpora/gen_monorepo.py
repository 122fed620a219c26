#!/usr/bin/env python3
"""Generate a synthetic monorepo for benchmarking `ctxsearch --files` (and searches).

Deterministic: the same --seed and --files give byte-identical trees (file names, contents and
ignore files), on any machine and Python >= 3.8.  Standard library only.

    python3 corpora/gen_monorepo.py --out /work/corpora-gen/mono300k            # 300k files, seed 1
    python3 corpora/gen_monorepo.py --out /tmp/mono20k --files 20000 --seed 7 --git-commit

Shape (see corpora/README.md):
  * top-level groups (apps/ services/ libs/ packages/ tools/ third_party/ infra/ docs/ experimental/)
    holding a few hundred projects of heavy-tailed size; each project has a main language
    (c, cpp, py, js, ts, go, rs, java, docs) and files at depth 3..10 from the root;
  * small text files (a few hundred bytes of plausible code), a few binary blobs, a few names with
    spaces or non-ASCII characters, a few symlinks to files;
  * ignore rules at several levels: root .gitignore, per-project .gitignore (some projects rely on the
    root rules only), nested .gitignore files deeper in source trees, .ignore files, and
    .git/info/exclude; patterns include negations, anchored patterns, `**` and dir-only patterns;
  * hidden files and dirs (.github/, .vscode/, .eslintrc.json, .cache/, .venv/, .idea/ ...);
  * large ignored trees that a walker must skip: node_modules/ (nested), build/, target/, dist/,
    __pycache__/, .venv/ (about a third of all files);
  * `git init` at the root (no commit unless --git-commit).

The tree is written into --out, which must not exist or be empty (use --force to wipe it).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import time

WORDS = (
    "alpha beta gamma delta sigma omega atlas aurora beacon cobalt comet cosmos crystal cypress "
    "ember falcon fjord galaxy glacier harbor helix horizon indigo iris jade juniper kelp lagoon "
    "lumen lynx magnet maple meadow meteor nebula nimbus nova onyx orbit osprey pebble phoenix "
    "pixel prism pulsar quartz quasar raven reef ridge rocket saffron sage sequoia shadow sierra "
    "solar sparrow spire summit tango tempest thunder tide topaz tundra umbra vapor vector velvet "
    "vertex violet vortex willow zenith zephyr cache queue index parser lexer router scheduler "
    "planner executor storage catalog buffer stream socket channel codec crypto auth session token "
    "config logger metrics tracing health registry gateway proxy worker billing invoice payment "
    "ledger account profile search ranking feed inbox notify email sms upload media image video "
    "audio render layout theme widget button dialog table chart graph tree node edge vertex "
    "matrix tensor model train infer dataset loader sampler kernel driver device memory pool "
    "arena alloc thread task fiber mutex latch barrier timer clock event signal hook plugin "
    "module bundle manifest schema migrate backup restore snapshot replica shard cluster raft "
    "gossip consensus lease quota limit retry backoff circuit breaker filter mapper reducer"
).split()
GROUPS = ("apps", "services", "libs", "packages", "tools", "third_party", "infra", "docs", "experimental")
# language profile -> weight
PROFILES = (("ts", 16), ("js", 10), ("py", 16), ("go", 12), ("rs", 9), ("java", 9),
            ("cpp", 12), ("c", 8), ("docs", 4), ("mixed", 4))
EXTS = {  # main source extensions per profile with weights
    "c": (("c", 6), ("h", 4)),
    "cpp": (("cpp", 6), ("hpp", 3), ("h", 1), ("cc", 1)),
    "py": (("py", 10), ("pyi", 1)),
    "js": (("js", 8), ("mjs", 1), ("jsx", 2)),
    "ts": (("ts", 8), ("tsx", 4), ("d.ts", 1)),
    "go": (("go", 10),),
    "rs": (("rs", 10),),
    "java": (("java", 10),),
    "docs": (("md", 8), ("rst", 1), ("txt", 1)),
    "mixed": (("py", 3), ("sh", 2), ("go", 2), ("ts", 2), ("c", 1), ("sql", 1), ("proto", 1)),
}
# every profile sprinkles some of these among its sources
MISC_EXTS = (("md", 4), ("json", 4), ("yaml", 4), ("yml", 1), ("toml", 1), ("txt", 1), ("sh", 1),
             ("proto", 1), ("sql", 1), ("html", 1), ("css", 1), ("xml", 1), ("cfg", 1), ("csv", 1))
TOPDIRS = {
    "c": ("src", "include", "tests", "examples", "scripts", "docs"),
    "cpp": ("src", "include", "tests", "bench", "tools", "docs"),
    "py": (None, "tests", "scripts", "docs", "examples"),  # None = the package dir named like the project
    "js": ("src", "lib", "test", "scripts", "public"),
    "ts": ("src", "test", "scripts", "types", "e2e"),
    "go": ("cmd", "internal", "pkg", "api", "test"),
    "rs": ("src", "tests", "benches", "examples", "crates"),
    "java": ("src/main/java", "src/test/java", "src/main/resources"),
    "docs": ("guides", "reference", "tutorials", "adr", "images"),
    "mixed": ("src", "scripts", "config", "deploy", "proto"),
}

T = {}  # templates, %-formatted with the dict from fill()
T["c"] = ["""/* %(mod)s.c - %(desc)s */
#include <stdio.h>
#include <stdlib.h>
#include "%(mod)s.h"

int %(fn)s(const struct %(snake)s *ctx, size_t n) {
    int acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += ctx->values[i] * %(num)d;
    }
    /* TODO(%(who)s): handle overflow */
    return acc;
}
""", """// %(desc)s
#include <string.h>
#include <errno.h>

static int %(fn)s_init(char *buf, size_t len) {
    if (!buf) return -EINVAL;
    memset(buf, 0, len);
    return %(num)d;
}

int %(fn)s(void) {
    char buf[%(num)d];
    return %(fn)s_init(buf, sizeof buf);
}
"""]
T["h"] = ["""#ifndef %(upper)s_H
#define %(upper)s_H
/* %(desc)s */
#include <stddef.h>

struct %(snake)s {
    int values[%(num)d];
    size_t len;
};

int %(fn)s(const struct %(snake)s *ctx, size_t n);

#endif /* %(upper)s_H */
"""]
T["cpp"] = ["""// %(desc)s
#include "%(mod)s.hpp"

#include <stdexcept>
#include <vector>

namespace %(ns)s {

int %(camel)s::%(fn)s(const std::vector<int>& xs) const {
  if (xs.empty()) throw std::invalid_argument("%(mod)s: empty input");
  int acc = 0;
  for (int x : xs) acc += x * %(num)d;
  return acc;  // TODO(%(who)s): saturate
}

}  // namespace %(ns)s
""", """#include <memory>
#include <string>

namespace %(ns)s {
// %(desc)s
class NotImplementedException : public std::exception {};

std::unique_ptr<std::string> Make%(camel)s(int n) {
  if (n < 0) throw NotImplementedException();
  return std::make_unique<std::string>(n, 'x');
}
}  // namespace %(ns)s
"""]
T["cc"] = T["cpp"]
T["hpp"] = ["""#pragma once
// %(desc)s
#include <cstdint>
#include <vector>

namespace %(ns)s {

class %(camel)s {
 public:
  explicit %(camel)s(std::uint32_t limit = %(num)d) : limit_(limit) {}
  int %(fn)s(const std::vector<int>& xs) const;

 private:
  std::uint32_t limit_;
};

}  // namespace %(ns)s
"""]
T["py"] = ['''"""%(desc)s."""
from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class %(camel)s:
    name: str
    limit: int = %(num)d

    def %(fn)s(self, items: list[int]) -> int:
        # TODO(%(who)s): batch this
        total = sum(x * self.limit for x in items)
        log.debug("%%s: %%d", self.name, total)
        return total
''', '''import os
import sys

from .%(mod)s import %(camel)s


def %(fn)s(argv=None):
    """%(desc)s"""
    argv = argv or sys.argv[1:]
    path = os.path.join(os.getcwd(), "%(mod)s.json")
    if not argv:
        raise NotImplementedError("%(mod)s needs arguments")
    return %(camel)s(path).%(fn)s([len(a) for a in argv])
''']
T["pyi"] = ["""from typing import Any

class %(camel)s:
    name: str
    limit: int
    def %(fn)s(self, items: list[int]) -> int: ...

def %(fn)s(argv: Any = ...) -> int: ...
"""]
T["js"] = ["""'use strict';
// %(desc)s
const path = require('path');

function %(fn)s(items, opts = {}) {
  const limit = opts.limit ?? %(num)d;
  // TODO(%(who)s): stream instead of buffering
  return items.filter(Boolean).slice(0, limit).map((x) => path.join('%(mod)s', String(x)));
}

module.exports = { %(fn)s };
""", """import { %(fn)s } from './%(mod)s.js';

export class %(camel)s {
  constructor(name) {
    this.name = name;
    this.count = %(num)d;
  }

  run(input) {
    // %(desc)s
    if (!input) throw new Error('%(camel)s: ErrNotFound');
    return %(fn)s(input, { limit: this.count });
  }
}
"""]
T["mjs"] = T["js"]
T["jsx"] = ["""import React, { useState } from 'react';

// %(desc)s
export default function %(camel)s({ items = [] }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="%(mod)s">
      <button onClick={() => setOpen(!open)}>%(camel)s</button>
      {open && items.slice(0, %(num)d).map((x) => <span key={x}>{x}</span>)}
    </div>
  );
}
"""]
T["ts"] = ["""// %(desc)s
import { Logger } from '../logger';

export interface %(camel)sOptions {
  limit?: number;
  name: string;
}

export function %(fn)s(items: readonly string[], opts: %(camel)sOptions): string[] {
  const limit = opts.limit ?? %(num)d;
  Logger.debug(`%(mod)s: ${items.length} items`);
  // TODO(%(who)s): dedupe
  return items.slice(0, limit).map((s) => `${opts.name}/${s}`);
}
""", """export class %(camel)s {
  private readonly cache = new Map<string, number>();

  constructor(private readonly name: string) {}

  /** %(desc)s */
  async %(fn)s(key: string): Promise<number> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const v = key.length * %(num)d;
    this.cache.set(key, v);
    return v;
  }
}
"""]
T["tsx"] = ["""import * as React from 'react';

// %(desc)s
export interface %(camel)sProps {
  title: string;
  items?: string[];
}

export const %(camel)s: React.FC<%(camel)sProps> = ({ title, items = [] }) => (
  <section className="%(mod)s">
    <h2>{title}</h2>
    <ul>{items.slice(0, %(num)d).map((i) => <li key={i}>{i}</li>)}</ul>
  </section>
);
"""]
T["d.ts"] = ["""// %(desc)s
export declare function %(fn)s(items: readonly string[], limit?: number): string[];
export declare class %(camel)s {
  constructor(name: string);
  %(fn)s(key: string): Promise<number>;
}
"""]
T["go"] = ["""// Package %(pkg)s %(desc)s.
package %(pkg)s

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned when the %(mod)s is missing.
var ErrNotFound = errors.New("%(mod)s: not found")

// %(camel)s holds the %(mod)s state.
type %(camel)s struct {
	Name  string
	Limit int
}

// %(fnc)s returns the weighted sum.
func (c *%(camel)s) %(fnc)s(xs []int) (int, error) {
	if len(xs) == 0 {
		return 0, fmt.Errorf("%(fn)s: %%w", ErrNotFound)
	}
	acc := 0
	for _, x := range xs {
		acc += x * %(num)d
	}
	return acc, nil // TODO(%(who)s): overflow
}
""", """package %(pkg)s

import "testing"

func Test%(fnc)s(t *testing.T) {
	c := &%(camel)s{Name: "%(mod)s", Limit: %(num)d}
	if _, err := c.%(fnc)s(nil); err == nil {
		t.Fatal("want error for empty input")
	}
}
"""]
T["rs"] = ["""//! %(desc)s

use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct %(camel)s {
    name: String,
    cache: HashMap<String, u64>,
}

impl %(camel)s {
    pub fn new(name: &str) -> Self {
        Self { name: name.to_owned(), ..Default::default() }
    }

    pub fn %(fn)s(&mut self, key: &str) -> u64 {
        // TODO(%(who)s): evict
        *self.cache.entry(key.to_owned()).or_insert(key.len() as u64 * %(num)d)
    }
}
""", """use super::*;

#[test]
fn %(fn)s_is_stable() {
    let mut x = %(camel)s::new("%(mod)s");
    assert_eq!(x.%(fn)s("abc"), x.%(fn)s("abc"));
    assert!(x.%(fn)s("") < %(num)d);
}
"""]
T["java"] = ["""package %(jpkg)s;

import java.util.List;
import java.util.Objects;

/** %(desc)s */
public final class %(camel)s {
    private final String name;
    private final int limit = %(num)d;

    public %(camel)s(String name) {
        this.name = Objects.requireNonNull(name);
    }

    public int %(fn)s(List<Integer> xs) {
        if (xs.isEmpty()) throw new UnsupportedOperationException("NotImplementedException: " + name);
        return xs.stream().mapToInt(x -> x * limit).sum(); // TODO(%(who)s)
    }
}
"""]
T["md"] = ["""# %(title)s

%(desc)s.

## Usage

```sh
make %(mod)s
./bin/%(mod)s --limit %(num)d
```

## Notes

- Owner: @%(who)s
- Related: [%(mod)s design](../docs/%(mod)s.md)
- TODO: document the %(fn)s flow
"""]
T["rst"] = ["""%(title)s
===============

%(desc)s.

.. code-block:: sh

   %(mod)s --limit %(num)d
"""]
T["txt"] = ["""%(title)s
%(desc)s.
limit=%(num)d owner=%(who)s
"""]
T["json"] = ["""{
  "name": "%(mod)s",
  "version": "1.%(num)d.0",
  "description": "%(desc)s",
  "owner": "%(who)s",
  "limits": { "max": %(num)d, "burst": 4 },
  "tags": ["%(mod)s", "%(pkg)s"]
}
"""]
T["yaml"] = ["""# %(desc)s
name: %(mod)s
owner: %(who)s
replicas: %(num)d
resources:
  limits:
    cpu: 500m
    memory: 256Mi
env:
  - name: %(upper)s_MODE
    value: production
"""]
T["yml"] = T["yaml"]
T["toml"] = ["""# %(desc)s
[%(mod)s]
name = "%(mod)s"
limit = %(num)d
owner = "%(who)s"
"""]
T["sh"] = ["""#!/usr/bin/env bash
# %(desc)s
set -euo pipefail
cd "$(dirname "$0")/.."
for i in $(seq 1 %(num)d); do
  echo "%(mod)s step $i"
done
"""]
T["proto"] = ["""syntax = "proto3";
// %(desc)s
package %(pkg)s.v1;

message %(camel)sRequest {
  string name = 1;
  int32 limit = 2;
}

service %(camel)sService {
  rpc %(fnc)s(%(camel)sRequest) returns (%(camel)sRequest);
}
"""]
T["sql"] = ["""-- %(desc)s
CREATE TABLE IF NOT EXISTS %(snake)s (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    weight INTEGER DEFAULT %(num)d
);
CREATE INDEX %(snake)s_name_idx ON %(snake)s (name);
"""]
T["html"] = ["""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>%(title)s</title></head>
<body>
  <main id="%(mod)s"><h1>%(title)s</h1><p>%(desc)s.</p></main>
</body>
</html>
"""]
T["css"] = [""".%(mod)s {
  display: flex;
  gap: %(num)dpx;
}
.%(mod)s__title { font-weight: 600; }
"""]
T["xml"] = ["""<?xml version="1.0" encoding="UTF-8"?>
<!-- %(desc)s -->
<config name="%(mod)s" limit="%(num)d">
  <owner>%(who)s</owner>
</config>
"""]
T["cfg"] = ["""[%(mod)s]
# %(desc)s
limit = %(num)d
owner = %(who)s
"""]
T["csv"] = ["""id,name,weight
1,%(mod)s,%(num)d
2,%(pkg)s,3
3,%(fn)s,7
"""]
GENERIC = ["""%(desc)s
%(mod)s %(num)d
"""]

DESCS = ("handles retries for the upstream client", "parses the wire format", "caches resolved entries",
         "computes the weighted score", "glue between the scheduler and the workers",
         "implements the public API surface", "helpers shared by the tests", "feature flag plumbing",
         "adapts the legacy storage layer", "renders the dashboard widgets", "validates user input",
         "tracks quota usage per account", "streams events to subscribers", "encodes and decodes frames")
PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory")


def pick_weighted(rng, pairs):
    total = sum(w for _, w in pairs)
    r = rng.random() * total
    for v, w in pairs:
        r -= w
        if r < 0:
            return v
    return pairs[-1][0]


def camel(a, b):
    return a.capitalize() + b.capitalize()


class Writer:
    """Writes files and dirs below root and keeps counts per category."""

    def __init__(self, root):
        self.root = root
        self.made = set()
        self.n = 0
        self.bytes = 0
        self.dirs = 0
        self.cat = {}
        self.symlinks = 0

    def _dir(self, d):
        if d in self.made:
            return
        parent = os.path.dirname(d)
        if parent and parent not in self.made:
            self._dir(parent)
        os.mkdir(os.path.join(self.root, d))
        self.made.add(d)
        self.dirs += 1

    def write(self, rel, data, cat):
        d = os.path.dirname(rel)
        if d:
            self._dir(d)
        if isinstance(data, str):
            data = data.encode("utf-8")
        # O_EXCL: a duplicate name is a generator bug (the file count would be wrong)
        fd = os.open(os.path.join(self.root, rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.n += 1
        self.bytes += len(data)
        self.cat[cat] = self.cat.get(cat, 0) + 1

    def symlink(self, target, rel):
        d = os.path.dirname(rel)
        if d:
            self._dir(d)
        os.symlink(target, os.path.join(self.root, rel))
        self.symlinks += 1


class Gen:
    def __init__(self, w, seed):
        self.w = w
        self.seed = seed

    # ---- content -------------------------------------------------------------------------
    def fill(self, rng, mod):
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        return {
            "mod": mod, "desc": rng.choice(DESCS), "fn": a + "_" + b, "fnc": camel(a, b),
            "camel": camel(mod.split("_")[0].split("-")[0], b), "snake": a + "_" + b,
            "upper": (a + "_" + b).upper(), "ns": a, "pkg": a, "num": rng.randint(2, 999),
            "who": rng.choice(PEOPLE), "title": camel(a, b), "jpkg": "com.example." + a,
        }

    def content(self, rng, ext, mod):
        tpls = T.get(ext, GENERIC)
        return rng.choice(tpls) % self.fill(rng, mod)

    # ---- visible source trees ------------------------------------------------------------
    def tree(self, rng, d, depth, maxdepth, budget, prof):
        """Write exactly `budget` files below d (depth = components of d)."""
        if budget <= 0:
            return
        exts = EXTS[prof]
        if depth >= maxdepth or budget <= rng.randint(8, 40):
            here = budget
        else:
            here = min(budget, rng.randint(2, 24))
        names = set()
        for _ in range(here):
            ext = pick_weighted(rng, exts) if rng.random() < 0.85 else pick_weighted(rng, MISC_EXTS)
            for _try in range(8):
                name = rng.choice(WORDS) + ("_" + rng.choice(WORDS) if rng.random() < 0.7 else "")
                if ext in ("java", "tsx", "jsx"):
                    name = camel(*name.split("_")) if "_" in name else name.capitalize()
                elif ext == "go" and rng.random() < 0.25:
                    name += "_test"
                elif ext == "py" and rng.random() < 0.15:
                    name = "test_" + name
                if (name, ext) not in names:
                    break
            else:
                name = "%s_%d" % (name, len(names))
            names.add((name, ext))
            rel = "%s/%s.%s" % (d, name, ext)
            self.w.write(rel, self.content(rng, ext, name), "visible")
        rest = budget - here
        if rest <= 0:
            return
        k = min(rest, rng.randint(2, 6))
        weights = [rng.expovariate(1.0) + 0.05 for _ in range(k)]
        tot = sum(weights)
        shares = [int(rest * x / tot) for x in weights]
        shares[0] += rest - sum(shares)
        used = {n for n, _ in names}
        for i, s in enumerate(shares):
            for _try in range(8):
                sub = rng.choice(WORDS)
                if sub not in used:
                    break
            else:
                sub = "%s%d" % (sub, i)
            used.add(sub)
            self.tree(rng, d + "/" + sub, depth + 1, maxdepth, s, prof)

    # ---- ignored trees (each writes exactly n files) -----------------------------------------
    def node_modules(self, rng, d, n, nest=0):
        w = self.w
        if n <= 0:
            return
        if nest == 0:
            w.write(d + "/.package-lock.json", '{"lockfileVersion": 3}\n', "ignored")
            n -= 1
            if n > 0:
                w.write(d + "/.bin/tsc", "#!/usr/bin/env node\nrequire('../typescript/bin/tsc')\n", "ignored")
                n -= 1
        while n > 0:
            scoped = rng.random() < 0.2
            pkg = rng.choice(WORDS) + ("-" + rng.choice(WORDS) if rng.random() < 0.5 else "")
            if scoped:
                pkg = "@%s/%s" % (rng.choice(("types", "babel", "vue", "aws-sdk", "jest", "emotion")), pkg)
            base = "%s/%s" % (d, pkg)
            k = 2
            while base in w.made or os.path.lexists(os.path.join(w.root, base)):
                base = "%s/%s-%d" % (d, pkg, k)
                k += 1
            size = min(n, int(rng.paretovariate(1.3) * 6) + 3)
            nested = 0
            if nest < 2 and size > 25 and rng.random() < 0.4:
                nested = size // 3
            own = size - nested
            files = ["package.json", "README.md", "LICENSE", "index.js", "index.d.ts", "CHANGELOG.md"]
            sub = ("lib", "dist", "cjs", "esm", "src", "lib/internal", "dist/types")
            for i in range(own):
                if i < len(files):
                    rel = base + "/" + files[i]
                else:
                    ext = rng.choice(("js", "js", "js", "d.ts", "js.map", "mjs", "cjs", "json"))
                    rel = "%s/%s/%s%d.%s" % (base, rng.choice(sub), rng.choice(WORDS), i, ext)
                w.write(rel, "module.exports = require('./%s');\n" % rng.choice(WORDS), "ignored")
            self.node_modules(rng, base + "/node_modules", nested, nest + 1)
            n -= size

    def cmake_build(self, rng, d, n, srcs):
        w = self.w
        fixed = ["CMakeCache.txt", "Makefile", "cmake_install.cmake", "compile_commands.json",
                 "CMakeFiles/Makefile2", "CMakeFiles/CMakeOutput.log", "build.ninja", ".ninja_log"]
        for i in range(min(n, len(fixed))):
            w.write(d + "/" + fixed[i], "# generated by cmake\n", "ignored")
        tgts = [rng.choice(WORDS) for _ in range(rng.randint(2, 8))]
        deps = [rng.choice(WORDS) for _ in range(rng.randint(1, 4))]
        for i in range(len(fixed), n):
            r = rng.random()
            tgt = rng.choice(tgts)
            if r < 0.6:
                rel = "%s/CMakeFiles/%s.dir/%s/%s%d.c.o%s" % (d, tgt, rng.choice(("src", "src/core", "src/util", "tests")),
                                                             rng.choice(srcs), i, "" if r < 0.45 else ".d")
            elif r < 0.75:
                rel = "%s/lib/lib%s%d.a" % (d, tgt, i)
            elif r < 0.85:
                rel = "%s/bin/%s%d" % (d, tgt, i)
            else:
                rel = "%s/_deps/%s-src/include/%s%d.h" % (d, rng.choice(deps), rng.choice(WORDS), i)
            w.write(rel, b"\x7fELF\x02\x01\x01\x00" + bytes(rng.getrandbits(8) for _ in range(24)), "ignored")

    def cargo_target(self, rng, d, n):
        w = self.w
        top = [".rustc_info.json", "CACHEDIR.TAG"]
        for i in range(min(n, len(top))):
            w.write(d + "/" + top[i], "generated by cargo\n", "ignored")
        i = len(top)
        while i < n:
            crate = rng.choice(WORDS) + "_" + rng.choice(WORDS)
            h = "%016x" % rng.getrandbits(64)
            prof = "debug" if rng.random() < 0.75 else "release"
            files = ["deps/%s-%s.d" % (crate, h), "deps/lib%s-%s.rlib" % (crate, h),
                     "deps/lib%s-%s.rmeta" % (crate, h), ".fingerprint/%s-%s/lib-%s" % (crate, h, crate),
                     ".fingerprint/%s-%s/dep-lib-%s" % (crate, h, crate),
                     ".fingerprint/%s-%s/invoked.timestamp" % (crate, h)]
            if rng.random() < 0.3:
                files += ["build/%s-%s/output" % (crate, h), "build/%s-%s/out/generated.rs" % (crate, h)]
            for f in files[:n - i]:
                w.write("%s/%s/%s" % (d, prof, f), "%s %d\n" % (crate, i), "ignored")
                i += 1

    def maven_target(self, rng, d, n, pkgdir):
        w = self.w
        for i in range(n):
            r = rng.random()
            if r < 0.75:
                rel = "%s/classes/%s/%s%d.class" % (d, pkgdir, camel(rng.choice(WORDS), rng.choice(WORDS)), i)
            elif r < 0.9:
                rel = "%s/surefire-reports/TEST-%s%d.xml" % (d, camel(rng.choice(WORDS), "test"), i)
            else:
                rel = "%s/generated-sources/annotations/%s/%s%d_.java" % (d, pkgdir, rng.choice(WORDS).capitalize(), i)
            w.write(rel, b"\xca\xfe\xba\xbe\x00\x00\x00\x3d" + ("%d" % i).encode(), "ignored")

    def dist(self, rng, d, n):
        w = self.w
        for i in range(n):
            r = rng.random()
            name = rng.choice(WORDS)
            if r < 0.4:
                rel = "%s/%s.%d.js" % (d, name, i)
            elif r < 0.6:
                rel = "%s/%s.%d.js.map" % (d, name, i)
            elif r < 0.8:
                rel = "%s/types/%s/%s%d.d.ts" % (d, rng.choice(WORDS), name, i)
            else:
                rel = "%s/assets/%s-%08x.%s" % (d, name, rng.getrandbits(32), rng.choice(("css", "svg", "woff2")))
            w.write(rel, "/* bundled %s */\n!function(){return %d}();\n" % (name, i), "ignored")

    def pycache(self, rng, d, n, pymods):
        for i in range(n):
            m = rng.choice(pymods) if pymods else rng.choice(WORDS)
            self.w.write("%s/__pycache__/%s%d.cpython-3%d.pyc" % (d, m, i, 8 + i % 5), b"\x55\x0d\x0d\x0a" + bytes(12), "ignored")

    def venv(self, rng, d, n):
        w = self.w
        if n > 0:
            w.write(d + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n", "ignored")
        for i in range(1, n):
            pkg = rng.choice(WORDS)
            rel = "%s/lib/python3.11/site-packages/%s/%s%d.py" % (d, pkg, rng.choice(WORDS), i)
            w.write(rel, "# vendored %s\n" % pkg, "ignored")

    # ---- one project ---------------------------------------------------------------------------
    def project(self, idx, group, name, budget, prof):
        rng = random.Random("%d:%d:%s" % (self.seed, idx, name))
        w = self.w
        p = "%s/%s" % (group, name)
        start = w.n
        # share of the budget that goes into ignored trees, by profile
        ign_frac = {"js": 0.6, "ts": 0.55, "rs": 0.45, "java": 0.35, "cpp": 0.4, "c": 0.3,
                    "py": 0.25, "go": 0.08, "docs": 0.05, "mixed": 0.15}[prof] * rng.uniform(0.6, 1.3)
        if rng.random() < 0.15:  # some checkouts were never built
            ign_frac *= 0.1
        ignored = int(budget * min(ign_frac, 0.8))
        hidden = max(1, int(budget * rng.uniform(0.0, 0.04)))
        bait = max(1, int(budget * 0.02))
        own_gitignore = rng.random() < 0.8
        has_dot_ignore = rng.random() < 0.25
        nnested = rng.randint(0, 3)  # nested .gitignore files, each with 2 bait files
        fixed = 2 + own_gitignore + has_dot_ignore + 3 * nnested  # + manifest and README
        visible = budget - ignored - hidden - bait - fixed
        if visible < 6:
            ignored -= 6 - visible
            visible = 6
        assert ignored >= 0, (name, budget)

        # ignore files first
        gi = []
        if own_gitignore:
            gi.append("# %s (%s)" % (name, prof))
            if prof in ("js", "ts"):
                gi += ["node_modules/", "/dist/", "coverage/", "*.tsbuildinfo", ".env", "*.log", "!keep.log"]
            elif prof == "rs":
                gi += ["/target/", "**/*.rs.bk", "Cargo.lock.orig", "*.log", "!keep.log"]
            elif prof == "java":
                gi += ["target/", "*.iml", ".idea/", "*.log", "!keep.log", "hs_err_pid*"]
            elif prof in ("c", "cpp"):
                gi += ["/build/", "build-*/", "*.o", "*.a", "!vendor/**/*.a", "compile_commands.json", "*.log", "!keep.log"]
            elif prof == "py":
                gi += ["__pycache__/", "*.py[cod]", ".venv/", "/dist/", "*.egg-info/", ".pytest_cache/", "*.log", "!keep.log"]
            elif prof == "go":
                gi += ["/bin/", "*.test", "*.out", "vendor/", "*.log", "!keep.log"]
            else:
                gi += ["*.log", "!keep.log", "_build/", "/out/"]
            gi += ["**/tmp/", "scratch/**", "*.gen.*", "!important.gen.*", "/local.*"]
            w.write(p + "/.gitignore", "\n".join(gi) + "\n", "ignorefile")
        if has_dot_ignore:
            # .ignore overrides .gitignore for rg/fd (git does not read it)
            w.write(p + "/.ignore", "# tool-only ignores\nfixtures/large/\n*.snap\n!keep.gen.json\n", "ignorefile")

        # manifest + readme (visible)
        manifest = {"js": "package.json", "ts": "package.json", "rs": "Cargo.toml", "java": "pom.xml",
                    "go": "go.mod", "py": "pyproject.toml", "c": "Makefile", "cpp": "CMakeLists.txt",
                    "docs": "mkdocs.yml", "mixed": "Makefile"}[prof]
        w.write(p + "/" + manifest, "# %s manifest for %s\nname = \"%s\"\n" % (prof, name, name), "visible")
        w.write(p + "/README.md", self.content(rng, "md", name), "visible")

        # visible source tree
        tops = [t for t in TOPDIRS[prof]]
        tops = [name.replace("-", "_") if t is None else t for t in tops]
        weights = [rng.expovariate(1.0) + 0.1 for _ in tops]
        weights[0] *= 4
        tot = sum(weights)
        shares = [int(visible * x / tot) for x in weights]
        shares[0] += visible - sum(shares)
        srcs, pymods = [], []
        for t, s in zip(tops, shares):
            d = p + "/" + t
            if prof == "java" and t.startswith("src/") and t != "src/main/resources":
                d = "%s/com/%s/%s" % (d, rng.choice(WORDS), name.replace("-", ""))
            depth = d.count("/") + 1
            maxdepth = max(depth + 1, min(10, depth + rng.randint(2, 7)))
            self.tree(rng, d, depth, maxdepth, s, prof)
            if prof in ("c", "cpp") and t == "src":
                srcs = [rng.choice(WORDS) + ".c" for _ in range(20)]
            if prof == "py":
                pymods = [rng.choice(WORDS) for _ in range(20)]

        # nested .gitignore deeper in the source tree (relative & anchored patterns)
        subdirs = sorted(x for x in w.made if x.startswith(p + "/") and x.count("/") >= 3)
        nested_dirs = rng.sample(subdirs, min(len(subdirs), nnested))
        bait += 3 * (nnested - len(nested_dirs))
        for sd in nested_dirs:
            rules = rng.choice((["*.bak", "!important.bak", "/scratch/"],
                                ["generated/", "!generated/README.md"],
                                ["**/fixtures/*.bin", "*.orig"],
                                ["/*.tmp", "snapshots/**/*.snap"]))
            w.write(sd + "/.gitignore", "\n".join(rules) + "\n", "ignorefile")
            # a file the nested rules ignore, and one they do not
            w.write(sd + "/old_%s.bak" % rng.choice(WORDS), "backup\n", "bait")
            w.write(sd + "/important.bak", "kept by negation\n", "bait")

        # bait files matched (or re-included) by the patterns above
        bait_names = ["debug.log", "keep.log", "api.gen.ts", "important.gen.ts", "local.settings.json",
                      "tmp/session.dat", "scratch/notes.txt", "keep.gen.json", "out.snap", "fixtures/large/blob.bin",
                      "src/tmp/x.cache", "nested/deeper/tmp/trace.json", "core.o", "vendor/zlib/libz.a",
                      "data.local.yaml"]
        i = 0
        while bait > 0:
            b = bait_names[i % len(bait_names)]
            if i >= len(bait_names):
                b = "%s/%d_%s" % (rng.choice(("src", "lib", "logs", "misc")), i, os.path.basename(b))
            rel = p + "/" + b
            if rel not in w.made and not os.path.lexists(os.path.join(w.root, rel)):
                w.write(rel, "bait %d\n" % i, "bait")
            else:
                w.write(p + "/misc/%d.log" % i, "bait %d\n" % i, "bait")
            bait -= 1
            i += 1

        # hidden files and dirs
        hid = [".editorconfig", ".eslintrc.json", ".prettierrc", ".vscode/settings.json", ".idea/workspace.xml",
               ".env.example", ".clang-format", ".github/CODEOWNERS"]
        rng.shuffle(hid)
        for j in range(hidden):
            if j < len(hid):
                w.write(p + "/" + hid[j], "# %s\n" % hid[j], "hidden")
            else:
                w.write("%s/.cache/%s/%s%d.json" % (p, rng.choice(WORDS), rng.choice(WORDS), j), "{}\n", "hidden")

        # ignored trees
        if ignored > 0:
            if prof in ("js", "ts"):
                dn = ignored // 8
                self.node_modules(rng, p + "/node_modules", ignored - dn)
                self.dist(rng, p + "/dist", dn)
            elif prof == "rs":
                self.cargo_target(rng, p + "/target", ignored)
            elif prof == "java":
                pkgdir = "com/%s/%s" % (rng.choice(WORDS), name.replace("-", ""))
                self.maven_target(rng, p + "/target", ignored, pkgdir)
            elif prof in ("c", "cpp"):
                self.cmake_build(rng, p + "/build", ignored, srcs or ["main.c"])
            elif prof == "py":
                pc = ignored // 2
                src_dirs = sorted(x for x in w.made if x.startswith(p + "/") and x.count("/") <= 4)
                pcdirs = rng.sample(src_dirs, min(len(src_dirs), 6)) or [p]
                for k, sd in enumerate(pcdirs):
                    take = pc // len(pcdirs) + (pc % len(pcdirs) if k == 0 else 0)
                    self.pycache(rng, sd, take, pymods)
                self.venv(rng, p + "/.venv", ignored - pc)
            else:
                self.dist(rng, p + "/_build", ignored)
        # a few symlinks to files (not listed by rg/fd by default; git tracks them)
        if rng.random() < 0.05:
            w.symlink("README.md", p + "/README.link.md")
        written = w.n - start
        assert written == budget, (p, written, budget)

    # ---- whole repo ----------------------------------------------------------------------------
    def run(self, nfiles):
        w = self.w
        rng = random.Random("%d:root" % self.seed)
        root_files = {
            ".gitignore": "\n".join([
                "# root rules, inherited by every project",
                "node_modules", "build/", "target/", "dist/", "_build/", "/out/", "*.o", "*.a", "*.so", "*.pyc", "__pycache__/",
                ".DS_Store", "*.swp", "**/tmp/", "**/logs/*.log", "docs/**/draft-*.md",
                "!third_party/**/*.a", "coverage/", ".env", "*.secret", "!example.secret", ""]),
            ".ignore": "# rg/fd only\n*.min.js\nexperimental/**/fixtures/\n",
            ".editorconfig": "root = true\n[*]\nindent_style = space\n",
            ".eslintrc.json": '{"root": true, "extends": ["eslint:recommended"]}\n',
            ".prettierrc": '{"singleQuote": true}\n',
            ".clang-format": "BasedOnStyle: Google\nColumnLimit: 100\n",
            ".gitattributes": "*.png binary\n",
            ".github/CODEOWNERS": "* @platform-team\n",
            ".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n",
            ".github/workflows/release.yml": "name: release\non:\n  push:\n    tags: ['v*']\n",
            ".github/ISSUE_TEMPLATE/bug.md": "---\nname: Bug\n---\n",
            ".vscode/settings.json": '{"files.exclude": {"**/node_modules": true}}\n',
            ".vscode/extensions.json": '{"recommendations": []}\n',
            "README.md": "# monorepo\n\nSynthetic monorepo for benchmarks (seed %d).\n" % self.seed,
            "LICENSE": "MIT License\n",
            "package.json": '{"private": true, "workspaces": ["packages/*", "apps/*"]}\n',
            "go.work": "go 1.22\n",
            "Cargo.toml": '[workspace]\nmembers = ["libs/*"]\n',
            "Makefile": "all:\n\t@echo build\n",
            "notes 2024.md": "file name with a space\n",
            "caf\u00e9.md": "non-ASCII file name\n",
            "\u6570\u636e.json": "{}\n",
            "example.secret": "re-included by !example.secret\n",
            "api.secret": "ignored by *.secret\n",
            "bundle.min.js": "ignored by .ignore only\n",
            "out/report.txt": "ignored by /out/\n",
            "docs/guide/draft-intro.md": "ignored by docs/**/draft-*.md\n",
            "docs/guide/intro.md": "# intro\n",
            "assets/logo.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)),
            "third_party/zlib/libz.a": b"!<arch>\n",
            "data.local.yaml": "ignored by .git/info/exclude\n",
        }
        cats = {".gitignore": "ignorefile", ".ignore": "ignorefile"}
        for rel, data in root_files.items():
            cat = cats.get(rel, "hidden" if any(c.startswith(".") for c in rel.split("/")) else "root")
            w.write(rel, data, cat)
        remaining = nfiles - w.n
        if remaining < 0:
            raise SystemExit("--files must be at least %d" % len(root_files))
        # projects: skewed sizes (log-normal, the largest ~10x the median), at least 40 files each;
        # the language profile is drawn first, docs projects stay small
        nproj = max(1, remaining // 1000)
        profs = [pick_weighted(rng, PROFILES) for _ in range(nproj)]
        sizes = [min(rng.lognormvariate(0.0, 1.0), 8.0) * (0.2 if pr == "docs" else 1.0) for pr in profs]
        tot = sum(sizes)
        budgets = [max(40, int(remaining * s / tot)) for s in sizes]
        # fix the total exactly
        diff = remaining - sum(budgets)
        order = sorted(range(nproj), key=lambda i: -budgets[i])
        k = 0
        while diff != 0:
            i = order[k % nproj]
            step = 1 if diff > 0 else -1
            if budgets[i] + step >= 40 or step > 0:
                budgets[i] += step
                diff -= step
            k += 1
            if k > 10 * nproj * max(1, abs(diff)) and diff < 0:
                raise SystemExit("--files too small for %d projects" % nproj)
        names = set()
        if remaining < 40:
            budgets = []
            w.write("misc/filler.txt", "x\n", "visible")
        for idx, b in enumerate(budgets):
            prof = profs[idx]
            group = rng.choice(GROUPS)
            if prof == "docs":
                group = "docs"
            while True:
                nm = rng.choice(WORDS) + "-" + rng.choice(WORDS)
                if (group, nm) not in names:
                    break
            names.add((group, nm))
            self.project(idx, group, nm, b, prof)
        # fill (only when --files is tiny)
        j = 0
        while w.n < nfiles:
            w.write("misc/fill%d.txt" % j, "x\n", "visible")
            j += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--files", type=int, default=300000, help="total files to write (default 300000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="delete --out first if it exists")
    ap.add_argument("--git-commit", action="store_true",
                    help="also `git add -A && git commit` so `git ls-files` lists the tracked files")
    ap.add_argument("--no-git", action="store_true", help="do not run git init")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    if os.path.exists(out) and os.listdir(out):
        if not a.force:
            raise SystemExit("%s exists and is not empty (use --force)" % out)
        shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    w = Writer(out)
    Gen(w, a.seed).run(a.files)
    t1 = time.time()
    git_note = "no git"
    if not a.no_git:
        env = dict(os.environ, GIT_AUTHOR_NAME="gen", GIT_AUTHOR_EMAIL="gen@example.invalid",
                   GIT_COMMITTER_NAME="gen", GIT_COMMITTER_EMAIL="gen@example.invalid",
                   GIT_AUTHOR_DATE="2024-01-01T00:00:00Z", GIT_COMMITTER_DATE="2024-01-01T00:00:00Z")
        subprocess.run(["git", "init", "-q", "-b", "main", out], check=True, env=env)
        with open(os.path.join(out, ".git", "info", "exclude"), "a") as f:
            f.write("# added by gen_monorepo.py\n*.local.yaml\n")
        git_note = "git init"
        if a.git_commit:
            subprocess.run(["git", "-C", out, "add", "-A"], check=True, env=env)
            subprocess.run(["git", "-C", out, "-c", "commit.gpgsign=false", "commit", "-q", "-m",
                            "gen_monorepo seed=%d files=%d" % (a.seed, a.files)], check=True, env=env)
            tracked = subprocess.run(["git", "-C", out, "ls-files", "-z"], check=True, env=env,
                                     stdout=subprocess.PIPE).stdout.count(b"\0")
            git_note = "git init + commit (%d tracked files)" % tracked
    t2 = time.time()
    print("gen_monorepo: %s seed=%d" % (out, a.seed))
    print("  files written : %d (+%d symlinks) in %d dirs, %.1f MB of content" % (w.n, w.symlinks, w.dirs, w.bytes / 1e6))
    print("  by category   : " + ", ".join("%s=%d" % (k, v) for k, v in sorted(w.cat.items())))
    print("  (ignored = inside node_modules/build/target/dist/__pycache__/.venv trees; bait = files"
          " matched or re-included by ignore patterns; hidden = dot files/dirs outside ignored trees)")
    print("  time          : generate %.1fs, %s %.1fs" % (t1 - t0, git_note, t2 - t1))


if __name__ == "__main__":
    main()
