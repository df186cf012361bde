#!/usr/bin/env python3
"""Every synopsis of an OpenSHMEM specification as one C file that compiles
against shmem.h only if the header agrees with it (tests/spec_synopses.rs).

Usage: scripts/spec-synopses.py SPEC [--tag TAG] [-o OUT]
  SPEC   the specification's repository (github.com/openshmem-org/specification):
         a checkout, read from its work tree, or with --tag any clone, bare or
         not, read with `git show TAG:path`
  --tag  the release to read (v1.6); without it the work tree as it is
  -o     where to write the C file (default: standard output)

The document is main_spec.tex and the files it \\input's (and they), in order. Each
C11synopsis, Csynopsis and CsynopsisCol environment is read, and TYPE,
TYPENAME and SIZE are expanded over the "where ..." sentence that follows it:
a type table it names (\\ref{stdrmatypes}, ...; for reductions the rows whose
operations include the one named), an explicit list (\\{\\CTYPE{int}, ...\\}),
or both joined by "or TYPE is one of". The C file has, for a C/C++ synopsis,
a typed function pointer initialised with the routine (declared by the
header, with exactly that type), a redeclaration of the routine (a
conflicting declaration is an error) and a call; for a C11 synopsis, a call
for every TYPE. Each call has arguments of exactly the parameter types and
its result must have exactly the return type (in C11 and C++). For a
typedef'd struct, each member's type; for _Noreturn, a function that ends
without a return statement (-Wreturn-type).
A deprecated C/C++ synopsis whose name the C11 generic of that name takes over
(shmem_wait_until, shmem_sync) is checked in C99 and C++, not in C11. Last,
the profiling interface: each shmem_ routine of a C/C++ synopsis as pshmem_,
declared by pshmem.h.

Whatever cannot be read is listed on stderr with the counts, and the exit
status is 1.
"""
import argparse
import os
import re
import subprocess
import sys

SYNOPSIS_ENVS = ("C11synopsis", "Csynopsis", "CsynopsisCol")
TOKEN = re.compile(
    r"\\begin\{(?P<env>C11synopsis|Csynopsis|CsynopsisCol)\}(?P<body>.*?)\\end\{(?P=env)\}"
    r"|\\(?P<dep>begin|end)\{DeprecateBlock\}"
    r"|\\begin\{apiarguments\}",
    re.S,
)


class Spec:
    """The specification's files, from a work tree or a git tag."""

    def __init__(self, root, tag):
        self.root, self.tag = root, tag

    def read(self, path):
        if self.tag is None:
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                return f.read()
        return subprocess.run(
            ["git", "-C", self.root, "show", f"{self.tag}:{path}"],
            check=True, capture_output=True, text=True,
        ).stdout

    def release(self):
        """The tag read, or the tag the work tree is at, or None."""
        if self.tag or not os.path.isdir(os.path.join(self.root, ".git")):
            return self.tag
        r = subprocess.run(["git", "-C", self.root, "describe", "--tags", "--exact-match"],
                           capture_output=True, text=True)
        return r.stdout.strip() or None

    def commit(self):
        rev = self.tag or "HEAD"
        try:
            return subprocess.run(
                ["git", "-C", self.root, "rev-parse", f"{rev}^{{commit}}"],
                check=True, capture_output=True, text=True,
            ).stdout.strip()
        except (subprocess.CalledProcessError, FileNotFoundError):
            return None


