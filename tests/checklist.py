"""checklist.py - the scaffolding of the scenario scripts that report one
line per check and fail at the end: expect(), the etprof runner, files in
the scratch directory. Standard library only."""
import os
import subprocess
import sys


class Checklist:
    def __init__(self, etprof, tmp):
        self.etprof, self.tmp, self.failures = etprof, tmp, []

    def expect(self, cond, what):
        """Print "ok"/"FAIL" and WHAT; a failure is counted for finish()."""
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            self.failures.append(what)

    def run(self, *args):
        """etprof ARGS: (exit status, stdout, stderr) as text."""
        p = subprocess.run([self.etprof] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

    def write(self, name, data):
        """TMP/NAME with DATA (text or bytes); its path."""
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return path

    def finish(self):
        print("%d failure(s)" % len(self.failures))
        sys.exit(1 if self.failures else 0)
