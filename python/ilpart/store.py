"""Partition stores: solve a joint graph once, offline, and reuse the answer at every compile.

A store is a directory of plain files (docs/python.md "Partition store"):

    graphs/FINGERPRINT.json   a joint graph, as first exported (first writer wins)
    policies/SHA256.json      policy files, by the SHA-256 of their bytes
    entries/KEY.json          one request: the graph's fingerprint and the solve options
    partitions/KEY.json       the best answer so far (replaced only by a better one)
    status/KEY.json           what the last `ilpart batch` attempt did
    locks/, tmp/              flock files; temporaries renamed into place

KEY is the SHA-256 of {"args": [...], "fingerprint": "...", "ilpart": "ilpart 0.1.0"}
(sorted keys, no spaces): the same graph under the same options and the same ilpart,
whatever the node names and whatever process compiled it. "args" are the effective
options: every `ilpart solve` option whose default decides the answer is written out
(SOLVE_DEFAULTS), so a store filled before a default changed meaning answers nothing
under the new one, and "ilpart" is the binary's `--version`. Every file appears whole (written to tmp/, then linked or renamed into place), entries
and graphs are never rewritten, and partitions are replaced under a per-entry lock, so any
number of processes may compile into one store at once. Standard library only.
"""

import errno
import fcntl
import hashlib
import json
import os
import subprocess
import tempfile
import warnings

from . import runner
from .graphfile import dumps
from .runner import IlpartError, IlpartWarning

__all__ = ["Store", "store_solver", "solve_args", "entry_key", "better", "SOLVE_DEFAULTS"]

ON_MISS = ("solve", "mincut", "error")

# `ilpart solve`'s defaults for the options that change an answer (cli/cmd_solve.c,
# `ilpart solve --help`); tests/python/test_store_notorch.py checks them against the
# binary. A default that changes meaning must change here, and so changes every key.
SOLVE_DEFAULTS = (("--bans", "pytorch"), ("--device", "h100"), ("--fraction-cap", "pytorch"),
                  ("--rng-replay", "auto"), ("--prefer", "hard"))


def solve_args(objective="memory", memory_budget=None, prefer="hard", policy=None,
               extra_args=None, **more):
    """The `ilpart solve` options for solve()'s keyword arguments, without the time limit
    (a limit changes how well a request is answered, not the request)."""
    args = runner._args("solve", objective, memory_budget, prefer, None, policy, extra_args,
                        **more)
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "--time-limit":
            skip = True
        elif not a.startswith("--time-limit="):
            out.append(a)
    return effective_args(out)


def effective_args(args):
    """args with every SOLVE_DEFAULTS option moved to the end, in the table's order, as
    "--opt value": its value as given (--opt value or --opt=value; the last wins, as in
    the CLI) or else its default. The same request always has the same list."""
    value = dict(SOLVE_DEFAULTS)
    out, i = [], 0
    while i < len(args):
        a = args[i]
        opt = a.split("=", 1)[0]
        if opt in value and "=" in a:
            value[opt] = a.split("=", 1)[1]
        elif opt in value and i + 1 < len(args):
            value[opt] = args[i + 1]
            i += 1
        else:
            out.append(a)
        i += 1
    for opt, _default in SOLVE_DEFAULTS:
        out += [opt, value[opt]]
    return out


