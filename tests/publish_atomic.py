#!/usr/bin/env python3
"""Atomic publication of `etprof analyze -o DIR`, scenario by scenario.

usage: publish_atomic.py ETPROF FIXTURES_DIR WORK_DIR

Each scenario checks what DIR holds afterwards (byte for byte where the old
bundle must survive, `etprof verify` where a bundle must be valid) and that
the parent directory holds nothing else: no staging directory
(.DIR.etprof-staging-*), no old directory moved aside (.DIR.etprof-old-*).
The real runs come from FIXTURES_DIR/real-runs (exit 77 when it is absent);
the kill scenarios generate a mid-size run with `etprof gen etdump`.
SIGKILL cannot be caught: what it leaves (staging or moved-aside
directories) must be removed by the next publication into DIR, and a live
writer's directories never (its lock is held); the pause points are the
test hooks ETPROF_TEST_PAUSE_AT / ETPROF_TEST_PAUSE_MS."""
import os, shutil, signal, subprocess, sys, time

ETPROF, FIXTURES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
R = os.path.join(FIXTURES, "real-runs")
if not os.path.isdir(R):
    print(f"SKIP: {R} is absent; these scenarios publish real runs")
    sys.exit(77)

XNN = ["--etdump", f"{R}/xnn_np_add_x10.etdp", "--pte", f"{R}/xnn_np_add_x10.pte"]
CM = [f"{R}/cm_et_arduino_kws_x10.etrecord", "--etdump", f"{R}/cm_et_arduino_kws_x10.etdp",
      "--pte", f"{R}/cm_et_arduino_kws_x10.pte"]
BAD_PTE = ["--etdump", f"{R}/xnn_np_add_x10.etdp", "--pte", f"{R}/et_add_x10.pte"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([ETPROF] + args, capture_output=True, text=True, env=e)


def analyze(args, out, *extra, env=None):
    return run(["analyze"] + args + ["-o", out, "--quiet"] + list(extra), env)


def snapshot(d):
    """Every file under d, relative path -> bytes (symlinks as their target)."""
    files = {}
    for root, dirs, names in os.walk(d):
        for n in dirs + names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, d)
            if os.path.islink(p):
                files[rel] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    files[rel] = f.read()
            else:
                files[rel] = "dir"
    return files


def verify_ok(d, strict=True):
    r = run(["verify"] + (["--strict"] if strict else []) + [d])
    return r.returncode == 0


def leftovers(parent):
    return sorted(n for n in os.listdir(parent) if ".etprof-staging-" in n or ".etprof-old-" in n)


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def good_bundle(parent, args=XNN, *extra):
    out = os.path.join(parent, "rep")
    r = analyze(args, out, *extra)
    assert r.returncode == 0, r.stderr
    return out


def scenario_failed_rerun():
    """A re-run that fails on a mismatched --pte leaves the old bundle."""
    p = fresh("failed-rerun")
    out = good_bundle(p)
    before = snapshot(out)
    r = analyze(BAD_PTE, out)
    check(r.returncode == 1, f"mismatched --pte: exit {r.returncode}, want 1")
    check(snapshot(out) == before, "mismatched --pte: the old bundle changed")
    check(verify_ok(out), "mismatched --pte: the old bundle no longer verifies")
    check(leftovers(p) == [] and sorted(os.listdir(p)) == ["rep"],
          f"mismatched --pte: left {os.listdir(p)}")


def scenario_no_stale_files():
    """--detailed, then a different run without it: no detailed/ left."""
    p = fresh("stale")
    out = good_bundle(p, XNN, "--detailed")
    check(os.path.isdir(os.path.join(out, "detailed")), "--detailed wrote no detailed/")
    r = analyze(CM, out)
    check(r.returncode == 0, f"re-publish: exit {r.returncode}: {r.stderr}")
    check(not os.path.exists(os.path.join(out, "detailed")), "re-publish: stale detailed/ survived")
    r = run(["verify", "--strict", out])
    check(r.returncode == 0 and "warning" not in r.stdout + r.stderr,
          f"re-publish: verify --strict: {r.stdout}{r.stderr}")
    check(leftovers(p) == [], f"re-publish: left {leftovers(p)}")


