#!/usr/bin/env python3
"""Regenerate docs/rules.md: every spec rule id, what it demands, and the tests that hold it.

The one-line descriptions are hand-written in tools/rules-descriptions.txt (this script reads
them and never invents one). Everything else -- which tests hold a rule, which rules only
`src/` cites, which rules nothing cites, and the counts -- is found in the sources:

  * a citation is a rule id written in a comment, doc comment or string of a `.rs` file under
    src/, tests/ or benches/: `G-6`, `C-31`, `T.5` (terminal) or `T-5` (Tools), and every id
    of a written range such as `H-14…H-17` or `C-32..C-35`;
  * a test function (`#[test]`, `#[tokio::test…]`, also inside `proptest!`) holds the rules
    cited in its body, in the comments and attributes directly above it, and in the leading
    `<letter><number>_` tokens of its name (`h11_h6_…` holds H-11 and H-6; `t7`/`t5` mean the
    terminal rule T.n unless the test itself cites the Tools rule T-n or n > 8);
  * a citation in a test file outside any test function (module doc, helper) holds nothing by
    itself; it is reported beside the strict figure as the loose one.

Usage:
  python3 tools/rules-index.py            write docs/rules.md
  python3 tools/rules-index.py --check    exit 1 if docs/rules.md is not what it would write
  python3 tools/rules-index.py --count    print the figures only
  python3 tools/rules-index.py --spec DIR also check the descriptions list exactly the rule
                                          ids of DIR/sources.md and DIR/chat-screen.md
"""

import argparse
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESCRIPTIONS = os.path.join(ROOT, "tools", "rules-descriptions.txt")
OUTPUT = os.path.join(ROOT, "docs", "rules.md")
SCANNED = ("src", "tests", "benches")

FAMILIES = "GABTDEFPHIJKLMNC"
# `T-n` (Tools) and `T.n` (terminal) are different rule families.
ID_RE = re.compile(
    r"\b(?:([" + FAMILIES + r"])-(\d+)|T\.(\d+))"
    r"(?:\s?(?:…|\.\.|–)\s?(?:(?:[" + FAMILIES + r"])-|T\.)?(\d+))?\b"
)
TEST_ATTR_RE = re.compile(r"#\[\s*(?:test|tokio::test|rstest)\b[^\]]*\]")
FN_RE = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def load_descriptions(path):
    """(order of families, family titles, {id: description}, excluded test names)."""
    families, titles, rules, excluded = [], {}, {}, set()
    family = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("== "):
                key, _, title = line[3:].partition(" ")
                family = key
                families.append(key)
                titles[key] = title.strip()
                continue
            if line.startswith("not-a-rule-name "):
                excluded.add(line.split(" ", 1)[1].strip())
                continue
            rule, sep, text = line.partition("\t")
            if not sep or not text.strip() or family is None:
                sys.exit(f"{path}:{number}: expected `ID<TAB>description` under a `== ` heading")
            if rule in rules:
                sys.exit(f"{path}:{number}: {rule} described twice")
            rules[rule] = (family, text.strip())
    return families, titles, rules, excluded