def entry_key(fingerprint, args, version):
    """The store key of a request: graph fingerprint, effective arguments (solve_args)
    and the ilpart binary's version line."""
    text = json.dumps({"args": list(args), "fingerprint": fingerprint, "ilpart": version},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _rank(part):
    prod = (part or {}).get("producer", {})
    return prod.get("status") == "optimal", prod.get("objective_value"), prod.get("gap")


def better(new, old):
    """Whether partition dict `new` answers the same request better than `old` (None: no
    answer): proven optimal beats not proven, then the lower objective, then the smaller
    gap; a tie keeps `old`. The same rule as `ilpart batch`."""
    if new is None:
        return False
    if old is None:
        return True
    (no, nv, ng), (oo, ov, og) = _rank(new), _rank(old)
    if no != oo:
        return no
    if nv is not None and ov is not None and nv != ov:
        return nv < ov
    if nv is not None and ov is None:
        return True
    return ng is not None and (og is None or ng < og)


class Store:
    """One store directory; see the module docstring."""

    SUBDIRS = ("graphs", "policies", "entries", "partitions", "status", "locks", "tmp")

    def __init__(self, root, binary=None):
        self.root = os.path.abspath(os.fspath(root))
        # the path as the user gave it, for messages (inside a chroot, root is the
        # chroot's view of it)
        self.given = os.fspath(root)
        self.binary = binary
        self._versions = {}
        for d in self.SUBDIRS:
            os.makedirs(os.path.join(self.root, d), exist_ok=True)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def _bin(self):
        return self.binary or runner.find_binary()

    # ---- whole files -------------------------------------------------------------

    def _tmp(self, text, suffix=".json"):
        fd, tmp = tempfile.mkstemp(dir=self.path("tmp"), suffix=suffix)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        return tmp

    def _publish(self, tmp, dest):
        """Link tmp into place unless dest exists (first writer wins); True if linked."""
        try:
            os.link(tmp, dest)
            return True
        except OSError as e:
            if e.errno == errno.EEXIST:
                return False
            if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            # No hard links here: rename when nothing is there yet. Two writers may
            # both rename; each file is whole and either is right.
            if os.path.exists(dest):
                return False
            os.replace(tmp, dest)
            return True
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def _run(self, *argv):
        proc = subprocess.run([self._bin()] + [str(a) for a in argv], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
        return proc.returncode, proc.stdout, proc.stderr.strip()

    # ---- requests ------------------------------------------------------------------

    def version(self):
        """The binary's `ilpart --version` line (part of every key)."""
        b = self._bin()
        if b not in self._versions:
            rc, out, err = self._run("--version")
            if rc != 0 or not out.strip():
                raise IlpartError("%s --version failed (exit %d): %s" % (b, rc, err), rc)
            self._versions[b] = out.strip().splitlines()[0]
        return self._versions[b]

    def fingerprint(self, graph_path):
        rc, out, err = self._run("info", graph_path)
        for line in out.splitlines():
            if line.startswith("fingerprint: "):
                return line.split(": ", 1)[1].strip()
        raise IlpartError("ilpart info %s failed (exit %d): %s" % (graph_path, rc, err), rc)

    def add_policy(self, policy):
        """Copies a policy file into the store; returns its store-relative path."""
        with open(os.fspath(policy), "rb") as f:
            data = f.read()
        rel = "policies/%s.json" % hashlib.sha256(data).hexdigest()
        if not os.path.exists(self.path(rel)):
            fd, tmp = tempfile.mkstemp(dir=self.path("tmp"))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644)
            self._publish(tmp, self.path(rel))
        return rel

    def record(self, graph_tmp, fingerprint, args, nodes):
        """Makes graphs/FP.json (from graph_tmp, which this consumes) and entries/KEY.json
        exist; returns (key, whether this process wrote the stored graph). The entry is
        written last: an entry always has its graph and policy."""
        gpath = self.path("graphs", fingerprint + ".json")
        mine = self._publish(graph_tmp, gpath)
        key = entry_key(fingerprint, args, self.version())
        epath = self.path("entries", key + ".json")
        if not os.path.exists(epath):
            entry = {"format": "ilpart-store-entry", "version": 1, "fingerprint": fingerprint,
                     "graph": "graphs/%s.json" % fingerprint, "nodes": nodes,
                     "ilpart": self.version(), "args": list(args)}
            self._publish(self._tmp(json.dumps(entry, indent=1) + "\n"), epath)
        return key, mine

    def stored(self, key):
        """The stored partition of an entry as a dict (names of the stored graph), or None."""
        try:
            with open(self.path("partitions", key + ".json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def offer(self, key, part_path):
        """Stores the partition file at part_path (names of the stored graph) for `key`
        unless the stored one is better; consumes part_path. True if stored."""
        with open(self.path("locks", key + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with open(part_path) as f:
                new = json.load(f)
            if better(new, self.stored(key)):
                os.replace(part_path, self.path("partitions", key + ".json"))
                return True
        os.unlink(part_path)
        return False

    def status(self, key):
        """status/KEY.json, what the last `ilpart batch` attempt at the entry did, as a
        dict ({} when none or unreadable)."""
        try:
            with open(self.path("status", key + ".json")) as f:
                st = json.load(f)
        except (OSError, ValueError):
            return {}
        return st if isinstance(st, dict) else {}

    def entries(self):
        return sorted(f[:-5] for f in os.listdir(self.path("entries")) if f.endswith(".json"))

    def entry_key_of(self, key):
        """The key entries/KEY.json's own request has (entry_key of its fingerprint, args
        and recorded version; without a recorded version, of the first two), or None when
        there is no such entry. Not `key`: the file is under another request's name, and
        its answer (partitions/KEY.json, solved by `ilpart batch` from the entry) is not an
        answer to request `key`."""
        try:
            with open(self.path("entries", key + ".json")) as f:
                e = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as ex:
            return "unreadable (%s)" % ex
        if not isinstance(e, dict):
            return "not a JSON object"
        req = {"args": e.get("args"), "fingerprint": e.get("fingerprint")}
        if "ilpart" in e:
            req["ilpart"] = e["ilpart"]
        text = json.dumps(req, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _policy_args(args, store):
    """--policy (as an absolute path into the store) from a solve argument list."""
    for i, a in enumerate(args[:-1]):
        if a == "--policy":
            return ["--policy", store.path(args[i + 1])]
    return []


def _mincut_args(args):
    """What `ilpart mincut` takes of a solve argument list besides --prefer and --policy:
    bans and device."""
    out = []
    for i, a in enumerate(args[:-1]):
        if a in ("--bans", "--device"):
            out += [a, args[i + 1]]
    return out


def store_solver(store, on_miss="solve", binary=None):
    """A drop-in for runner.solve (same arguments) that asks the store first.

    Hit (a partition for this graph's fingerprint and these options): the stored partition
    is carried onto this graph's node names and checked (`ilpart remap`); nothing is solved.
    Miss: the graph is recorded in the store as pending (for `ilpart batch`), then
    on_miss="solve" solves now within time_limit (and stores the answer if the store has
    no better one), "mincut" runs ilpart's min-cut (PyTorch's heuristic, torch's reading of
    the tags), "error" raises IlpartError. The returned partition dict has a "store" member:
    {"key", "fingerprint", "how": "hit" | "solved" | "mincut"}. Requests that are not ILP
    solves (command="mincut") bypass the store."""
    if on_miss not in ON_MISS:
        raise ValueError("on_miss must be one of %s, not %r" % (", ".join(ON_MISS), on_miss))
    st = store if isinstance(store, Store) else Store(store, binary=binary)

    def run(graph, objective="memory", memory_budget=None, prefer="hard", time_limit=None,
            policy=None, extra_args=None, binary=None, command="solve", **more):
        kw = dict(objective=objective, memory_budget=memory_budget, prefer=prefer,
                  policy=policy, extra_args=extra_args, binary=binary, command=command, **more)
        if command != "solve":
            return runner.solve(graph, time_limit=time_limit, **kw)
        if binary:
            st.binary = binary
        if policy is not None:
            policy = st.add_policy(policy)
        args = solve_args(objective, memory_budget, prefer, policy, extra_args, **more)
        gtmp = st._tmp(dumps(graph))
        try:
            fp = st.fingerprint(gtmp)
            key = entry_key(fp, args, st.version())
            info = {"key": key, "fingerprint": fp}
            part = _hit(st, key, fp, gtmp, args)
            if part is not None:
                part["store"] = dict(info, how="hit")
                return part
            # Miss: record, then answer as on_miss says.
            keep = st._tmp(dumps(graph))
            _key, mine = st.record(keep, fp, args, len(graph.get("nodes", ())))
            failed = _failure(st, key)
            if on_miss == "error":
                if failed:
                    raise IlpartError("partition store %s: the entry for this graph "
                                      "(fingerprint %s) with options %s failed in `ilpart "
                                      "batch` (entries/%s.json, status/%s.json: %s); fix "
                                      "the cause and run `ilpart batch %s --retry`"
                                      % (st.given, fp[:16], " ".join(args), key, key,
                                         failed, st.given), 3)
                raise IlpartError("partition store %s has no partition for this graph "
                                  "(fingerprint %s) with options %s: recorded as pending "
                                  "in entries/%s.json; run `ilpart batch %s`"
                                  % (st.given, fp[:16], " ".join(args), key, st.given))
            if on_miss == "mincut" and failed:
                warnings.warn("partition store %s: the entry for this graph (entries/%s."
                              "json) failed in `ilpart batch` (%s): training with min-cut "
                              "instead; fix the cause and run `ilpart batch %s --retry`"
                              % (st.given, key, failed, st.given), IlpartWarning,
                              stacklevel=3)
            if on_miss == "mincut":
                part = runner.solve(gtmp, binary=st._bin(), command="mincut",
                                    prefer="pytorch",
                                    extra_args=_mincut_args(args) + _policy_args(args, st))
                part["store"] = dict(info, how="mincut")
                return part
            part = _solve_now(st, key, fp, gtmp, args, time_limit, mine)
            part["store"] = dict(info, how="solved")
            return part
        finally:
            if os.path.exists(gtmp):
                os.unlink(gtmp)

    run.store = st
    return run


def _failure(st, key):
    """What the last `ilpart batch` attempt at entry `key` failed with ("exit 3: ..."),
    or "" when it did not fail (or never ran)."""
    status = st.status(key)
    code = status.get("exit")
    if not isinstance(code, int) or code == 0:
        return ""
    return "exit %d: %s" % (code, str(status.get("message", ""))[:400])


def _hit(st, key, fp, graph_path, args):
    """The stored partition carried onto graph_path, or None (no entry, or it does not
    carry over: then it is left alone and the request treated as a miss)."""
    ppath = st.path("partitions", key + ".json")
    if not os.path.exists(ppath):
        return None
    own = st.entry_key_of(key)
    if own is not None and own != key:
        import warnings
        warnings.warn("partition store %s: entries/%s.json is another request's entry (its "
                      "fingerprint, args and version have the key %s): its partition is not "
                      "an answer to this request; treated as a miss (remove entries/%s.json "
                      "and partitions/%s.json to record it afresh)"
                      % (st.given, key, own, key, key), stacklevel=3)
        return None
    out = st._tmp("")
    try:
        rc, _o, err = st._run("remap", st.path("graphs", fp + ".json"), ppath, graph_path,
                              "-o", out, *_policy_args(args, st))
        if rc != 0:
            import warnings
            warnings.warn("partition store %s: entry %s does not carry over (exit %d: %s); "
                          "treated as a miss" % (st.given, key, rc, err), stacklevel=3)
            return None
        with open(out) as f:
            return json.load(f)
    finally:
        os.unlink(out)


def _solve_now(st, key, fp, graph_path, args, time_limit, mine):
    """Solves now; offers the answer to the store (in the stored graph's names)."""
    extra = ["--time-limit", str(time_limit)] if time_limit is not None else []
    out = st._tmp("")
    rc, _o, err = st._run("solve", graph_path, "-o", out, *(_abs_policy(args, st) + extra))
    if rc != 0:
        os.unlink(out)
        raise IlpartError("ilpart solve failed (exit %d): %s" % (rc, err), rc)
    with open(out) as f:
        part = json.load(f)
    if mine:
        st.offer(key, out)
    else:
        # The stored graph came from another process, perhaps with other node names.
        mapped = st._tmp("")
        rc, _o, err = st._run("remap", graph_path, out, st.path("graphs", fp + ".json"),
                              "-o", mapped, *_policy_args(args, st))
        os.unlink(out)
        if rc == 0:
            st.offer(key, mapped)
        else:
            os.unlink(mapped)
    return part


def _abs_policy(args, st):
    out = list(args)
    for i, a in enumerate(out[:-1]):
        if a == "--policy":
            out[i + 1] = st.path(out[i + 1])
    return out