def strip_comments(text):
    """TeX comments removed outside the listing environments (verbatim there)."""
    out, pos = [], 0
    for m in re.finditer(r"\\begin\{(%s)\}.*?\\end\{\1\}" % "|".join(SYNOPSIS_ENVS), text, re.S):
        out.append(uncomment(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(uncomment(text[pos:]))
    return "".join(out)


def uncomment(text):
    lines = []
    for line in text.split("\n"):
        if line.lstrip().startswith("%"):
            lines.append("%")  # no paragraph break, and the line numbers kept
            continue
        lines.append(re.sub(r"(?<!\\)%.*", "", line))
    return "\n".join(lines)


def document_files(spec):
    """The content files main_spec.tex \\input's, and those they \\input, in order."""
    files = []

    def inputs(path):
        for name in re.findall(r"\\input\{([^}]+)\}", uncomment(spec.read(path))):
            name = name if name.endswith(".tex") else name + ".tex"
            if name.startswith("content/") and name not in files:
                files.append(name)
                inputs(name)

    inputs("main_spec.tex")
    return files


def detex(s):
    s = s.replace("\\_", "_").replace("~", " ")
    s = re.sub(r"\\(?:CTYPE|CONST|FUNC|VAR)\{([^{}]*)\}", r"\1", s)
    return re.sub(r"\s+", " ", s).strip()


def tables(texts):
    """label -> rows (TYPE, TYPENAME, operations) of every type table."""
    out = {}
    for text in texts:
        for m in re.finditer(r"\\begin\{tabular\}(.*?)\\end\{tabular\}(.*?)\\label\{(\w+)\}", text, re.S):
            body, between, label = m.groups()
            if "\\begin{tabular}" in between or "\\TYPENAME" not in body:
                continue
            rows = []
            for row in body.split("\\\\"):
                cells = [detex(c.replace("\\hline", "")) for c in row.split("&")]
                if len(cells) < 2 or not cells[0] or "\\TYPE" in row:
                    continue
                cells[0] = re.sub(r"^\{[^}]*\}", "", cells[0]).strip()  # column spec
                rows.append((cells[0], cells[1], " ".join(cells[2:])))
            out[label] = rows
    return out


class Decl:
    def __init__(self, spec, ret, name, params):
        self.spec, self.ret, self.name, self.params = spec, ret, name, params


def parse_decls(body):
    """The declarations of a synopsis body: (decls, structs, problems)."""
    structs, problems = [], []
    struct_re = re.compile(r"typedef\s+struct\s*\{(.*?)\}\s*(\w+)\s*;", re.S)
    for m in struct_re.finditer(body):
        members = []
        for field in m.group(1).split(";"):
            field = " ".join(field.split())
            if not field:
                continue
            fm = re.match(r"^(.*?)\s*(?<!\w)(\w+)$", field)
            if not fm or not fm.group(1):
                problems.append(f"struct member {field!r}")
                continue
            members.append((fm.group(1), fm.group(2)))
        structs.append((m.group(2), members))
    text = struct_re.sub("", body)
    # @\FuncDecl{shmem\_\FuncParam{TYPENAME}\_put}@: the name, escaped.
    text = re.sub(r"@(.*?)@", lambda m: re.sub(r"\\(?:FuncDecl|FuncParam)|[{}]", "", m.group(1)), text, flags=re.S)
    text = text.replace("\\_", "_")
    decls = []
    for raw in text.split(";"):
        d = " ".join(raw.split())
        if not d:
            continue
        if not re.fullmatch(r"[\w\s*,().]+", d):
            problems.append(f"not C: {d!r}")
            continue
        m = re.match(r"^(?P<spec>(?:_Noreturn\s+)?)(?P<ret>.*?)(?<!\w)(?P<name>[A-Za-z_]\w*)\s*\((?P<params>.*)\)$", d)
        if not m or not m.group("ret").strip():
            problems.append(f"declaration {d!r}")
            continue
        params = []
        plist = m.group("params").strip()
        ok = True
        if plist != "void":
            for p in plist.split(","):
                p = p.strip()
                if p == "...":
                    params.append(("...", None))
                    continue
                pm = re.match(r"^(.*?)\s*(?<!\w)(\w+)$", p)
                if not pm or not pm.group(1).strip():
                    problems.append(f"parameter {p!r} in {d!r}")
                    ok = False
                    break
                params.append((pm.group(1).strip(), pm.group(2)))
        if ok:
            decls.append(Decl(m.group("spec").strip(), m.group("ret").strip(), m.group("name"), params))
    return decls, structs, problems


def where_clause(after):
    """The "where ..." sentence right after a synopsis (to the paragraph's end)."""
    rest = re.sub(r"^(\s|\\end\{DeprecateBlock\})*", "", after)
    if not rest.startswith("where"):
        return ""
    return re.split(r"\n\s*\n", rest, maxsplit=1)[0]


def type_rows(clause, tabs, problems):
    """[(TYPE, TYPENAME)] the where clause gives TYPE, or None if it says nothing."""
    text = clause.replace("\\begin{DeprecateBlock}", " ").replace("\\end{DeprecateBlock}", " ")
    text = re.sub(r"\s+", " ", text)
    m = re.search(r"\\TYPE\{\}\s+is\s+one\s+of", text)
    if not m:
        return None
    text = text[m.start():]
    # The SIZE part, if any, is another sentence.
    text = re.split(r"\\SIZE\{\}", text)[0]
    rows = []
    for alt in re.split(r"\bor\s+\\TYPE\{\}\s+is\s+one\s+of", text):
        refs = re.findall(r"\\ref\{(\w+)\}", alt)
        for r in refs:
            if r not in tabs:
                problems.append(f"table {r!r} not found")
                return []
        explicit = re.search(r"\\\{(.*?)\\\}", alt)
        op = re.search(r"for the (\w+) operation", alt)
        if explicit:
            names = [detex(t) for t in re.findall(r"\\CTYPE\{([^{}]*)\}", explicit.group(1))]
            if not names:
                problems.append(f"type list {explicit.group(0)!r}")
                return []
            table = [row for r in refs for row in tabs[r]]
            for t in names:
                hit = [row for row in table if row[0] == t]
                rows.append((t, hit[0][1] if hit else None))
        elif refs:
            for row in tabs[refs[0]]:
                if op and not re.search(r"\b%s\b" % op.group(1), row[2]):
                    continue
                rows.append((row[0], row[1]))
        else:
            problems.append(f"types in {alt.strip()!r}")
            return []
    return rows


def size_values(clause):
    m = re.search(r"\\SIZE\{\}\s+is\s+one\s+of\s+\\CONST\{([^}]*)\}", clause)
    return [v.strip() for v in m.group(1).split(",")] if m else None


class Synopsis:
    def __init__(self, env, file, line, deprecated, decl, rows, sizes):
        self.env, self.file, self.line, self.deprecated = env, file, line, deprecated
        self.decl, self.rows, self.sizes = decl, rows, sizes

    def generic(self):
        return self.env == "C11synopsis"


def read_synopses(spec, files, tabs):
    synopses, structs, problems, empty = [], [], [], 0
    envs = {e: 0 for e in SYNOPSIS_ENVS}
    for path in files:
        text = strip_comments(spec.read(path))
        depth = 0
        tokens = list(TOKEN.finditer(text))
        for i, m in enumerate(tokens):
            if m.group("dep"):
                depth += 1 if m.group("dep") == "begin" else -1
                if depth < 0:
                    problems.append(f"{path}: \\end{{DeprecateBlock}} without a begin")
                    depth = 0
                continue
            if not m.group("env"):
                continue
            envs[m.group("env")] += 1
            line = text.count("\n", 0, m.start()) + 1
            where = f"{path}:{line}"
            body = m.group("body")
            if not body.strip():
                empty += 1
                continue
            # The where clause is before the next synopsis or the arguments.
            nxt = [t for t in tokens[i + 1:] if t.group("env") or not t.group("dep")]
            end = nxt[0].start() if nxt else len(text)
            clause = where_clause(text[m.end():end])
            decls, structs_here, bad = parse_decls(body)
            problems += [f"{where}: {b}" for b in bad]
            structs += [(s, where) for s in structs_here]
            for d in decls:
                sig = " ".join([d.ret, d.name] + [t for t, _ in d.params])
                mine = []
                rows = None
                if re.search(r"\bTYPE\b|TYPENAME", sig):
                    rows = type_rows(clause, tabs, mine)
                    if rows is None:
                        mine.append(f"no TYPE in the where clause of {d.name}")
                    elif not rows:
                        mine.append(f"no TYPE rows for {d.name}")
                    elif "TYPENAME" in d.name and any(n is None for _, n in rows):
                        mine.append(f"a TYPE without TYPENAME for {d.name}: {rows}")
                sizes = None
                if "SIZE" in d.name:
                    sizes = size_values(clause)
                    if not sizes:
                        mine.append(f"no SIZE in the where clause of {d.name}")
                if mine:
                    problems += [f"{where}: {p}" for p in mine]
                    continue
                synopses.append(Synopsis(m.group("env"), path, line, depth > 0, d, rows, sizes))
        if depth:
            problems.append(f"{path}: a DeprecateBlock is not closed")
    return synopses, structs, problems, empty, envs


def subst(s, ctype):
    return re.sub(r"\bTYPE\b", ctype, s)


def expand(syn):
    """(name, ret, [(ptype, pname)], TYPE or None) for each instance."""
    d = syn.decl
    out = []
    rows = syn.rows if syn.rows is not None else [(None, None)]
    for ctype, tname in rows:
        for size in syn.sizes or [None]:
            name = d.name
            if tname is not None:
                name = name.replace("TYPENAME", tname)
            if size is not None:
                name = name.replace("SIZE", size)
            ret = subst(d.ret, ctype) if ctype else d.ret
            params = [(subst(t, ctype) if ctype else t, n) for t, n in d.params]
            out.append((name, ret, params, ctype))
    return out


def declarator(ret, params):
    """(return type without its stars, the stars, the parameter list)."""
    ps = ", ".join(t if n is None else f"{t} {n}".replace("* ", "*") for t, n in params) or "void"
    star = ""
    while ret.endswith("*"):
        ret, star = ret[:-1].rstrip(), star + "*"
    return ret, star, ps


def proto(name, ret, params, spec=""):
    r, star, ps = declarator(ret, params)
    lead = f"{spec} " if spec else ""
    return f"{lead}{r} {star}({name})({ps});"


def pointer(name, ret, params):
    r, star, ps = declarator(ret, params)
    return f"{{ {r} {star}(*syn_p)({ps}) = &{name}; (void) syn_p; }}"


def var(ptype, pname):
    ptype = ptype.replace("* ", "*")
    if ptype.endswith("*"):
        return f"{ptype}{pname} = 0;" if ptype.endswith(" *") else f"{ptype} {pname} = 0;"
    return f"{ptype} {pname} = 0;"


def call(name, ret, params):
    decls = " ".join(var(t, n) for t, n in params if n is not None)
    args = ", ".join(n for _, n in params if n is not None)
    expr = f"{name}({args})"
    body = f"SYN_VOID({expr});" if ret == "void" else f"SYN_RET({ret}, {expr});"
    return f"{{ {decls} {body} }}".replace("  ", " ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec")
    ap.add_argument("--tag")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    spec = Spec(a.spec, a.tag)
    files = document_files(spec)
    texts = {f: strip_comments(spec.read(f)) for f in files}
    tabs = tables(texts.values())
    synopses, structs, problems, empty, envs = read_synopses(spec, files, tabs)

    generic_names = {s.decl.name for s in synopses if s.generic()}
    protos, seen = [], {}
    calls = []
    counts = {"C prototypes": 0, "typed C prototypes": 0, "C11 generic calls": 0,
              "C11 synopses": 0, "C/C++ synopses": 0, "struct members": 0}
    for s in synopses:
        if s.generic():
            counts["C11 synopses"] += 1
            for name, ret, params, ctype in expand(s):
                calls.append((s, name, ret, params, ctype))
                counts["C11 generic calls"] += 1
            continue
        counts["C/C++ synopses"] += 1
        # The C11 generic of the same name replaces a deprecated C routine.
        c99_only = s.deprecated and s.decl.name in generic_names
        for name, ret, params, ctype in expand(s):
            key = (name, ret, tuple(t for t, _ in params))
            if name in seen:
                if seen[name] != key:
                    problems.append(f"{s.file}:{s.line}: {name} has two different synopses")
                continue
            seen[name] = key
            protos.append((s, name, ret, params, c99_only))
            counts["typed C prototypes" if s.rows or s.sizes else "C prototypes"] += 1
    counts["struct members"] = sum(len(m) for (_, m), _ in structs)

    out = []
    w = out.append
    commit = spec.commit()
    release = spec.release() or "(work tree)"
    w("/*")
    w(" * Every synopsis of the OpenSHMEM specification, release %s%s," % (
        release, f" (commit {commit[:12]})" if commit else ""))
    w(" * as C that compiles only if shmem.h agrees with it: tests/spec_synopses.rs")
    w(" * compiles it as C11 and C17, C99, C++11 and C++17 (docs/compatibility.md).")
    w(" *")
    w(" * Generated by scripts/spec-synopses.py; do not edit. Regenerate with")
    w(" *   python3 scripts/spec-synopses.py SPEC --tag %s -o tests/spec/synopses-%s.c" % (
        release, release.lstrip("v")))
    w(" * where SPEC is a clone of github.com/openshmem-org/specification.")
    w(" *")
    w(" * %d C/C++ synopses: %d prototypes, %d more from TYPE/TYPENAME/SIZE expanded" % (
        counts["C/C++ synopses"], counts["C prototypes"], counts["typed C prototypes"]))
    w(" * over the specification's tables, each checked as declared, redeclared and")
    w(" * called; %d C11 synopses: %d calls, one per TYPE;" % (
        counts["C11 synopses"], counts["C11 generic calls"]))
    w(" * %d struct members of %d typedefs; the %d shmem_ routines as pshmem_." % (
        counts["struct members"], len(structs),
        sum(1 for _, n, _, _, _ in protos if n.startswith("shmem_"))))
    w(" */")
    w("#include <shmem.h>")
    w("")
    w("/* SYN_GENERIC: the C11 calls are checked (C11 generics, C++ overloads);")
    w(" * SYN_NOT_C11: the deprecated C routines whose names C11 generics take")
    w(" * over (C99 and C++). SYN_RET(T, e): the call e, whose type must be")
    w(" * exactly T (C11 and C++); SYN_VOID(e): the call e, of type void (C++). */")
    w("#if defined(__cplusplus)")
    w("#include <type_traits>")
    w("#define SYN_GENERIC 1")
    w("#define SYN_NOT_C11 1")
    w("#define SYN_RET(T, e) T syn_r = e; (void) syn_r; \\")
    w("    static_assert(std::is_same<T, decltype(e)>::value, #e \" returns \" #T)")
    w("#define SYN_VOID(e) e; static_assert(std::is_same<void, decltype(e)>::value, #e \" returns void\")")
    w("#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L")
    w("#define SYN_GENERIC 1")
    w("#define SYN_RET(T, e) T syn_r = e; (void) syn_r; \\")
    w("    _Static_assert(_Generic((e), T: 1, default: 0), #e \" returns \" #T)")
    w("#define SYN_VOID(e) e")
    w("#else")
    w("#define SYN_NOT_C11 1")
    w("#define SYN_RET(T, e) T syn_r = e; (void) syn_r")
    w("#define SYN_VOID(e) e")
    w("#endif")
    w("")
    w("#ifdef __cplusplus")
    w('extern "C" {')
    w("#endif")
    w("void syn_declared(void);")
    w("void syn_calls(void);")
    w("void syn_generic_calls(void);")
    w("void syn_pshmem_declared(void);")
    w("#ifdef __cplusplus")
    w("}")
    w("#endif")
    w("")
    w("/* Declared by shmem.h, each with exactly the synopsis's type (before the")
    w(" * redeclarations below, which would declare a missing one). */")
    w("void syn_declared(void)")
    w("{")
    last = None

    def where(s):
        nonlocal last
        tag = f"{s.file}:{s.line}{' (deprecated)' if s.deprecated else ''}"
        if tag != last:
            w(f"    /* {tag} */")
            last = tag

    def guarded(lines, c99_only):
        if c99_only:
            w("#ifdef SYN_NOT_C11")
        for x in lines:
            w(x)
        if c99_only:
            w("#endif")

    for s, name, ret, params, c99_only in protos:
        where(s)
        guarded(["    " + pointer(name, ret, params)], c99_only)
    for (sname, members), loc in structs:
        w(f"    /* {loc} */")
        for mtype, mname in members:
            w(f"    {{ {sname} syn_v; {mtype} *syn_m = &syn_v.{mname}; (void) syn_m; }}")
    w("}")
    w("")
    noret = [(s, name, ret, params) for s, name, ret, params, _ in calls if "_Noreturn" in s.decl.spec]
    if noret:
        w("#ifdef SYN_GENERIC")
        w("/* _Noreturn (C11) and [[noreturn]] (C++): these end without a return")
        w(" * statement, an error under -Wreturn-type otherwise. */")
        for i, (s, name, ret, params) in enumerate(noret):
            decls = " ".join(var(t, n) for t, n in params)
            args = ", ".join(n for _, n in params)
            w(f"int syn_noreturn_{i}(void);")
            w(f"int syn_noreturn_{i}(void) {{ {decls} {name}({args}); }}")
        w("#endif")
        w("")
    w("/* The synopses as declarations: conflicting types are an error. */")
    w("#ifdef __cplusplus")
    w('extern "C" {')
    w("#endif")
    last = None
    for s, name, ret, params, c99_only in protos:
        where(s)
        guarded([proto(name, ret, params)], c99_only)
    w("#ifdef __cplusplus")
    w("}")
    w("#endif")
    w("")
    w("/* The C/C++ synopses as calls (compiled, never run), through the C11")
    w(" * generic macro or the C++ overloads where the name is also generic. */")
    w("void syn_calls(void)")
    w("{")
    last = None
    for s, name, ret, params, c99_only in protos:
        where(s)
        guarded(["    " + call(name, ret, params)], c99_only)
    w("}")
    w("")
    w("#ifdef SYN_GENERIC")
    w("/* The C11 synopses as calls (compiled, never run). */")
    w("void syn_generic_calls(void)")
    w("{")
    last = None
    for s, name, ret, params, ctype in calls:
        where(s)
        w("    " + call(name, ret, params))
    w("}")
    w("#endif")
    w("")
    profiled = [(s, "p" + name, ret, params) for s, name, ret, params, _ in protos
                if name.startswith("shmem_")]
    counts["pshmem_ prototypes"] = len(profiled)
    w("/* The profiling interface (its section of the specification): every")
    w(" * shmem_ routine above as pshmem_, declared by pshmem.h (in C11 too: the")
    w(" * generics have no pshmem_ form). */")
    w("#include <pshmem.h>")
    w("")
    w("void syn_pshmem_declared(void)")
    w("{")
    last = None
    for s, name, ret, params in profiled:
        where(s)
        w("    " + pointer(name, ret, params))
    w("}")
    w("")
    w("#ifdef __cplusplus")
    w('extern "C" {')
    w("#endif")
    last = None
    for s, name, ret, params in profiled:
        where(s)
        w(proto(name, ret, params))
    w("#ifdef __cplusplus")
    w("}")
    w("#endif")
    text = "\n".join(out) + "\n"
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)

    print(f"spec-synopses: {len(files)} files of {release}; environments: "
          + ", ".join(f"{k} {v}" for k, v in envs.items())
          + f" ({empty} empty); {len(synopses)} declarations in them, "
          f"{len(structs)} typedefs", file=sys.stderr)
    for k, v in counts.items():
        print(f"  {k}: {v}", file=sys.stderr)
    print(f"  unparsed: {len(problems)}", file=sys.stderr)
    for p in problems:
        print(f"  UNPARSED {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