def spec_ids(spec_dir):
    ids = []
    for name in ("sources.md", "chat-screen.md"):
        with open(os.path.join(spec_dir, name), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^- ([A-Z])-(\d+)\. ", line)
                if m:
                    ids.append(f"{m.group(1)}-{m.group(2)}")
                m = re.match(r"^(T\.\d+) \*\*", line)
                if m:
                    ids.append(m.group(1))
    return ids


def mask(text):
    """The text with comments, strings and char literals blanked (newlines kept), so braces
    and `fn`/`#[test]` are found in code only."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'(?:br|rb|r)(#*)"', text[i:])
            if m:
                close = '"' + m.group(1)
                j = text.find(close, i + m.end())
                j = n if j < 0 else j + len(close)
                blank(i, j)
                i = j
            elif text.startswith('b"', i) or text.startswith("b'", i):
                i += 1
            else:
                i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            if text.startswith("\\", i + 1):
                j = text.find("'", i + 2)
                j = n if j < 0 else j
                blank(i, j + 1)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                blank(i, i + 3)
                i += 3
            else:
                i += 1  # a lifetime
        else:
            i += 1
    return "".join(out)


def matching_brace(masked, start):
    depth = 0
    for k in range(start, len(masked)):
        if masked[k] == "{":
            depth += 1
        elif masked[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(masked) - 1


def expand(match):
    """The rule ids one match names (a range names every id in it)."""
    letter, number, terminal, upto = match.groups()
    first = int(number if letter else terminal)
    last = int(upto) if upto else first
    if last < first or last - first > 40:
        last = first
    if letter:
        return [f"{letter}-{k}" for k in range(first, last + 1)]
    return [f"T.{k}" for k in range(first, last + 1)]


def name_ids(name, text):
    """Rule ids named by a test function's leading `<letter><number>_` tokens."""
    ids = []
    for token in name.split("_"):
        m = re.fullmatch(r"([a-z])(\d+)", token)
        if not m or m.group(1).upper() not in FAMILIES:
            break
        letter, number = m.group(1).upper(), int(m.group(2))
        if letter == "T":
            tools, terminal = f"T-{number}" in text, f"T.{number}" in text
            letter_id = f"T-{number}" if tools or (number > 8 and not terminal) else f"T.{number}"
            ids.append(letter_id)
        else:
            ids.append(f"{letter}-{number}")
    return ids


class Index:
    def __init__(self):
        # rule -> {(file, test name)}
        self.tests = defaultdict(set)
        # rule -> {file} for test-file text outside any test function
        self.test_files = defaultdict(set)
        # rule -> {file} for src/ text outside any test function
        self.src = defaultdict(set)
        # rule -> {file}
        self.benches = defaultdict(set)
        self.unknown = defaultdict(set)


def scan_file(index, rel, rules, excluded):
    with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    masked = mask(text)
    line_starts = [0]
    for k, ch in enumerate(text):
        if ch == "\n":
            line_starts.append(k + 1)

    # Each test function's span: from the comments/attributes directly above it to its `}`.
    spans = []
    for attr in TEST_ATTR_RE.finditer(masked):
        fn = FN_RE.search(masked, attr.end())
        if not fn:
            continue
        body = masked.find("{", fn.end())
        if body < 0:
            continue
        end = matching_brace(masked, body)
        # Walk up from the attribute's line over comment and attribute lines.
        line = text.count("\n", 0, attr.start())
        top = line
        while top > 0:
            above = text[line_starts[top - 1] : line_starts[top]].strip()
            if above.startswith("//") or above.startswith("#[") or above.startswith("#!["):
                if above.startswith("#!["):
                    break
                top -= 1
            else:
                break
        spans.append((line_starts[top], end, fn.group(1)))

    # `#[cfg(test)] mod … { … }` blocks: their text outside test functions is test-file text.
    test_mods = []
    for attr in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+\w+\s*\{", masked):
        test_mods.append((attr.start(), matching_brace(masked, attr.end() - 1)))
    whole_file_is_tests = rel.startswith("src/") and (
        rel.endswith("/tests.rs") or rel.endswith("_tests.rs")
    )

    def in_test_module(pos):
        return whole_file_is_tests or any(a <= pos <= b for a, b in test_mods)

    def owner(pos):
        for start, end, name in spans:
            if start <= pos <= end:
                return name
        return None

    is_src = rel.startswith("src/")
    is_bench = rel.startswith("benches/")
    for m in ID_RE.finditer(text):
        for rule in expand(m):
            if rule not in rules:
                index.unknown[rule].add(rel)
                continue
            test = owner(m.start())
            if is_bench:
                index.benches[rule].add(rel)
            elif test:
                index.tests[rule].add((rel, test))
            elif is_src and not in_test_module(m.start()):
                index.src[rule].add(rel)
            else:
                index.test_files[rule].add(rel)
    for start, end, name in spans:
        if f"{rel}::{name}" in excluded:
            continue
        for rule in name_ids(name, text[start : end + 1]):
            if rule in rules:
                index.tests[rule].add((rel, name))


def build(rules, excluded):
    index = Index()
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".rs"):
                    rel = os.path.relpath(os.path.join(dirpath, name), ROOT)
                    scan_file(index, rel.replace(os.sep, "/"), rules, excluded)
    return index


def figures(rules, index):
    tested = [r for r in rules if index.tests[r]]
    loose = [r for r in rules if index.tests[r] or index.test_files[r]]
    src_only = [r for r in rules if not index.tests[r] and index.src[r]]
    file_only = [r for r in rules if not index.tests[r] and not index.src[r] and index.test_files[r]]
    cited = [r for r in rules if index.tests[r] or index.test_files[r] or index.src[r]
             or index.benches[r]]
    not_cited = [r for r in rules if r not in set(cited)]
    return tested, loose, src_only, file_only, not_cited


def tests_line(pairs):
    by_file = defaultdict(list)
    for rel, name in sorted(pairs):
        by_file[rel].append(name)
    return " · ".join(
        f"`{rel}`: " + ", ".join(f"`{n}`" for n in names) for rel, names in sorted(by_file.items())
    )


def files_line(files):
    return ", ".join(f"`{f}`" for f in sorted(files))


def render(families, titles, rules, index):
    tested, loose, src_only, file_only, not_cited = figures(rules, index)
    total = len(rules)
    tested_set = set(tested)
    out = []
    w = out.append
    w("# Rules: what each spec rule demands, and the tests that hold it")
    w("")
    w("<!-- Generated by tools/rules-index.py from tools/rules-descriptions.txt (the hand-written")
    w("     one-line descriptions) and the sources. Edit those, then run the script. -->")
    w("")
    w("The rule ids cited in code, tests and docs (`G-6`, `H-11`, `C-31`, `T.5` …) come from the")
    w("project's spec, which lives outside this repository: `G-n` general rules and `A-n`…`N-n`")
    w("the ownership rules of each source and save (spec `sources.md`); `C-n` the Keeper chat")
    w("screen and `T.n` terminal behaviour (spec `chat-screen.md`). `T-n` (dash) is the Tools")
    w("source, `T.n` (dot) the terminal. `§n.m` names a protocol section, not a rule. Each line")
    w("below says in one sentence what the rule demands; the spec text stays the authority.")
    w("")
    w("## Figures")
    w("")
    w(f"- **{len(tested)} of {total}** spec rules are held by at least one test function (cited in")
    w("  its body, in the comments directly above it, or by its name's leading rule tokens).")
    w(f"- {len(loose)} of {total} are cited somewhere in `tests/` (also counting module docs and")
    w("  helpers, which name no test).")
    w(f"- {len(src_only)} are cited in `src/` but by no test function: \"Cited, not yet tested\".")
    if file_only:
        w(f"- {len(file_only)} are cited only in test files' module docs or helpers: listed there too.")
    w(f"- {len(not_cited)} are cited nowhere: \"Not cited\".")
    w("")
    w("Command: `python3 tools/rules-index.py --count` (the figures);")
    w("`python3 tools/rules-index.py` rewrites this file; `--check` fails when it is stale.")
    w("")
    w("How citations are found: a rule id (or every id of a range like `H-14…H-17`) in any")
    w("comment, doc comment or string of `src/`, `tests/` and `benches/`; a test function holds")
    w("what is cited inside it or directly above it, and the rules its name starts with")
    w("(`h11_h6_…` holds H-11 and H-6).")
    w("")
    for fam in families:
        members = [r for r in rules if rules[r][0] == fam and r in tested_set]
        if not members:
            continue
        w(f"## {titles[fam]}")
        w("")
        for r in members:
            w(f"- **{r}** {rules[r][1]}")
            w(f"  Tests: {tests_line(index.tests[r])}")
            if index.benches[r]:
                w(f"  Benches: {files_line(index.benches[r])}")
        w("")
    w("## Cited, not yet tested")
    w("")
    w("Cited in `src/` (or only in a test file's module doc or helper) but by no test function.")
    w("")
    for r in rules:
        if r in tested_set or not (index.src[r] or index.test_files[r]):
            continue
        where = sorted(index.src[r] | index.test_files[r])
        w(f"- **{r}** {rules[r][1]}")
        w(f"  Cited in: {files_line(where)}")
    w("")
    w("## Not cited")
    w("")
    w(f"{len(not_cited)} rules are cited nowhere in `src/`, `tests/` or `benches/`.")
    w("")
    for r in not_cited:
        w(f"- **{r}** {rules[r][1]}")
    w("")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--count", action="store_true")
    parser.add_argument("--spec", metavar="DIR")
    args = parser.parse_args()

    families, titles, rules, excluded = load_descriptions(DESCRIPTIONS)
    if args.spec:
        wanted = spec_ids(args.spec)
        missing = [r for r in wanted if r not in rules]
        extra = [r for r in rules if r not in set(wanted)]
        if missing or extra:
            sys.exit(f"descriptions differ from the spec: missing {missing}, not in spec {extra}")
    index = build(rules, excluded)
    if index.unknown:
        for rule, files in sorted(index.unknown.items()):
            print(f"warning: {rule} is not a spec rule (cited in {files_line(files)})",
                  file=sys.stderr)

    if args.count:
        tested, loose, src_only, file_only, not_cited = figures(rules, index)
        total = len(rules)
        print(f"{len(tested)} of {total} spec rules held by a test function")
        print(f"{len(loose)} of {total} cited anywhere in tests/")
        print(f"{len(src_only)} cited in src/ but by no test function")
        print(f"{len(file_only)} cited only in test files outside any test function")
        print(f"{len(not_cited)} not cited")
        return 0

    text = render(families, titles, rules, index)
    if args.check:
        with open(OUTPUT, encoding="utf-8") as f:
            if f.read() != text:
                print("docs/rules.md is stale: run python3 tools/rules-index.py", file=sys.stderr)
                return 1
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