def scenario_not_a_bundle():
    """A non-empty directory that is not a bundle: refused, unless --force."""
    p = fresh("other")
    out = os.path.join(p, "mine")
    os.makedirs(os.path.join(out, "sub"))
    with open(os.path.join(out, "notes.txt"), "w") as f:
        f.write("precious\n")
    with open(os.path.join(out, "sub", "more.txt"), "w") as f:
        f.write("also\n")
    before = snapshot(out)
    r = analyze(XNN, out)
    check(r.returncode == 1, f"non-bundle dir: exit {r.returncode}, want 1")
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and out in lines[0] and "not an etprof bundle" in lines[0]
          and "--force" in lines[0], f"non-bundle dir: message {r.stderr!r}")
    check(snapshot(out) == before, "non-bundle dir: touched without --force")
    check(leftovers(p) == [], f"non-bundle dir: left {leftovers(p)}")
    # A directory with a result_manifest.json that is not etprof's is no bundle either.
    with open(os.path.join(out, "result_manifest.json"), "w") as f:
        f.write('{"schema": "someone.else"}\n')
    r = analyze(XNN, out)
    check(r.returncode == 1, f"foreign manifest: exit {r.returncode}, want 1")
    r = analyze(XNN, out, "--force")
    check(r.returncode == 0, f"--force: exit {r.returncode}: {r.stderr}")
    check(not os.path.exists(os.path.join(out, "notes.txt")), "--force: old files survived")
    check(verify_ok(out), "--force: the bundle does not verify")
    check(leftovers(p) == [], f"--force: left {leftovers(p)}")


def scenario_empty_dir():
    p = fresh("empty")
    out = os.path.join(p, "e")
    os.mkdir(out, 0o750)
    r = analyze(XNN, out + "/")
    check(r.returncode == 0, f"empty dir: exit {r.returncode}: {r.stderr}")
    check(verify_ok(out), "empty dir: the bundle does not verify")
    check(os.stat(out).st_mode & 0o777 == 0o750, "empty dir: its permissions were not kept")
    check(leftovers(p) == [], f"empty dir: left {leftovers(p)}")


def scenario_missing_parent():
    p = fresh("parent")
    out = os.path.join(p, "nonexistent", "deep", "out")
    r = analyze(XNN, out)
    check(r.returncode == 1, f"missing parent: exit {r.returncode}, want 1")
    check("parent directory does not exist" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          f"missing parent: message {r.stderr!r}")
    check(os.listdir(p) == [], f"missing parent: created {os.listdir(p)}")
    r = analyze(XNN, out, "--parents")
    check(r.returncode == 0 and verify_ok(out), f"--parents: exit {r.returncode}: {r.stderr}")
    # A failed analysis creates nothing at all, not even an empty DIR.
    out2 = os.path.join(p, "never")
    r = analyze(BAD_PTE, out2)
    check(r.returncode == 1 and not os.path.exists(out2), "failed analysis left an -o directory")


def scenario_regular_file():
    p = fresh("file")
    out = os.path.join(p, "f")
    with open(out, "w") as f:
        f.write("data\n")
    r = analyze(XNN, out)
    check(r.returncode == 1, f"regular file: exit {r.returncode}, want 1")
    check(open(out).read() == "data\n", "regular file: changed")
    check(sorted(os.listdir(p)) == ["f"], f"regular file: left {os.listdir(p)}")


def scenario_injected_failure():
    """A write that fails midway (the test hook: half the bytes, then
    ENOSPC), after 0, 1, 2 and 5 artifacts, with both swap methods."""
    p = fresh("inject")
    out = good_bundle(p, CM)
    before = snapshot(out)
    for n in ("0", "1", "2", "5"):
        for no_exchange in ("0", "1"):
            env = {"ETPROF_TEST_FAIL_AFTER_ARTIFACTS": n, "ETPROF_TEST_NO_EXCHANGE": no_exchange}
            r = analyze(XNN, out, "--detailed", env=env)
            what = f"failure after {n} artifacts (no exchange: {no_exchange})"
            check(r.returncode == 1 and "No space left on device" in r.stderr,
                  f"{what}: exit {r.returncode}: {r.stderr}")
            check(snapshot(out) == before, f"{what}: the old bundle changed")
            check(leftovers(p) == [], f"{what}: left {leftovers(p)}")
    check(verify_ok(out), "injected failures: the old bundle no longer verifies")
    # The two-rename swap publishes too.
    r = analyze(XNN, out, env={"ETPROF_TEST_NO_EXCHANGE": "1"})
    check(r.returncode == 0 and verify_ok(out), f"two-rename swap: exit {r.returncode}: {r.stderr}")
    check(leftovers(p) == [], f"two-rename swap: left {leftovers(p)}")


def scenario_read_only_parent():
    """No staging directory can be made: an error, the old bundle intact."""
    if os.geteuid() == 0:
        print("note: running as root, the read-only parent case is skipped")
        return
    p = fresh("readonly")
    out = good_bundle(p)
    before = snapshot(out)
    os.chmod(p, 0o555)
    try:
        r = analyze(XNN, out)
    finally:
        os.chmod(p, 0o755)
    check(r.returncode == 1, f"read-only parent: exit {r.returncode}")
    check(snapshot(out) == before and leftovers(p) == [], "read-only parent: changed")


def mid_size_run():
    d = os.path.join(WORK, "mid-run")
    run_files = [os.path.join(d, n) for n in ("mid.etdp", "mid.pte", "mid.etrecord")]
    if not all(os.path.exists(f) for f in run_files):
        os.makedirs(d, exist_ok=True)
        r = run(["gen", "etdump", "-o", run_files[0], "--executions", "20", "--instructions", "5000",
                 "--delegate-every", "10", "--seed", "1", "--pte", run_files[1],
                 "--etrecord", run_files[2]])
        assert r.returncode == 0, r.stderr
    return [run_files[2], "--etdump", run_files[0], "--pte", run_files[1], "--detailed"]


def kill_during_publication(sig, env, label, wait_for=None):
    p = fresh("kill-" + label)
    out = good_bundle(p)
    before = snapshot(out)
    args = mid_size_run()
    e = dict(os.environ)
    e.update(env)
    proc = subprocess.Popen([ETPROF, "analyze"] + args + ["-o", out, "--quiet"], env=e,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Wait until the staging directory exists and holds a first file (or
    # the entry @wait_for): the bundle is being written.
    deadline = time.time() + 120
    staged = False
    while time.time() < deadline and proc.poll() is None:
        st = [n for n in os.listdir(p) if ".etprof-staging-" in n]
        try:
            inside = os.listdir(os.path.join(p, st[0])) if st else []
            if inside and (wait_for is None or wait_for in inside):
                staged = True
                break
        except FileNotFoundError:
            pass  # swapped in or removed meanwhile
        time.sleep(0.001)
    if staged:
        proc.send_signal(sig)
    proc.wait()
    err = proc.stderr.read().decode()
    print(f"{label}: signal {sig} sent {'while staging' if staged else 'never'}")
    check(staged, f"{label}: publication ended before a staging directory was seen ({err})")
    check(proc.returncode == -sig,
          f"{label}: exit status {proc.returncode}, want death by signal {sig} ({err})")
    check(snapshot(out) == before, f"{label}: the old bundle changed")
    check(verify_ok(out), f"{label}: the old bundle no longer verifies")
    check(leftovers(p) == [] and sorted(os.listdir(p)) == ["rep"], f"{label}: left {os.listdir(p)}")


def scenario_kills():
    # Mid-write: the 14 MB run takes long enough to publish that the signal
    # lands while files are being written.
    kill_during_publication(signal.SIGTERM, {}, "sigterm", "detailed")
    kill_during_publication(signal.SIGINT, {}, "sigint")
    # Between two artifacts (the hook pauses before each), and with the
    # two-rename swap configured.
    kill_during_publication(signal.SIGINT, {"ETPROF_TEST_SLOW_ARTIFACTS_MS": "300",
                                            "ETPROF_TEST_NO_EXCHANGE": "1"}, "sigint-slow")


def start(args, out, env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.Popen([ETPROF, "analyze"] + args + ["-o", out, "--quiet"], env=e,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_pause(proc, point):
    """Read the child's stderr until the test hook says it is paused at @point."""
    line = proc.stderr.readline().decode()
    return f"test pause at {point}" in line


def sigkill_at(label, env, point=None, wait_for=None):
    """SIGKILL a publication at one point: its leftovers stay (nothing can
    remove them then); the next publication into DIR removes them and
    publishes a valid bundle with nothing else beside it."""
    p = fresh("sigkill-" + label)
    out = good_bundle(p)
    e = dict(env)
    if point:
        e.update({"ETPROF_TEST_PAUSE_AT": point, "ETPROF_TEST_PAUSE_MS": "60000"})
    proc = start(mid_size_run() if wait_for else XNN, out, e)
    if point:
        reached = wait_pause(proc, point)
    else:
        reached = False
        deadline = time.time() + 120
        while not reached and time.time() < deadline and proc.poll() is None:
            st = [n for n in os.listdir(p) if ".etprof-staging-" in n]
            try:
                reached = bool(st) and wait_for in os.listdir(os.path.join(p, st[0]))
            except FileNotFoundError:
                pass
            time.sleep(0.001)
    check(reached, f"{label}: the publication never reached the kill point")
    proc.kill()
    proc.wait()
    check(proc.returncode == -signal.SIGKILL, f"{label}: exit status {proc.returncode}")
    left = leftovers(p)
    print(f"{label}: SIGKILL left {left}")
    check(left != [], f"{label}: nothing left to sweep (the kill point was missed)")
    check(verify_ok(out), f"{label}: DIR does not verify after the kill")
    r = analyze(XNN, out)
    check(r.returncode == 0 and verify_ok(out), f"{label}: next publication: {r.stderr}")
    check(sorted(os.listdir(p)) == ["rep"], f"{label}: after the next publication: {os.listdir(p)}")


def scenario_sigkill():
    # While artifacts are being written (detailed/ seen in staging).
    sigkill_at("mid-write", {}, None, "detailed")
    # Staging complete, manifest written, just before the swap.
    sigkill_at("before-swap", {}, "before-swap")
    # New bundle in place, the old one moved aside, before its removal
    # (both swap methods: the aside is a staging- or an old- name).
    sigkill_at("after-swap", {}, "after-swap")
    sigkill_at("after-swap-two-renames", {"ETPROF_TEST_NO_EXCHANGE": "1"}, "after-swap")


def scenario_live_writer_kept():
    """A live writer's staging directory (paused before its swap) and its
    moved-aside old directory (paused after it) survive other publications
    into the same DIR; the writer then finishes cleanly."""
    for point in ("before-swap", "after-swap"):
        p = fresh("live-" + point)
        out = good_bundle(p)
        proc = start(XNN, out, {"ETPROF_TEST_PAUSE_AT": point, "ETPROF_TEST_PAUSE_MS": "1500"})
        check(wait_pause(proc, point), f"live {point}: no pause")
        mine = leftovers(p)
        r = analyze(CM, out)
        check(r.returncode == 0, f"live {point}: the other publication: {r.stderr}")
        check(all(n in os.listdir(p) for n in mine),
              f"live {point}: the live writer's {mine} was removed")
        proc.wait()
        check(proc.returncode == 0, f"live {point}: the paused writer: exit {proc.returncode}")
        check(verify_ok(out), f"live {point}: DIR does not verify")
        check(sorted(os.listdir(p)) == ["rep"], f"live {point}: left {os.listdir(p)}")


def scenario_concurrent():
    """Publishers into one DIR at once, some killed with SIGKILL midway: the
    survivors all succeed, DIR verifies, nothing is left beside it."""
    p = fresh("concurrent")
    out = good_bundle(p)
    procs = []
    for i in range(6):
        env = {"ETPROF_TEST_SLOW_ARTIFACTS_MS": "40"} if i % 2 else {}
        if i % 3 == 2:
            env["ETPROF_TEST_NO_EXCHANGE"] = "1"
        procs.append(start(XNN if i % 2 else CM, out, env))
    time.sleep(0.15)
    procs[1].kill()  # slow: still staging
    for pr in procs:
        pr.wait()
    for i, pr in enumerate(procs):
        if i != 1:
            check(pr.returncode == 0, f"concurrent #{i}: exit {pr.returncode}: "
                  f"{pr.stderr.read().decode()}")
    check(verify_ok(out), "concurrent: DIR does not verify")
    r = analyze(XNN, out)  # sweeps what the killed one left
    check(r.returncode == 0, f"concurrent: last publication {r.stderr}")
    check(sorted(os.listdir(p)) == ["rep"], f"concurrent: left {os.listdir(p)}")


def scenario_concurrent_turns():
    """Publishers into one DIR at once take turns at the swap: with the
    two-rename swap (DIR briefly absent between the renames) and onto a
    missing DIR (each finds it missing), every one must succeed, none may
    rename its bundle into another's gap."""
    for name, existing in (("turns-two-renames", True), ("turns-missing", False)):
        p = fresh(name)
        out = os.path.join(p, "rep")
        for rnd in range(3):
            if existing:
                good_bundle(p)
            else:
                shutil.rmtree(out, ignore_errors=True)
            env = {"ETPROF_TEST_NO_EXCHANGE": "1"} if existing else {}
            procs = [start(XNN, out, env) for _ in range(8)]
            for pr in procs:
                pr.wait()
            for i, pr in enumerate(procs):
                check(pr.returncode == 0, f"{name} round {rnd} #{i}: exit {pr.returncode}: "
                      f"{pr.stderr.read().decode()}")
            check(verify_ok(out), f"{name} round {rnd}: DIR does not verify")
            check(sorted(os.listdir(p)) == ["rep"], f"{name} round {rnd}: left {os.listdir(p)}")


for scenario in (scenario_failed_rerun, scenario_no_stale_files, scenario_not_a_bundle,
                 scenario_empty_dir, scenario_missing_parent, scenario_regular_file,
                 scenario_injected_failure, scenario_read_only_parent, scenario_kills,
                 scenario_sigkill, scenario_live_writer_kept, scenario_concurrent,
                 scenario_concurrent_turns):
    print("--", scenario.__name__)
    scenario()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all publication scenarios passed")
